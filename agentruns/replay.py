"""The replay agent: each passed human attempt's cleaned trace, replayed by XPath in a fresh session
at the attempt's seed.

Every cleaned event that is an operation becomes one Playwright action: click, dblclick and
context click on the element at its XPath, fill with the final value, select_option for a
`<select>` change, a key press for a non-typing key, a scroll of the container to the recorded
position, a hover for a kept mouse move, back for a popstate. Context (focus, blur, submit, the
page's own navigations) follows from those operations and is not replayed.

Whether the replay passes tells whether the cleaned trace holds everything the person did. A
failed replay is explained (`replay_failure`): `xpath_unresolved` (an element the person used is
not at that XPath in the fresh session), `element_not_visible` (the XPath found an element, but it
never became visible before the action's timeout), `masked_value` (typed text the study masked cannot be
typed again), `unreplayable_event` (a drag or another operation the replay does not perform),
else `state_differs` (every action ran, yet the state differs: cleaning lost an operation, or the
page depended on timing).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pandas as pd

from humantrace.environments.ui import DEFAULT_PROFILE
from humantrace.exports.bundle import read_bundle, read_manifest

ACTION_TIMEOUT_MS = 5000
# How long an operation waits for the page the person did it on (their page's own navigations:
# a form that sends its request and then moves to the next page, a redirect after a save), and
# for that page's requests to come back (see `ready`).
PAGE_TIMEOUT_MS = 15_000
SETTLE_TIMEOUT_MS = 15_000
QUIET_MS = 150
POLL_MS = 50
TRACKED_REQUESTS = frozenset({"document", "fetch", "xhr"})
CONTEXT_EVENTS = frozenset({"focus", "blur", "mousedown", "mouseup", "select"})
SKIPPED = frozenset(
    {
        "focus",
        "blur",
        "submit",
        "select",
        "mousedown",
        "mouseup",
        "visibility",
        "resize",
        "dom_change",
        "frame_gap",
        "input",
    }
)
UNREPLAYABLE = frozenset({"drag", "dragstart", "drop"})
# Keys that act on their own (a typed character is part of a fill).
ACTION_KEYS = frozenset(
    {
        "Enter",
        "Tab",
        "Escape",
        "ArrowUp",
        "ArrowDown",
        "ArrowLeft",
        "ArrowRight",
        "PageUp",
        "PageDown",
        "Home",
        "End",
        "Backspace",
        "Delete",
        " ",
    }
)


# A <select> that is not rendered is the value holder of a custom listbox (a UI profile's
# `select=custom`): the person's clicks on the listbox, replayed just before, already chose the
# option, so the replay only makes sure of the value (by force: a hidden control has no box to act on).
KIND_JS = (
    "e => e.tagName === 'SELECT' ? (e.checkVisibility() ? 'select' : 'hidden_select')"
    " : (e.type === 'checkbox' || e.type === 'radio') ? 'toggle'"
    " : ('value' in e || e.isContentEditable) ? 'text' : 'other'"
)


def _locator(xpath: str) -> str:
    return f"page.locator({json.dumps('xpath=' + xpath)})"


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def page_of(url: Any) -> str | None:
    """The page an event happened on: its URL's path and query (the host differs between servers)."""
    if _missing(url) or not url:
        return None
    parts = urlsplit(str(url))
    return parts.path + (f"?{parts.query}" if parts.query else "")


class _Requests:
    """The requests a page has in flight (seen from Playwright, so the page itself is untouched)."""

    def __init__(self, page: Any) -> None:
        self.pending: set[Any] = set()
        self.quiet_since = time.monotonic()
        page.on("request", self._start)
        page.on("requestfinished", self._end)
        page.on("requestfailed", self._end)

    def _start(self, request: Any) -> None:
        if request.resource_type in TRACKED_REQUESTS:
            self.pending.add(request)

    def _end(self, request: Any) -> None:
        if request in self.pending:
            self.pending.discard(request)
            self.quiet_since = time.monotonic()

    def settle(self, page: Any, timeout_ms: int) -> None:
        """Wait (pumping Playwright's events) until no request has been in flight for `QUIET_MS`."""
        deadline = time.monotonic() + timeout_ms / 1000
        while time.monotonic() < deadline:
            if not self.pending and time.monotonic() - self.quiet_since >= QUIET_MS / 1000:
                return
            page.wait_for_timeout(POLL_MS)


