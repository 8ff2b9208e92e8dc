"""Wire shapes of the recorder protocol and the limits every frame must respect.

The client sends `batch` and `meta` messages; the server answers every frame with exactly one
`ack` or `error` message. Validation is strict: unknown event types, unknown fields, wrong JSON
types, missing required fields, non-finite numbers and over-long strings are all errors, so a
recorder bug shows up as a clear error frame instead of a silently odd row.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

# ---------------------------------------------------------------------------- limits
MAX_FRAME_BYTES = 256 * 1024
"""Largest websocket frame or HTTP body accepted, in bytes of UTF-8 text."""
MAX_BATCH_EVENTS = 500
"""Most events in one batch."""
MAX_VALUE_CHARS = 4096
"""Longest `value` (typed text, selected text); the recorder truncates longer values."""
MAX_XPATH_CHARS = 2048
MAX_URL_CHARS = 2048
MAX_KEY_CHARS = 64
MAX_USER_AGENT_CHARS = 1024
MAX_SEQ = 2**31 - 1
MAX_T_MS = 2**53
MAX_COUNT = 2**31 - 1
MAX_PIXELS = 100_000
MAX_STREAMS = 200
"""Most streams (page instances, each tab key its own) in one recording; a tab past it is refused."""

EVENT_TYPES: tuple[str, ...] = (
    "click",
    "dblclick",
    "contextmenu",
    "keydown",
    "input",
    "change",
    "submit",
    "scroll",
    "mousemove",
    "focus",
    "blur",
    "select",
    "navigation",
    "visibility",
    "resize",
    "dom_change",
    "mousedown",
    "mouseup",
    "dragstart",
    "drop",
    "frame_gap",
)
CONTEXT_EVENT_TYPES: tuple[str, ...] = ("dom_change", "visibility", "resize")
NAV_KINDS: tuple[str, ...] = ("load", "push", "replace", "popstate", "hashchange", "unload")

_STRICT = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, frozen=True)

XPath = Annotated[str, Field(max_length=MAX_XPATH_CHARS)]
Url = Annotated[str, Field(max_length=MAX_URL_CHARS)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Pixels = Annotated[int, Field(ge=0, le=MAX_PIXELS)]
Tab = Annotated[str, Field(pattern=r"^[0-9a-f]{8,64}$")]
"""A tab's stream key: random hex the recorder keeps in the tab's sessionStorage."""


class _EventIn(BaseModel):
    model_config = _STRICT

    seq: int = Field(ge=0, le=MAX_SEQ)
    t_ms: int = Field(ge=0, le=MAX_T_MS)
    xpath: XPath | None = None
    url: Url | None = None
    # The chain of iframe XPaths from the top document to the event's frame; absent at the top.
    frame_xpath: XPath | None = None


class PointerEventIn(_EventIn):
    """click, dblclick, contextmenu, mousemove, mousedown, mouseup, dragstart, drop: viewport
    coordinates in CSS pixels (of the event's frame)."""

    type: Literal[
        "click", "dblclick", "contextmenu", "mousemove", "mousedown", "mouseup", "dragstart", "drop"
    ]
    x: float
    y: float


class KeyEventIn(_EventIn):
    """keydown: `KeyboardEvent.key`, masked to "*" for printable keys where masking applies."""

    type: Literal["keydown"]
    key: str = Field(max_length=MAX_KEY_CHARS)


class ValueEventIn(_EventIn):
    """input, change (the element's value after the event, masked by policy), select (selected text)."""

    type: Literal["input", "change", "select"]
    value: str | None = Field(max_length=MAX_VALUE_CHARS)


class ScrollEventIn(_EventIn):
    """scroll of one container (`/html` for the document): position and change since the last one."""

    type: Literal["scroll"]
    scroll_x: float
    scroll_y: float
    dx: float
    dy: float


class NavigationEventIn(_EventIn):
    type: Literal["navigation"]
    nav: Literal["load", "push", "replace", "popstate", "hashchange", "unload"]


class VisibilityEventIn(_EventIn):
    type: Literal["visibility"]
    state: Literal["visible", "hidden"]


class ResizeEventIn(_EventIn):
    type: Literal["resize"]
    width: Pixels
    height: Pixels


class DomChangeEventIn(_EventIn):
    """A throttled summary of DOM mutations since the previous one."""

    type: Literal["dom_change"]
    added: Count
    removed: Count
    attributes: Count


class PlainEventIn(_EventIn):
    """submit, focus, blur: only the target; frame_gap: an iframe the recorder cannot enter."""

    type: Literal["submit", "focus", "blur", "frame_gap"]


EventIn = Annotated[
    PointerEventIn
    | KeyEventIn
    | ValueEventIn
    | ScrollEventIn
    | NavigationEventIn
    | VisibilityEventIn
    | ResizeEventIn
    | DomChangeEventIn
    | PlainEventIn,
    Field(discriminator="type"),
]


class BatchMessage(BaseModel):
    """A run of events with contiguous seqs. `token` is read only by the HTTP fallback."""

    model_config = _STRICT

    type: Literal["batch"]
    events: list[EventIn] = Field(max_length=MAX_BATCH_EVENTS)
    token: str | None = Field(default=None, max_length=1024)
    # The sending tab's stream key (HTTP fallback; over the websocket it is in the socket's URL).
    tab: Tab | None = None


class MetaMessage(BaseModel):
    """The browser context, sent once per recording."""

    model_config = _STRICT

    type: Literal["meta"]
    user_agent: str = Field(max_length=MAX_USER_AGENT_CHARS)
    viewport_w: Pixels
    viewport_h: Pixels
    screen_w: Pixels
    screen_h: Pixels
    token: str | None = Field(default=None, max_length=1024)
    tab: Tab | None = None


ClientMessage = Annotated[BatchMessage | MetaMessage, Field(discriminator="type")]
CLIENT_MESSAGE: TypeAdapter[BatchMessage | MetaMessage] = TypeAdapter(ClientMessage)


class AckMessage(BaseModel):
    """Every seq of the sender's stream from 0 to `seq` is stored (-1: nothing yet).

    `stream` is the stream number the tab writes to; the server names it in its first message.
    """

    type: Literal["ack"] = "ack"
    seq: int
    stream: int | None = None


class ErrorMessage(BaseModel):
    """A refused frame: nothing from it was stored. `seq` is the current ack when known."""

    type: Literal["error"] = "error"
    code: str
    message: str
    seq: int | None = None


def describe_validation_error(exc: ValidationError, *, limit: int = 5) -> str:
    """A short human-readable summary of what was wrong, naming each offending location."""
    parts = []
    errors = exc.errors(include_url=False)
    for err in errors[:limit]:
        loc = ".".join(str(p) for p in err["loc"]) or "message"
        parts.append(f"{loc}: {err['msg']}")
    if len(errors) > limit:
        parts.append(f"... and {len(errors) - limit} more")
    return "; ".join(parts)


def _without_nul(value: object) -> object:
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, list):
        return [_without_nul(item) for item in value]
    if isinstance(value, dict):
        return {key: _without_nul(item) for key, item in value.items()}
    return value


def parse_client_message(text: str | bytes) -> BatchMessage | MetaMessage:
    """Validate one frame; raises `pydantic.ValidationError` (malformed JSON included).

    PostgreSQL text cannot hold NUL, so a NUL typed into a page would make its batch unstorable
    there (and the recorder resend it forever): U+FFFD stands in for it, on every backend alike.
    JSON can only carry NUL escaped, so frames without the six characters `\\u0000` (nearly all)
    go straight to the validator.
    """
    if (b"\\u0000" in text) if isinstance(text, bytes) else ("\\u0000" in text):
        try:
            text = json.dumps(_without_nul(json.loads(text)), allow_nan=False)
        except ValueError:
            pass  # not JSON after all: the validator names the problem
    return CLIENT_MESSAGE.validate_json(text)


def is_malformed_json(exc: ValidationError) -> bool:
    """True when the frame was not JSON at all, as opposed to JSON of the wrong shape."""
    return any(err["type"] == "json_invalid" for err in exc.errors(include_url=False))
