"""The synthesized answers of the network dispatches that never reach the real handler.

`silent_fail` and `misleading_success` answer 200 with a body shaped like success while the state
stays untouched; the others answer the error a flaky or busy server would.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# Dispatches that answer in place of the handler (the first firing one wins).
TERMINAL = (
    "session_expiry",
    "error_then_success",
    "rate_limit",
    "concurrent_modification",
    "silent_fail",
    "misleading_success",
)

DEFAULT_DETAIL = {
    500: "Something went wrong on our side. Please try again.",
    502: "The server is temporarily unavailable. Please try again.",
    503: "The service is temporarily unavailable. Please try again in a moment.",
    504: "The server took too long to respond. Please try again.",
}
CONFLICT_DETAIL = "This was changed by someone else in the meantime. Reload the page and try again."
RATE_LIMIT_DETAIL = "Too many requests. Please wait a moment and try again."
EXPIRED_DETAIL = "Your session has expired. Please sign in again."


@dataclass
class Synthesized:
    """A response the middleware sends itself."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        return json.dumps(self.body, ensure_ascii=False).encode("utf-8")


def login_url(env_id: str) -> str:
    """The framework's re-login page of `env_id`."""
    return f"/env/{env_id}/relogin"


def expired_response(env_id: str) -> Synthesized:
    """401 until the person signs in again."""
    return Synthesized(401, {"detail": EXPIRED_DETAIL, "login_url": login_url(env_id)})


def synthesize(rule: dict[str, Any], *, env_id: str, request_json: Any) -> Synthesized:
    """The answer of terminal dispatch `rule` (see `TERMINAL`)."""
    action = rule["action"]
    detail = rule.get("detail")
    if action == "session_expiry":
        response = expired_response(env_id)
        if detail:
            response.body["detail"] = detail
        return response
    if action == "error_then_success":
        status = int(rule.get("error_status", 500))
        return Synthesized(
            status, {"detail": detail or DEFAULT_DETAIL.get(status, "The request failed. Please try again.")}
        )
    if action == "rate_limit":
        retry_after = int(rule.get("retry_after", 2))
        return Synthesized(429, {"detail": detail or RATE_LIMIT_DETAIL}, {"retry-after": str(retry_after)})
    if action == "concurrent_modification":
        return Synthesized(409, {"detail": detail or CONFLICT_DETAIL})
    if action in ("silent_fail", "misleading_success"):
        body = rule.get("response_body")
        body = {"ok": True} if body is None else json.loads(json.dumps(body))
        if rule.get("echo_request") and isinstance(body, dict) and isinstance(request_json, dict):
            body = {**request_json, **body}
        if action == "misleading_success" and isinstance(body, dict):
            body["toast"] = rule.get("toast_message") or "Saved."
        return Synthesized(200, body)
    raise ValueError(f"{action} does not answer in place of the handler")
