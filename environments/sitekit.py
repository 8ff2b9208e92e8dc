"""The site kit: what every website (shop, mail, booking, ...) shares, so a site keeps only what is its own.

A site uses it like this (see docs/environments.md, "Building a site"):

- services raise `SiteError(status, "message for the person")`; the one handler that
  `mount_environments` installs (`install_site_errors`) answers `{"detail": message}` with that
  status, exactly as `HTTPException` does. API handlers call services directly, no wrapper;
- `state_of(env, MyState)` gives a handler the typed state of its session;
- `find_or_404(state, "collection", id, "message")` looks an entity up or refuses with a 404;
- `SitePages(env_id)` renders the site's pages: `pages.render(request, PageSpec(...), **data)` fills the
  shared shell (`templates/site_shell.html`, extended by the site's `<env_id>/base.html`);
- `/env-static/site.js` (`environments/static/site.js`) is the one browser helper for the API, toast and 401
  (sign in again) contract, loaded by the shell before the site's own script; the shared
  `relogin.html` is the sign-in-again page of every site;
- oracles are typed `Oracle` functions over Playwright's `Page`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from environments.state import EnvState

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from environments.oracles import OracleContext


StateT = TypeVar("StateT", bound=EnvState)


class SiteError(Exception):
    """A request a site refuses: the HTTP status and a message the person can act on (shown as is)."""

    def __init__(self, status_code: int, detail: str, *, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail
        self.headers = dict(headers or {})


async def site_error_response(request: Request, error: Exception) -> Response:
    """`{"detail": message}` with the error's status: the same body and status as `HTTPException`."""
    assert isinstance(error, SiteError)
    return JSONResponse(
        {"detail": error.detail}, status_code=error.status_code, headers=error.headers or None
    )


def install_site_errors(app: FastAPI) -> None:
    """Install the one `SiteError` handler (done by `mount_environments`)."""
    app.add_exception_handler(SiteError, site_error_response)


class HasState(Protocol):
    """What `state_of` reads: a session handle (`EnvSessionDep`) or a seed context."""

    @property
    def state(self) -> EnvState: ...


def state_of(env: HasState, model: type[StateT]) -> StateT:
    """The session's live state as the site's own state class (a 500 if it is another site's)."""
    state = env.state
    if not isinstance(state, model):
        raise TypeError(f"the session's state is a {type(state).__name__}, not a {model.__name__}")
    return state


def find_or_404(state: EnvState, collection: str, entity_id: str, message: str) -> Any:
    """The entity `entity_id` of `collection`, or a 404 `SiteError` with `message`."""
    found = state.find(collection, entity_id)
    if found is None:
        raise SiteError(404, message)
    return found


@dataclass(frozen=True)
class PageSpec:
    """One page: its name (the page script's switch), title, script file and the nav section it marks."""

    page: str
    title: str
    script: str
    section: str = ""

    def titled(self, title: str) -> PageSpec:
        """The same page under another title (a category's or a folder's name)."""
        return PageSpec(self.page, title, self.script, self.section)


class SitePages:
    """Renders a site's pages: `<env_id>/base.html` (which extends the shared shell) for a `PageSpec`.

    `context` is given to every page (a shop's categories, a mailbox's folders); `render`'s keyword
    `data` values become the body's `data-` attributes (ids taken from the URL).
    """

    def __init__(self, env_id: str, **context: Any) -> None:
        self.env_id = env_id
        self.context = context

    @property
    def base(self) -> str:
        return f"/env/{self.env_id}"

    def render(
        self, request: Request, spec: PageSpec, *, extra: Mapping[str, Any] | None = None, **data: str
    ) -> Response:
        from environments.pages import render_page  # pages imports the registry, which imports the sites

        return render_page(
            request,
            self.env_id,
            f"{self.env_id}/base.html",
            page=spec.page,
            title=spec.title,
            script=spec.script,
            scripts=[spec.script],
            section=spec.section,
            base=self.base,
            api=f"/api/env/{self.env_id}",
            data=data,
            **{**self.context, **(extra or {})},
        )


class Oracle(Protocol):
    """A scripted competent person (or a plausible mistake): acts on `page` through the UI only."""

    def __call__(self, page: Page, ctx: OracleContext, /) -> None: ...
