"""The params of network and client injections, as variant files write them.

Network: `action` picks a dispatch; `url_pattern` (a glob on the request path, absolute or relative
to `/api/env/<env_id>`) and `methods` pick the calls; `behavior` picks which matching calls fire.
Client: `action` picks a DOM change; CSS selectors say where.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

NetworkAction = Literal[
    "delay",
    "error_then_success",
    "silent_fail",
    "misleading_success",
    "stale_data",
    "concurrent_modification",
    "rate_limit",
    "session_expiry",
]
DelayMode = Literal[
    "once", "progressive", "intermittent", "tail_latency", "correlated_window", "write_only_slow"
]
ClientAction = Literal[
    "misaligned_labels",
    "decoy_element",
    "intercepting_overlay",
    "swallowed_clicks",
    "stuck_loader",
    "confirmation_modal",
    "save_drift",
    "double_submit_trap",
]


class Behavior(BaseModel):
    """Which matching calls (numbered 1, 2, ... per session and injection) the dispatch fires on.

    `always`; `once`: the first `count`; `every`: every `k`-th; `window`: calls `start`..`end`;
    `probability`: each call with probability `p`, drawn from the session seed and the call number.
    """

    model_config = ConfigDict(extra="forbid")

    mode: Literal["always", "once", "every", "window", "probability"]
    count: int | None = Field(default=None, ge=1)
    k: int | None = Field(default=None, ge=1)
    start: int | None = Field(default=None, ge=1)
    end: int | None = Field(default=None, ge=1)
    p: float | None = Field(default=None, ge=0, le=1)

    @model_validator(mode="after")
    def _needs(self) -> Behavior:
        needed = {"every": ["k"], "window": ["start", "end"], "probability": ["p"]}.get(self.mode, [])
        missing = [name for name in needed if getattr(self, name) is None]
        if missing:
            raise ValueError(f"behavior mode {self.mode!r} needs {', '.join(missing)}")
        if self.mode == "window" and self.end < self.start:  # type: ignore[operator]  # both set: the `missing` check above refuses None
            raise ValueError("behavior window: end must be >= start")
        return self


class NetworkParams(BaseModel):
    """A network-layer dispatch and the calls it applies to."""

    model_config = ConfigDict(extra="forbid")

    action: NetworkAction
    url_pattern: str
    methods: list[str] = ["*"]
    behavior: Behavior | None = None
    # error_then_success, silent_fail, misleading_success, stale_data, 409, 429: first N calls
    fail_count: int = Field(default=1, ge=0)
    error_status: int = Field(default=500, ge=400, le=599)
    detail: str | None = None
    # silent_fail / misleading_success: the synthesized 200
    response_body: Any = None
    echo_request: bool = False
    toast_message: str | None = None
    # delay
    mode: DelayMode = "once"
    delay_ms: int = Field(default=1500, ge=0, le=60_000)
    step_ms: int = Field(default=500, ge=0, le=60_000)
    max_delay_ms: int = Field(default=8000, ge=0, le=60_000)
    every: int = Field(default=2, ge=1)
    tail_probability: float = Field(default=0.2, ge=0, le=1)
    tail_ms: int = Field(default=6000, ge=0, le=60_000)
    window_start: int = Field(default=1, ge=1)
    window_end: int = Field(default=3, ge=1)
    # stale_data: which snapshot reads are served from
    snapshot: Literal["previous", "initial"] = "previous"
    # rate_limit
    retry_after: int = Field(default=2, ge=0)
    # session_expiry: the matching call that expires the session
    after_calls: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _normalise(self) -> NetworkParams:
        self.methods = [method.upper() for method in self.methods]
        if self.action == "misleading_success" and self.toast_message is None:
            self.toast_message = "Saved."
        return self


class ClientParams(BaseModel):
    """A client-layer DOM change; which keys matter depends on `action` (docs/environments.md)."""

    model_config = ConfigDict(extra="forbid")

    action: ClientAction
    selector: str | None = None
    selectors: list[str] | None = None
    pages: str | None = None  # glob on the page path (e.g. "/env/shop/cart*"); None = every page
    text: str | None = None
    title: str | None = None
    message: str | None = None
    close_text: str | None = None
    confirm_text: str | None = None
    cancel_text: str | None = None
    position: Literal["before", "after"] = "before"
    count: int = Field(default=1, ge=1)
    times: int = Field(default=1, ge=1)
    delay_ms: int = Field(default=0, ge=0, le=60_000)
    trigger_selector: str | None = None
    submit_selector: str | None = None
    value: str | None = None
    swap_buttons: bool = False

    @model_validator(mode="after")
    def _needs_selector(self) -> ClientParams:
        if self.action == "misaligned_labels":
            if not self.selector and not (self.selectors and len(self.selectors) == 2):
                raise ValueError(
                    "misaligned_labels needs selector (two or more matches) or selectors (exactly two)"
                )
        elif self.action == "save_drift":
            if not self.selector or not self.submit_selector or self.value is None:
                raise ValueError("save_drift needs selector (the field), submit_selector and value")
        elif self.action not in ("intercepting_overlay", "stuck_loader") and not self.selector:
            raise ValueError(f"{self.action} needs selector")
        return self
