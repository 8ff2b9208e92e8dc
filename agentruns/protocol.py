"""How an agent episode ends, and what is scored: the humans' protocol (BreakingWeb Section 5).

"A run ends when the agent declares it finished, exhausts its action or time budget, or the
harness raises an unrecoverable error; in all cases, we score the final backend state." An
episode therefore ends when the agent

- declares it finished: `send_msg_to_user` (BrowserGym's chat message; the raw-code form is
  `send_message_to_user`) or one of Appendix I's done aliases (`finish`, `complete`, `submit`, and
  `done`, which the failure-mode features count too);
- reports the task infeasible (`report_infeasible`, which Appendix I does not count as a done verb);
- takes its last allowed action (the step limit, 40 as in the paper);
- or the run hits an unrecoverable error;

and the state is then scored once, after the page has settled. This is `FINAL_STATE`, the default.
`FIRST_PASS` (stop the moment the live state passes) is a training option only: it scores an
agent that reaches the goal and then undoes it as a pass, so its bundles say so in their manifest
and `compare` does not set them beside final-state bundles without being told to.
"""

from __future__ import annotations

import ast

from humantrace.exports.agent_bundle import FINAL_STATE, FIRST_PASS, PROTOCOLS
from humantrace.exports.failure_modes import DONE_VERBS as FEATURE_DONE_VERBS

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DONE_VERBS",
    "FINAL_STATE",
    "FIRST_PASS",
    "INFEASIBLE_VERBS",
    "PROTOCOLS",
    "action_verbs",
    "check_protocol",
    "final_message",
    "parse_action",
]

DEFAULT_MAX_STEPS = 40  # as in the paper
# The verbs by which an agent declares the run finished: the very verbs the Appendix I features
# call done verbs (so an episode ends exactly when its terminal verb says it was declared done),
# plus the name BrowserGym's raw-code actions use for the chat message.
DONE_VERBS = FEATURE_DONE_VERBS | {"send_message_to_user"}
INFEASIBLE_VERBS = frozenset({"report_infeasible", "report_infeasible_instructions"})


def check_protocol(protocol: str) -> str:
    """`protocol` if it is one of `PROTOCOLS`, else a ValueError naming them."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown episode protocol {protocol!r} (use {' or '.join(PROTOCOLS)})")
    return protocol


def _is_replay_wait(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and node.value.func.attr == "ready"
    )


def _verb(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _parsed(action: str) -> ast.Module | None:
    try:
        tree = ast.parse(action.strip())
    except SyntaxError:
        return None
    # The replay agent's wait for the person's page (`agentruns.replay.ready`) is not the action.
    tree.body = [n for n in tree.body if not _is_replay_wait(n)]
    return tree


def parse_action(action: str) -> tuple[str | None, str | None]:
    """(verb, first argument) of an action such as `click('12')` or `page.locator(...).fill(...)`."""
    tree = _parsed(action)
    call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call)), None) if tree else None
    if call is None:
        return None, None
    target = None
    for node in ast.walk(call):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            target = node.value
            break
    return _verb(call), target


def action_verbs(action: str | None) -> list[str]:
    """The verbs of the action's top-level calls, in order (`click('1')\\nfinish()` has two)."""
    tree = _parsed(action or "")
    if tree is None:
        return []
    verbs = []
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            verb = _verb(node.value)
            if verb:
                verbs.append(verb)
    return verbs


def final_message(action: str | None) -> str | None:
    """What the action says to the user as it ends the run (the episode's `final_thought`): the
    text of its last done verb (`send_msg_to_user('...')`, `finish('...')`) or infeasible report
    (`report_infeasible('reason')`), else None."""
    tree = _parsed(action or "")
    if tree is None:
        return None
    message = None
    for node in tree.body:
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        if _verb(node.value) in DONE_VERBS | INFEASIBLE_VERBS:
            texts = [
                n.value for n in node.value.args if isinstance(n, ast.Constant) and isinstance(n.value, str)
            ]
            message = texts[0] if texts else None
    return message
