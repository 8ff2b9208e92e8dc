"""How the replay agent turns cleaned events into Playwright actions, and how it explains a replay
that does not reproduce the pass (the explanations the compare report counts)."""

from __future__ import annotations

from agentruns.episode import EpisodeResult
from agentruns.replay import ReplayAgent, event_action

BUTTON = "/html[1]/body[1]/main[1]/button[2]"


def test_operations_become_actions_by_xpath():
    code, problem = event_action({"type": "click", "xpath": BUTTON})
    assert problem is None and code == f'page.locator("xpath={BUTTON}").click(timeout=5000)'
    code, _ = event_action({"type": "fill", "xpath": BUTTON, "value": "Ada"})
    assert code is not None and '_el.fill("Ada"' in code and "select_option" in code
    assert (
        event_action({"type": "keydown", "xpath": BUTTON, "key": "Enter"})[0]
        == f'page.locator("xpath={BUTTON}").press("Enter", timeout=5000)'
    )
    assert event_action({"type": "navigation", "nav": "popstate"}) == ("page.go_back()", None)
    assert (
        event_action({"type": "scroll", "xpath": "/html[1]", "scroll_x": 0, "scroll_y": 300})[0]
        == "page.evaluate('window.scrollTo(0.0, 300.0)')"
    )
    # Context follows from the operations; a typed character is part of its fill.
    for event in (
        {"type": "focus", "xpath": BUTTON},
        {"type": "keydown", "xpath": BUTTON, "key": "a"},
        {"type": "navigation", "nav": "load"},
    ):
        assert event_action(event) == (None, None)
    # What cannot be replayed is named.
    assert event_action({"type": "fill", "xpath": BUTTON, "value": None}) == (None, "masked_value")
    assert event_action({"type": "drag", "xpath": BUTTON}) == (None, "unreplayable_event")


def _explain(problems: list[str], errors: list[str | None]) -> str:
    agent = ReplayAgent.__new__(
        ReplayAgent
    )  # the explanation reads only the episode and the trace's problems
    agent.problems = problems
    result = EpisodeResult(tables={"actions": [{"error": e} for e in errors]})
    return agent.failure(result)


def test_failed_replays_are_explained():
    timeout = f'TimeoutError: Locator.click: Timeout 5000ms exceeded.\nwaiting for locator("xpath={BUTTON}")'
    assert _explain([], [None, timeout]) == "xpath_unresolved"
    assert _explain(["masked_value"], [None, None]) == "masked_value"
    assert _explain(["unreplayable_event"], [None]) == "unreplayable_event"
    # Every action ran, the state still differs: cleaning lost an operation, or the page depended on timing.
    assert _explain([], [None, None]) == "state_differs"