def ready(page: Any, where: str | None = None) -> None:
    """Before an operation: wait, as the person did, for the page they acted on to be there.

    The person acted once the page had answered: the request of their last click had come back,
    and the page had moved on by itself where it does (a form that sends its request and then
    opens the next page). A replay that acted at once would race both: a header link clicked
    while a return request is still on its way leaves the page before the request is sent. So
    every replayed operation first waits until the agent's page has no request in flight, then,
    when the person's next operation was on another page (`where`: path and query, since the
    host differs between servers), until the agent's page is there, and for its requests again.
    When the page never gets there the operation runs anyway, and its own error tells what
    differs."""
    requests = getattr(page, "_humantrace_requests", None)
    try:
        if requests is None:
            requests = page._humantrace_requests = _Requests(page)
            page.wait_for_load_state("load", timeout=PAGE_TIMEOUT_MS)
        requests.settle(page, SETTLE_TIMEOUT_MS)
        if where is None:
            return
        page.wait_for_url(lambda url: page_of(url) == where, timeout=PAGE_TIMEOUT_MS)
        page.wait_for_load_state("load", timeout=PAGE_TIMEOUT_MS)
        requests.settle(page, SETTLE_TIMEOUT_MS)
    except Exception:  # noqa: BLE001, S110 - the operation that follows reports what differs
        return


def _ready_code(where: str | None) -> str:
    """The line that runs `ready` in BrowserGym's action namespace (it has `page`)."""
    place = "" if where is None else f", {json.dumps(where)}"
    return f"__import__('humantrace.agentruns.replay', fromlist=['ready']).ready(page{place})\n"


def event_action(event: dict[str, Any]) -> tuple[str | None, str | None]:
    """(Playwright code, problem) for one cleaned event; (None, None) when it is not replayed."""
    kind = event.get("type")
    xpath = event.get("xpath")
    if kind in UNREPLAYABLE:
        return None, "unreplayable_event"
    if kind in SKIPPED:
        return None, None
    if kind == "navigation":
        return ("page.go_back()", None) if event.get("nav") == "popstate" else (None, None)
    if _missing(xpath) or not xpath:
        if kind == "scroll":
            return (
                f"page.evaluate('window.scrollTo({float(event.get('scroll_x') or 0)}, {float(event.get('scroll_y') or 0)})')",
                None,
            )
        if kind == "keydown" and event.get("key") in ACTION_KEYS:
            return f"page.keyboard.press({json.dumps(event['key'])})", None
        return None, None
    loc = _locator(xpath)
    timeout = f"timeout={ACTION_TIMEOUT_MS}"
    if kind == "click":
        return f"{loc}.click({timeout})", None
    if kind == "dblclick":
        return f"{loc}.dblclick({timeout})", None
    if kind == "contextmenu":
        return f"{loc}.click(button='right', {timeout})", None
    if kind == "mousemove":
        return f"{loc}.hover({timeout})", None
    if kind in ("fill", "change"):
        if _missing(event.get("value")):
            return (None, "masked_value") if kind == "fill" else (None, None)
        # The recorder reports a value for every form control: text is typed again, a <select> gets
        # its option, and a checkbox or radio button is left to the click that set it.
        value = json.dumps(str(event["value"]))
        code = (
            f"_el = {loc}\n_kind = _el.evaluate({KIND_JS!r}, {timeout})\n"
            f"if _kind == 'select':\n    _el.select_option({value}, {timeout})\n"
            f"elif _kind == 'hidden_select':\n    _el.select_option({value}, force=True, {timeout})"
        )
        if kind == "fill":  # a change on a text field closes a fill already replayed
            code += f"\nelif _kind == 'text':\n    _el.fill({value}, {timeout})"
        return code, None
    if kind == "keydown":
        key = event.get("key")
        if _missing(key) or key not in ACTION_KEYS:
            return None, None
        return f"{loc}.press({json.dumps(key)}, {timeout})", None
    if kind == "scroll":
        x, y = float(event.get("scroll_x") or 0), float(event.get("scroll_y") or 0)
        if xpath in ("/html", "/html[1]", "/html/body", "/html[1]/body[1]"):
            return f"page.evaluate('window.scrollTo({x}, {y})')", None
        return f"{loc}.evaluate('(e) => e.scrollTo({x}, {y})', {timeout})", None
    return None, None


