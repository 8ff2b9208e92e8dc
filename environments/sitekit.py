"""The site kit: what every website (shop, mail, booking, ...) shares, so a site keeps only what is its own.

A site uses it like this (see docs/environments.md, "Building a site"):

- services raise `SiteError(status, "message for the person")`; the one handler that
  `mount_environments` installs (`install_site_errors`) answers `{"detail": message}` with that
  status, exactly as `HTTPException` does. API handlers call services directly, no wrapper;
- `state_of(env, MyState)` gives a handler the typed state of its session;
- `find_or_404(state, "collection", id, "message")` looks an entity up or refuses with a 404;
- `page_of(items, page, size)` cuts a list into numbered pages for the list endpoints;
- `add_sign_in_again(router, person, who)` adds the `POST /auth/login` that ends a session expiry;
- `SitePages(env_id)` renders the site's pages: `PAGES.add("/orders/{order_id}", PageSpec(...))`
  serves a page at a path (`PAGES.router` is the site's page router), `PAGES.render(request, spec,
  **data)` renders one from a handler; both fill the shared shell (`templates/site_shell.html`,
  extended by the site's `<env_id>/base.html`);
- `/env-static/site.js` (`environments/static/site.js`) is the one browser helper for the API, toast and 401
  (sign in again) contract, loaded by the shell before the site's own script; the shared
  `relogin.html` is the sign-in-again page of every site;
- oracles are typed `Oracle` functions over Playwright's `Page`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response

from humantrace.environments.deps import EnvHandle, EnvSessionDep
from humantrace.environments.responses import Ok
from humantrace.environments.state import EnvState

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from humantrace.environments.oracles import OracleContext


StateT = TypeVar("StateT", bound=EnvState)
ItemT = TypeVar("ItemT")


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


def page_of(items: Sequence[ItemT], page: int, size: int) -> tuple[list[ItemT], int, int]:
    """Page `page` (1-based, clamped to the pages there are) of `items`, `size` a page: the items on
    it, the page number and the number of pages (at least 1, so an empty list has one empty page)."""
    pages = max(1, -(-len(items) // size))
    page = min(max(1, page), pages)
    return list(items[(page - 1) * size : page * size]), page, pages


class SignsIn(Protocol):
    """The person a session signs in as: a site's profile entity."""

    signed_in: bool


def add_sign_in_again(router: APIRouter, person: Callable[[EnvHandle], SignsIn], who: str) -> None:
    """`POST /auth/login` on `router`: sign in again after a session expiry (the device remembers the
    person, so nothing is asked): `person(env).signed_in` is set again and `signed_in` is emitted."""

    def login(env: EnvSessionDep) -> Ok:
        person(env).signed_in = True
        env.emit("signed_in")
        return Ok()

    router.add_api_route(
        "/auth/login",
        login,
        methods=["POST"],
        response_model=Ok,
        name="login",
        description=f"Sign in again after a session expiry (the device remembers the {who}).",
    )


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
    `data` values become the body's `data-` attributes (ids taken from the URL). `router` is the
    site's page router (`Environment.page_router`); `add` serves a page on it.
    """

    def __init__(self, env_id: str, **context: Any) -> None:
        self.env_id = env_id
        self.context = context
        self.router = APIRouter(include_in_schema=False)

    def add(self, path: str, spec: PageSpec, **data: str) -> None:
        """Serve `spec` at `path`. Each `{param}` of the path becomes a `data-` attribute named as the
        parameter without `_id` (`/orders/{order_id}` gives `data-order`), and fills a `{param}` in
        the title (`PageSpec("community", "c/{community}", ...)`); `data` adds fixed attributes."""

        def show(request: Request) -> Response:
            params = {name.removesuffix("_id"): str(value) for name, value in request.path_params.items()}
            page = spec.titled(spec.title.format(**params)) if params else spec
            return self.render_data(request, page, {**data, **params})

        self.router.add_api_route(path, show, methods=["GET"], name=f"{self.env_id}:{spec.page}")

    @property
    def base(self) -> str:
        return f"/env/{self.env_id}"

    def render(
        self, request: Request, spec: PageSpec, *, extra: Mapping[str, Any] | None = None, **data: str
    ) -> Response:
        return self.render_data(request, spec, data, extra)

    def render_data(
        self,
        request: Request,
        spec: PageSpec,
        data: Mapping[str, str],
        extra: Mapping[str, Any] | None = None,
    ) -> Response:
        """`render` with the `data-` attributes as a mapping."""
        from humantrace.environments.pages import (
            render_page,  # pages imports the registry, which imports the sites
        )

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
            data=dict(data),
            **{**self.context, **(extra or {})},
        )


class Oracle(Protocol):
    """A scripted competent person (or a plausible mistake): acts on `page` through the UI only."""

    def __call__(self, page: Page, ctx: OracleContext, /) -> None: ...
