"""One task-condition as a BrowserGym task: same session, seed, instruction, recorder and evaluator
as a person's attempt.

`setup` creates the env session through the controller API with the study seed (the seed a
framework passes to `reset` only seeds `self.random`, never the instance), creates an `agent`
recording, hands the page the recorder cookie exactly as the dashboard hands it to a person's
environment tab, and opens the task's start page.

`validate` follows the humans' protocol (`agentruns.protocol`): the episode ends when the agent
declares it finished (`send_msg_to_user` or a done alias), reports it infeasible, takes its
`max_steps`-th action, or (`end(..., "error")`, called by the runner) hits an unrecoverable error;
the final state is then scored once, after the page has settled, here in the task, so an episode
run through plain gymnasium or AgentLab scores exactly as through `humantrace agents run`. Every
step before the end is scored live for its reward and for `passed_midway` (the state passed at an
earlier step). With `protocol="first_pass"` (a training option) the episode ends instead the moment
the live state passes.
"""

from __future__ import annotations

import time
from typing import Any

import playwright.sync_api
from browsergym.core.task import AbstractBrowserTask

from humantrace.agentruns.protocol import (
    DEFAULT_MAX_STEPS,
    DONE_VERBS,
    FINAL_STATE,
    FIRST_PASS,
    INFEASIBLE_VERBS,
    action_verbs,
    check_protocol,
)
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
# The final state is scored once the page has had no request in flight for 500 ms, at most this long.
SETTLE_TIMEOUT_MS = 5_000


def task_name(task_id: str, condition: str, ui_profile: str = DEFAULT_PROFILE) -> str:
    """`humantrace.<task_id>.<condition>[.<ui_profile>]`: the BrowserGym id, without the
    `browsergym/` prefix (the default profile is left out, so today's ids keep meaning today's
    interface)."""
    base = f"humantrace.{task_id}.{condition}"
    return base if ui_profile == DEFAULT_PROFILE else f"{base}.{ui_profile}"


def settle(page: playwright.sync_api.Page, timeout_ms: int = SETTLE_TIMEOUT_MS) -> None:
    """Wait until the page has had no request in flight for 500 ms (at most `timeout_ms`).

    BrowserGym validates a step once its DOM has loaded, when the fetch its click started may still
    be on its way; a person presses Evaluate on a settled page. (Playwright's "networkidle" is a
    load state, reached once per document, so this catches a late navigation, not a fetch started
    after the load; the replay agent waits for those itself before its closing message, see
    agentruns.replay.ready.)
    """
    try:
        page.wait_for_load_state("networkidle", timeout=timeout_ms)
    except Exception:  # noqa: BLE001 - a page that never settles (polling) is scored as it is
        return