class ReplayAgent:
    """Replays passed human attempts of a human reference bundle (one episode per attempt)."""

    name = "replay"
    action_set = None  # raw Playwright code: an XPath is not a BrowserGym bid
    # It reads no observation (its actions come from the trace) and waits for the page itself
    # before each operation and before its closing message (`ready`), so BrowserGym neither pauses
    # after a step nor takes a DOM snapshot, accessibility tree and screenshot.
    env_kwargs: ClassVar[dict[str, Any]] = {"use_raw_page_output": True, "pre_observation_delay": 0.0}

    def __init__(self, bundle: str | Path) -> None:
        path = Path(bundle)
        if not path.is_dir():
            raise FileNotFoundError(f"--human {path}: no such bundle directory")
        loaded = read_bundle(path, tables=["attempts", "events_clean"])
        study = read_manifest(path).get("study_settings") or {}
        attempts: Any = loaded.attempts
        if attempts is None or loaded.events_clean is None:
            raise FileNotFoundError(f"--human {path}: the bundle has no attempts or events_clean table")
        attempts = attempts[attempts["passed"].astype(bool) & ~attempts["rolled_back"].astype(bool)]
        self.attempts = attempts.set_index(attempts["attempt_id"].astype("int64"))
        self.study_seed = study.get("seed")
        clean: Any = loaded.events_clean
        self.traces = {
            int(k): g.sort_values("step") for k, g in clean.groupby(clean["attempt_id"].astype("int64"))
        }
        self._queue: list[tuple[str, dict]] = []
        self.problems: list[str] = []
        self._sent_done = False
        self._end_page: str | None = None

    def seed_of(self, attempt_id: int) -> int | None:
        """The attempt's env seed (its own column, else the study seed the bundle names)."""
        row: Any = self.attempts.loc[attempt_id]
        if "seed" in row.index and not _missing(row["seed"]):
            return int(row["seed"])
        return None if self.study_seed is None else int(self.study_seed)

    def episodes(
        self, pairs: Iterable[tuple[str, str]], *, default_seed: int
    ) -> list[tuple[str, str, int, int, str]]:
        """(task_id, condition, human attempt id, seed, UI profile) for every passed attempt of a
        selected pair; the profile is the attempt's (`default` for bundles before profiles)."""
        wanted = set(pairs)
        out = []
        for key, row in self.attempts.iterrows():
            attempt_id = int(str(key))
            if (row["task_id"], row["condition"]) in wanted:
                seed = self.seed_of(attempt_id)
                profile = row.get("ui_profile")
                out.append(
                    (
                        str(row["task_id"]),
                        str(row["condition"]),
                        attempt_id,
                        default_seed if seed is None else seed,
                        DEFAULT_PROFILE if _missing(profile) else str(profile),
                    )
                )
        return sorted(out)

    def select(self, attempt_id: int) -> None:
        """Load the cleaned trace of `attempt_id` as the next episode's actions."""
        self._queue = []
        self.problems = []
        self._sent_done = False
        trace = self.traces.get(int(attempt_id))
        rows = (
            [] if trace is None else trace.astype(object).where(trace.notna(), None).to_dict(orient="records")
        )
        on_page = None  # the first operation waits for its page too
        for i, event in enumerate(rows):
            after: dict[str, Any] = next(
                (e for e in rows[i + 1 :] if e.get("type") not in CONTEXT_EVENTS), {}
            )
            if (
                event.get("type") == "mousemove"
                and after.get("type") in ("click", "dblclick", "contextmenu")
                and after.get("xpath") == event.get("xpath")
            ):
                continue  # the pointer's way to a click: the click moves there itself
            code, problem = event_action(event)
            if problem:
                self.problems.append(problem)
            if not code:
                continue
            where = page_of(event.get("url"))
            moved = where is not None and where != on_page and event.get("type") != "navigation"
            on_page = where if where is not None else on_page
            self._queue.append((_ready_code(where if moved else None) + code, event))
        # The person pressed Evaluate where the trace ends (the page their last operation opened).
        last = page_of(rows[-1].get("url")) if rows else None
        self._end_page = last if last != on_page else None

    @property
    def steps_needed(self) -> int:
        """Actions the selected trace needs (the runner never cuts a replay short)."""
        return len(self._queue) + 1

    def get_action(self, obs: dict) -> str:
        if self._queue:
            code, _event = self._queue.pop(0)
            return code
        self._sent_done = True
        return _ready_code(self._end_page) + "send_message_to_user('Replayed the cleaned trace.')"

    def failure(self, result) -> str:
        """Why a replay did not reproduce a pass (see the module docstring)."""
        for action in result.tables.get("actions", []):
            # The first action that could not run explains the rest (they ran on the wrong page).
            reason = action_failure(action.get("error") or "")
            if reason:
                return reason
        if "masked_value" in self.problems:
            return "masked_value"
        if "unreplayable_event" in self.problems:
            return "unreplayable_event"
        return "state_differs"


def action_failure(error: str) -> str | None:
    """Why one replayed action could not run, from its Playwright error: `element_not_visible` when
    the locator resolved to an element that stayed hidden (Playwright's call log says "locator
    resolved to" and "element is not visible"), `xpath_unresolved` for any other locator timeout,
    None when the action ran."""
    if "resolved to" in error and "element is not visible" in error:
        return "element_not_visible"
    if "locator" in error or "Timeout" in error or "resolved to" in error:
        return "xpath_unresolved"
    return None
