"""One task-condition as a BrowserGym task: same session, seed, instruction, recorder and evaluator
as a person's attempt.

`setup` creates the env session through the controller API with the study seed (the seed a
framework passes to `reset` only seeds `self.random`, never the instance), creates an `agent`
recording, hands the page the recorder cookie exactly as the dashboard hands it to a person's
environment tab, and opens the task's start page. `validate` scores the live state with the
evaluator: reward = score; done on pass or on the agent's message to the user. The step limit is
the runner's (`agentruns.episode`).
"""

from __future__ import annotations

import time
from typing import Any

import playwright.sync_api
from browsergym.core.task import AbstractBrowserTask

from humantrace.agentruns.server import Server, current_server
from humantrace.agentruns.settings import DEFAULT_STUDY_SEED
from humantrace.environments import catalog, registry
from humantrace.environments.oracles import OracleContext, load_oracles
from humantrace.environments.ui import DEFAULT_PROFILE, get_profile

REC_COOKIE = "htrec"  # the cookie the recorder injection middleware reads (as for a person's tab)
# BrowserGym's chat opens with this assistant greeting; later assistant messages are the agent's.
_GREETING_MESSAGES = 1
FLUSH_WAIT_S = 0.8  # the recorder sends a batch at the latest 500 ms after its first event
# Entering the site is not the agent's action: it gets Playwright's default patience (30 s), not the
# agent's 10 s action timeout, so that a loaded machine does not end an episode before it begins.
ENTER_TIMEOUT_MS = 30_000


def task_name(task_id: str, condition: str, ui_profile: str = DEFAULT_PROFILE) -> str:
    """`humantrace.<task_id>.<condition>[.<ui_profile>]`: the BrowserGym id, without the
    `browsergym/` prefix (the default profile is left out, so today's ids keep meaning today's
    interface)."""
    base = f"humantrace.{task_id}.{condition}"
    return base if ui_profile == DEFAULT_PROFILE else f"{base}.{ui_profile}"


class HumanTraceTask(AbstractBrowserTask):
    """A humantrace task-condition on one UI profile. `env_seed` is the study seed (default 42),
    fixed at registration, as are `task_id`, `condition` and `ui_profile`."""

    def __init__(
        self,
        seed: int | None,
        task_id: str,
        condition: str,
        env_seed: int = DEFAULT_STUDY_SEED,
        server: Server | None = None,
        ui_profile: str = DEFAULT_PROFILE,
    ) -> None:
        super().__init__(seed)
        self.task_id = task_id
        self.condition = condition
        self.env_seed = int(env_seed)
        self.task = catalog.get_task(task_id)
        if condition == "intervention" and catalog.variant_for(task_id) is None:
            raise ValueError(f"{task_id} has no variant, so it has no intervention condition")
        # An unknown profile fails here, naming the site's profiles, not at the controller.
        self.ui_profile = get_profile(self.task.env_id, ui_profile).name
        self.viewport = {"width": 1280, "height": 720}
        # BrowserGym's default slows every Playwright call by a second; a person's pace is not ours to fake.
        self.slow_mo = 0
        self.timeout = 10_000
        self._server = server
        self.info: dict[str, Any] | None = None  # the controller's SessionInfo (privileged: targets)
        self.recording_id: int | None = None
        self.last_verdict: dict[str, Any] | None = None
        self.started_at: float | None = None
        self.agent_messaged = False

    @classmethod
    def get_task_id(cls) -> str:
        return "humantrace"

    @property
    def server(self) -> Server:
        if self._server is None:
            self._server = current_server()
        return self._server

    @property
    def session_id(self) -> str:
        assert self.info is not None, "setup() has not run"
        return self.info["session_id"]

    def setup(self, page: playwright.sync_api.Page) -> tuple[str, dict]:
        """Create the session and recording, enter the site, return the instruction the humans read."""
        self.info = self.server.call(
            "POST",
            "/control/sessions",
            json={
                "task_id": self.task_id,
                "condition": self.condition,
                "seed": self.env_seed,
                "ui_profile": self.ui_profile,
            },
        )
        recording = self.server.call(
            "POST",
            "/control/recordings",
            json={"label": task_name(self.task_id, self.condition, self.ui_profile)},
        )
        self.recording_id = recording["recording_id"]
        page.context.add_cookies(
            [
                {
                    "name": REC_COOKIE,
                    "value": recording["token"],
                    "url": self.server.base_url,
                    "httpOnly": True,
                    "sameSite": "Lax",
                }
            ]
        )
        page.goto(self.server.base_url + self.info["enter_url"], timeout=ENTER_TIMEOUT_MS)
        page.wait_for_load_state("load", timeout=ENTER_TIMEOUT_MS)
        self.started_at = time.monotonic()
        # Nothing here names the condition: the agent sees what a person sees (the profile is on the
        # page as data-ui-* attributes, as it is for a person: it is how the page is built).
        return self.info["instruction"], {}

    def evaluate(self) -> dict[str, Any]:
        """The evaluator's verdict on the live state."""
        self.last_verdict = self.server.call("POST", f"/control/sessions/{self.session_id}/evaluate")
        return self.last_verdict

    def validate(
        self, page: playwright.sync_api.Page, chat_messages: list[dict]
    ) -> tuple[float, bool, str, dict]:
        verdict = self.evaluate()
        assistant = [m for m in chat_messages if m.get("role") in ("assistant", "infeasible")]
        self.agent_messaged = len(assistant) > _GREETING_MESSAGES
        done = bool(verdict["passed"]) or self.agent_messaged
        return float(verdict["score"]), done, "", {"passed": bool(verdict["passed"])}

    def cheat(self, page: playwright.sync_api.Page, chat_messages: list[dict]) -> None:
        """Solve the task with its oracle solution (the same one the oracle tests run)."""
        assert self.info is not None, "setup() has not run"
        solutions = load_oracles(registry.get(self.task.env_id)).oracles
        if self.task_id not in solutions:
            raise NotImplementedError(f"{self.task_id} has no oracle solution")
        context = OracleContext(
            targets=self.info["targets"],
            condition=self.condition,
            instruction=self.info["instruction"],
            base_url=self.server.base_url,
            task_id=self.task_id,
        )
        solutions[self.task_id](page, context)

    def artifacts(self) -> dict[str, Any]:
        """What the episode left on the server: raw trace, audit log and semantic events.

        Waits for the recorder's last batch first (it flushes at most 500 ms after an event), then
        ends the recording so that nothing later is added to it.
        """
        assert self.info is not None and self.recording_id is not None, "setup() has not run"
        events_path = f"/control/recordings/{self.recording_id}/events"
        time.sleep(FLUSH_WAIT_S)
        trace = self.server.call("GET", events_path)
        for _ in range(10):
            time.sleep(0.3)
            again = self.server.call("GET", events_path)
            if again["acked_seq"] == trace["acked_seq"]:
                break
            trace = again
        self.server.call("POST", f"/control/recordings/{self.recording_id}/end")
        audit = self.server.call("GET", f"/control/sessions/{self.session_id}/audit")["entries"]
        events = self.server.call("GET", f"/control/sessions/{self.session_id}/events")["events"]
        return {"trace": trace, "audit": audit, "semantic_events": events}

    def teardown(self) -> None:
        if self.recording_id is not None and self._server is not None:
            try:
                self.server.call("POST", f"/control/recordings/{self.recording_id}/end")
            except Exception:  # noqa: BLE001, S110 - the server may already be gone at exit; nothing to save
                pass
