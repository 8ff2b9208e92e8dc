"""An agent for the runner tests: its factory logs every call (and the agent every episode it is
told of) to the file named by `HUMANTRACE_TEST_AGENT_LOG`, one JSON line each. It ends each
episode at its first action: it reports shop-002 infeasible and declares any other task done."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

LOG = "HUMANTRACE_TEST_AGENT_LOG"
INFEASIBLE_REASON = "This shop sells no such product."
DONE_MESSAGE = "Nothing left to do."


def _log(**entry: object) -> None:
    line = {"pid": os.getpid(), "worker": multiprocessing.parent_process() is not None, **entry}
    with Path(os.environ[LOG]).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


class EndingAgent:
    """Ends every episode at once; remembers which task it was told of (state between episodes)."""

    def __init__(self) -> None:
        self.task_id: str | None = None

    def reset(self) -> None:
        self.task_id = None
        _log(call="reset")

    def begin(self, *, task_id: str, condition: str, seed: int) -> None:
        self.task_id = task_id
        _log(call="begin", task_id=task_id, condition=condition, seed=seed)

    def get_action(self, obs: dict) -> str:
        if self.task_id == "shop-002":
            return f"report_infeasible({INFEASIBLE_REASON!r})"
        return f"send_msg_to_user({DONE_MESSAGE!r})"


def make(seed: int = 0) -> EndingAgent:
    """The factory `--agent tests/agentruns/counting_agent.py:make` calls."""
    _log(call="factory", seed=seed)
    return EndingAgent()


def calls(path: Path) -> list[dict]:
    """The logged calls, in order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
