"""Replay of a bot-made human bundle reproduces the bots' passes, and agent bundles round-trip
through `humantrace compare --agents DIR` (the replay share in the report)."""

from __future__ import annotations

import pandas as pd
import pytest

from humantrace.exports.agent_bundle import read_agent_bundle
from humantrace.exports.bundle import read_bundle
from tests.agentruns.conftest import REPLAY_SAMPLE
from tests.agentruns.helpers import cli

pytestmark = pytest.mark.browser


@pytest.mark.timeout(2400)
def test_replay_reproduces_bot_passes_and_compare_reads_agent_bundles(
    human_bundle, tmp_path, context, screenshot_dir
):
    attempts = read_bundle(human_bundle, tables=["attempts"]).attempts
    passed = attempts[attempts["passed"].astype(bool)]
    # The bot plays its oracle solution: every cold and warm attempt of the sample passes, each on
    # its assignment's UI profile.
    assert sorted(
        zip(passed["task_id"], passed["condition"], passed["ui_profile"], passed["phase"])
    ) == sorted(
        (task, condition, profile, phase)
        for task, condition, profile in REPLAY_SAMPLE
        for phase in ("cold", "warm")
    )
    profiles = ",".join(sorted({profile for _, _, profile in REPLAY_SAMPLE}))
    tasks = ",".join(sorted(set(passed["task_id"])))
    conditions = ",".join(sorted(set(passed["condition"])))

    replay = tmp_path / "replay"
    cli(
        "agents",
        "run",
        "--agent",
        "replay",
        "--human",
        str(human_bundle),
        "--tasks",
        tasks,
        "--conditions",
        conditions,
        "--profiles",
        profiles,
        "--out",
        str(replay),
    )
    replayed = read_agent_bundle(replay, tables=["episodes", "actions"])
    episodes, actions = replayed["episodes"], replayed["actions"]
    # Every operation of the trace replays without an error: on shop-014's custom listbox the
    # person's clicks choose the reason, and the hidden <select> behind it takes the value by force
    # (it used to wait 5 s for a box it never gets and report a timeout).
    assert actions["error"].isna().all(), actions.loc[actions["error"].notna(), ["action", "error"]].to_dict(
        orient="records"
    )
    assert sorted(episodes["replayed_attempt_id"].astype(int)) == sorted(passed["attempt_id"].astype(int))
    # Every pass reproduces. shop-014's cold attempt once replayed to 0.75 (one of its two returns
    # missing): the replay clicked the next header link while the return form's request was still
    # on its way; the replay now waits for the person's page and its requests (agentruns.replay.ready).
    reproduced = episodes["passed"].astype(bool)
    assert reproduced.all(), episodes[["task_id", "replayed_attempt_id", "replay_failure", "score"]].to_dict(
        orient="records"
    )
    assert episodes["replay_failure"].isna().all()
    # Each attempt replays on the profile it was recorded on (shop-014's listbox XPaths included).
    recorded = passed.set_index("attempt_id")
    assert episodes["ui_profile"].tolist() == [
        recorded.loc[a, "ui_profile"] for a in episodes["replayed_attempt_id"].astype(int)
    ]
    assert episodes["seed"].astype(int).tolist() == [
        int(passed.set_index("attempt_id").loc[a, "seed"]) for a in episodes["replayed_attempt_id"]
    ]

    # The agent bundle directory goes straight into compare (the oracle's bundle reads the same way).
    report = tmp_path / "report"
    done = cli(
        "compare",
        "--human",
        str(human_bundle),
        "--agents",
        str(replay),
        "--out",
        str(report),
        "--bootstrap",
        "50",
    )
    assert "agent row skipped" not in done.stdout
    runs = pd.read_csv(report / "agent_runs.csv")
    assert (
        set(runs["model"]) == {"replay"}
        and len(runs) == len(passed)
        and runs["passed"].sum() == reproduced.sum()
    )
    assert set(runs["task"]) == set(passed["task_id"]) and (runs["seed"] == 42).all()
    share = pd.read_csv(report / "replay_reproduce.csv")
    site = share[share["level"] == "site"]  # one row per site of the sample, each reproduced in full
    assert len(site) == len({task.split("-")[0] for task, _, _ in REPLAY_SAMPLE})
    assert (site["share"] == 1.0).all() and site["replays"].sum() == len(passed)

    page = context.new_page()
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto((report / "report.html").as_uri())
    assert page.locator("#replay").is_visible()
    page.locator("#replay").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "compare_report_replay.png"))