class HumanTraceTask(AbstractBrowserTask):
    """A humantrace task-condition on one UI profile. `env_seed` is the study seed (default 42),
    fixed at registration, as are `task_id`, `condition` and `ui_profile`. `max_steps` (default
    40) and `protocol` (`final_state`, the humans'; `first_pass` for training) are task kwargs:
    `gym.make(id, task_kwargs={"max_steps": 20})`.

    After the episode: `ended_by` (message, infeasible, step_limit, error; `pass` under
    first_pass), `final_verdict` (the verdict on the final state), `passed_midway` and
    `passed_midway_step` (the first action, from 0, after which the live state passed, before the
    action the episode ended on), `steps` (actions taken, the oracle's `cheat` counted as one) and
    `elapsed_s` (from the start page's load to the last action's return, before the settle and
    the final scoring).
    """

    def __init__(
        self,
        seed: int | None,
        task_id: str,
        condition: str,
        env_seed: int = DEFAULT_STUDY_SEED,
        server: Server | None = None,
        ui_profile: str = DEFAULT_PROFILE,
        max_steps: int = DEFAULT_MAX_STEPS,
        protocol: str = FINAL_STATE,
    ) -> None:
        super().__init__(seed)
        self.task_id = task_id
        self.condition = condition
        self.env_seed = int(env_seed)
        # The seed the framework passed to reset (AgentLab's task_seed): it seeds `self.random`
        # only; the instance is the study seed's. Recorded per episode as `task_seed`.
        self.task_seed = seed
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
        if int(max_steps) < 0:
            raise ValueError(f"max_steps must be at least 0, not {max_steps}")
        self.max_steps = int(max_steps)
        self.protocol = check_protocol(protocol)
        self.last_verdict: dict[str, Any] | None = None  # the latest verdict, live or final
        self.final_verdict: dict[str, Any] | None = None
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self.ended_by: str | None = None
        self.steps = 0
        self.passed_midway_step: int | None = None
        self.last_action: str | None = None  # handed over by HumanTraceEnv before each validate

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

    @property
    def passed_midway(self) -> bool:
        """The live state passed after some action before the one the episode ended on."""
        return self.passed_midway_step is not None

    @property
    def done(self) -> bool:
        return self.ended_by is not None

    @property
    def elapsed_s(self) -> float | None:
        if self.started_at is None:
            return None
        return (self.ended_at if self.ended_at is not None else time.monotonic()) - self.started_at

    def declared(self, chat_messages: list[dict]) -> str | None:
        """How the agent's last action ended the run (`infeasible` or `message`), or None.

        The chat says it for BrowserGym's own actions (`send_msg_to_user`, `report_infeasible`);
        the action text (handed over by `HumanTraceEnv`) for a done alias of an agent's own action
        set (`finish()`, ...), which may write nothing to the chat.
        """
        if any(m.get("role") == "infeasible" for m in chat_messages):
            return "infeasible"
        verbs = action_verbs(self.last_action)
        if any(v in INFEASIBLE_VERBS for v in verbs):
            return "infeasible"
        assistant = [m for m in chat_messages if m.get("role") == "assistant"]
        if len(assistant) > _GREETING_MESSAGES or any(v in DONE_VERBS for v in verbs):
            return "message"
        return None

    def end(self, page: playwright.sync_api.Page, ended_by: str) -> dict[str, Any]:
        """End the episode (once): stop the clock, let the page settle, score the final state."""
        if self.final_verdict is not None:
            return self.final_verdict
        self.ended_at = time.monotonic()
        self.ended_by = ended_by
        settle(page)
        self.final_verdict = self.evaluate()
        return self.final_verdict

    def _info(self, verdict: dict[str, Any]) -> dict[str, Any]:
        info = {
            "passed": bool(verdict["passed"]),
            "score": float(verdict["score"]),
            "protocol": self.protocol,
        }
        if self.done:
            info.update(
                ended_by=self.ended_by,
                passed_midway=self.passed_midway,
                passed_midway_step=self.passed_midway_step,
                steps=self.steps,
            )
        return info

    def validate(
        self, page: playwright.sync_api.Page, chat_messages: list[dict]
    ) -> tuple[float, bool, str, dict]:
        """Called by BrowserGym after each action: reward = the live score; done at the episode's end
        (see the module docstring), whose reward is the final state's score."""
        if self.final_verdict is not None:  # a step after the end changes nothing
            return float(self.final_verdict["score"]), True, "", self._info(self.final_verdict)
        step = self.steps
        self.steps += 1
        how = self.declared(chat_messages)
        if how is None and (self.protocol == FIRST_PASS or self.steps < self.max_steps):
            verdict = self.evaluate()
            passed = bool(verdict["passed"])
            if passed and self.protocol == FIRST_PASS:
                # Training option: the live state passed, the episode stops here.
                self.ended_at, self.ended_by, self.final_verdict = time.monotonic(), "pass", verdict
                return float(verdict["score"]), True, "", self._info(verdict)
            if self.steps < self.max_steps:
                if passed and self.passed_midway_step is None:
                    self.passed_midway_step = step
                return float(verdict["score"]), False, "", self._info(verdict)
        verdict = self.end(page, how or "step_limit")
        return float(verdict["score"]), True, "", self._info(verdict)

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
        self.steps += 1  # the cheat is the oracle's first action (step 0 of its actions table)

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
