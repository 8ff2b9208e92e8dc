"""What every site's JSON API answers: the base of the response models and the shared error shape.

Each site declares one pydantic model per answer (`environments/<site>/responses.py`) and names it
as its handler's return type, so FastAPI validates and serialises the answer in pydantic-core and the
OpenAPI document (`/openapi.json`) describes every response. Unknown keys are errors, so a field a
handler adds without declaring it fails the site's tests instead of drifting from the schema.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Answer(BaseModel):
    """The base of every site response model: closed (no undeclared keys)."""

    model_config = ConfigDict(extra="forbid")


class Ok(Answer):
    """A change with nothing more to say than that it was made."""

    ok: bool = True


class Message(Answer):
    """A change that only says what happened ("Address removed.")."""

    message: str


class Removed(Answer):
    """A deletion: the id that is gone and the line shown to the person."""

    removed: str
    message: str


class Refusal(BaseModel):
    """The error shape of every site: `detail` is a message for the person, or FastAPI's list of
    validation errors (422) when the request does not fit the endpoint's input schema."""

    detail: str | list[dict[str, Any]]
    login_url: str | None = None  # on a 401 after a session expiry: where to sign in again


REFUSAL_STATUSES = {
    400: "Refused: the request cannot be done as asked (a message for the person)",
    401: "No live environment session, or the person has signed out of the site",
    404: "The thing asked for does not exist (any more)",
    409: "Conflicts with the site's state (out of stock, already done, the session ended or changed meanwhile)",
    422: "Refused: a message for the person (a string), or FastAPI's list of validation errors",
}

REFUSAL_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": Refusal, "description": description} for status, description in REFUSAL_STATUSES.items()
}
