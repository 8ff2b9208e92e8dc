"""A study with UI profiles (#32): planned with `--profiles`, every attempt on its assignment's
profile (cold, warm, after a rollback), shown to the lead, played by the in-browser bots on a
non-default profile, exported with the profile in the bundle."""

from __future__ import annotations

import re
import threading
from collections import Counter

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from humantrace.dashboard.cli import app
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Assignment, Attempt, Outcome, Study

runner = CliRunner()


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


def lab_study_of_four(engine, study: Study, **settings) -> None:
    """The test study on the lab site only, with four primary annotators (A1-A4)."""
    from humantrace.annotators import service as accounts

    with Session(engine) as db:
        row = db.get(Study, study.id)
        assert row is not None
        row.envs = ["lab"]
        for key, value in settings.items():
            setattr(row, key, value)
        db.add(row)
        db.commit()
        for code in ("A3", "A4"):
            accounts.add_annotator(db, code=code, role="annotator", tier="primary", study_id=study.id)


def test_every_attempt_runs_on_the_assignments_profile(client, make_assignment, person):
    from humantrace.environments import sessions

    a1 = person("A1")
    assignment_id = make_assignment("A1", "lab-002", "intervention")
    with Session(client.app.state.engine) as db:
        row = db.get(Assignment, assignment_id)
        row.ui_profile = "kit-controls"
        db.add(row)
        db.commit()
        profile_of = lambda attempt: sessions.get_session(db, session_id=attempt.env_session_id).ui_profile  # noqa: E731
        cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
        flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
        assert profile_of(cold) == "kit-controls"
        flow.rollback(db, assignment_id=assignment_id, reason="environment tab closed")
        again = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
        flow.begin_recording(db, attempt_id=again.id, annotator=a1)  # the website starts ("go")
        assert again.id != cold.id and profile_of(again) == "kit-controls"
        flow.end_attempt(db, attempt_id=again.id, annotator=a1, outcome=Outcome.evaluated)
        warm = flow.start_warm(db, assignment_id=assignment_id, annotator=a1)
        assert profile_of(warm) == "kit-controls"
        # Same state on every profile: the profile changes how the site looks, never what is on it.
        plain = sessions.create(db, task_id="lab-002", condition="intervention", seed=row.seed)
        assert (
            sessions.get_session(db, session_id=plain).initial_sha256
            == sessions.get_session(db, session_id=warm.env_session_id).initial_sha256
        )


@pytest.fixture
def cli_env(monkeypatch, tmp_path, migrated_url, client):
    monkeypatch.setenv("HUMANTRACE_DATABASE_URL", migrated_url)
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HUMANTRACE_SECRET_KEY", client.app.state.settings.secret_key)
    return client.app.state.engine


def test_panel_plan_with_profiles_stores_them_and_panel_check_verifies_them(cli_env, study):
    lab_study_of_four(cli_env, study)
    base = ["panel", "plan", "--study", "Test study", "--per-cell", "2", "--difficulty", "easy"]
    base += ["--duplicates-per-cell", "0"]
    refused = run(*base, "--profiles", "default,nope", code=1)
    assert "lab has no UI profile 'nope' (it has: default, icon-buttons, kit-controls)" in " ".join(
        refused.split()
    )
    # Three profiles need six people per base task; there are four.
    refused = run(*base, "--profiles", "default,icon-buttons,kit-controls", code=1)
    assert "needs six different annotators" in " ".join(refused.split())

    out = run(*base, "--profiles", "default,icon-buttons")
    assert "UI profiles: lab default, icon-buttons" in out and "by profile" in out
    with Session(cli_env) as db:
        rows = db.exec(select(Assignment).where(Assignment.study_id == study.id)).all()
    # Each base task in both conditions under each profile, each row to a different person.
    assert Counter((a.task_id, a.condition, a.ui_profile) for a in rows) == {
        (t, c, p): 1
        for t in ("lab-001", "lab-002")
        for c in ("clean", "intervention")
        for p in ("default", "icon-buttons")
    }
    assert max(Counter((a.annotator_id, a.task_id) for a in rows).values()) == 1
    assert set(Counter((a.annotator_id, a.ui_profile) for a in rows).values()) == {1}
    assert "follow every planning rule" in run("panel", "check", "--study", "Test study")

    with Session(cli_env) as db:
        row = db.exec(select(Assignment).where(Assignment.ui_profile == "icon-buttons")).first()
        row.ui_profile = "nope"
        db.add(row)
        db.commit()
    out = " ".join(run("panel", "check", "--study", "Test study", code=1).split())
    assert "unknown_profile" in out and "lab has no UI profile 'nope'" in out


@pytest.fixture(params=["sqlite"])
def db_url(request, sqlite_url):
    return sqlite_url


@pytest.mark.browser
def test_a_bot_plays_a_non_default_profile_and_the_bundle_shows_it(
    live, study, context, screenshot_dir, tmp_path
):
    from humantrace.annotators import service as accounts
    from humantrace.dashboard.bots.service import run_bots, sign_in
    from humantrace.dashboard.exports.bundle import export_bundle
    from humantrace.dashboard.studies import planning
    from humantrace.environments import sessions
    from humantrace.exports.bundle import read_bundle, verify_bundle

    engine = live.app.state.engine
    lab_study_of_four(engine, study, reading_countdown_seconds=60)  # the bots press "Start now"
    with Session(engine, expire_on_commit=False) as db:
        target = db.get(Study, study.id)
        plan = planning.make_plan(
            db,
            study=target,
            per_cell=2,
            difficulties=["easy"],
            duplicates_per_cell=0,
            profiles=["default", "icon-buttons"],
        )
        assert planning.write_plan(db, study=target, plan=plan) == 8
        planned = db.exec(select(Assignment).where(Assignment.study_id == study.id)).all()
        icon = next(a for a in planned if a.ui_profile == "icon-buttons")
        code = next(
            r.annotator
            for r in plan.assignments
            if (r.task_id, r.condition, r.ui_profile) == (icon.task_id, icon.condition, "icon-buttons")
        )
    reports: list = []
    worker = threading.Thread(
        target=lambda: reports.extend(
            run_bots(
                engine=engine,
                secret_key=live.app.state.settings.secret_key,
                base_url=live.url,
                codes=[code],
                assignments=2,
                seed=5,
            )
        )
    )
    worker.start()
    worker.join(timeout=600)
    assert [(len(r.completed), r.failed) for r in reports] == [(2, [])]

    with Session(engine) as db:
        played = db.exec(select(Attempt).where(Attempt.assignment_id == icon.id)).all()
        assert sorted(a.phase for a in played) == ["cold", "warm"]
        assert all(a.passed for a in played), [(a.phase, a.score) for a in played]
        cold_id = next(a.id for a in played if a.phase == "cold")
        assert {sessions.get_session(db, session_id=a.env_session_id).ui_profile for a in played} == {
            "icon-buttons"
        }
        link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code="L1", base_url=live.url
        )

    bundle = tmp_path / "bundle"
    export_bundle(engine, bundle)
    assert verify_bundle(bundle) == []
    attempts = read_bundle(bundle, tables=["attempts"]).attempts
    assert sorted(attempts.loc[attempts["assignment_id"] == icon.id, "ui_profile"]) == ["icon-buttons"] * 2
    assert set(attempts["ui_profile"]) == {"default", "icon-buttons"}

    # The lead sees the profile on the assignments, the assignment and the attempt pages.
    lead = context.new_page()
    lead.set_viewport_size({"width": 1366, "height": 768})
    sign_in(lead, link)
    lead.goto(f"{live.url}/lead/assignments")
    table = lead.locator("#lead-assignments")
    assert "profile" in table.locator("thead").inner_text().lower()
    assert table.locator("tbody tr", has_text="icon-buttons").count() == 4
    lead.screenshot(path=str(screenshot_dir / "lead_assignments_profiles.png"))
    lead.goto(f"{live.url}/lead/assignments/{icon.id}")
    assert lead.locator(".page-head .ui-profile").inner_text() == "icon-buttons"
    lead.screenshot(path=str(screenshot_dir / "lead_assignment_profile.png"))
    lead.goto(f"{live.url}/lead/attempts/{cold_id}")
    assert lead.locator(".page-head .ui-profile").inner_text() == "icon-buttons"
    lead.screenshot(path=str(screenshot_dir / "lead_attempt_profile.png"))

    # The Plan page lists the site's profiles as help and names them when one does not exist.
    lead.goto(f"{live.url}/lead/plan")
    assert "icon-buttons" in lead.locator("#site-profiles").inner_text()
    lead.fill("input[name=profiles]", "default,nope")
    with lead.expect_navigation():
        lead.click("button[value=preview]")
    assert (
        "lab has no UI profile 'nope' (it has: default, icon-buttons, kit-controls)"
        in lead.locator(".notice.bad").inner_text()
    )
    assert lead.locator("input[name=profiles]").input_value() == "default,nope"
    lead.screenshot(path=str(screenshot_dir / "lead_plan_profiles_refused.png"), full_page=True)
    # On a real site with profiles, the preview shows each annotator's rows per profile.
    with Session(engine) as db:
        row = db.get(Study, study.id)
        assert row is not None
        row.envs = ["brokerage"]
        db.add(row)
        db.commit()
    lead.goto(f"{live.url}/lead/plan")
    assert "custom-controls" in lead.locator("#site-profiles").inner_text()
    lead.fill("input[name=profiles]", "default,custom-controls")
    with lead.expect_navigation():
        lead.click("button[value=preview]")
    assert lead.locator("#plan-profiles").inner_text() == "UI profiles: brokerage default, custom-controls"
    loads = lead.locator("#plan-loads")
    assert "by profile" in loads.locator("thead").inner_text().lower()
    row_a1 = loads.locator("tbody tr", has_text="A1").inner_text()
    # 5 base tasks x 2 conditions x 2 profiles over four primary annotators: 5 each, 2-3 per profile.
    assert re.search(r"custom-controls [23], default [23]$", row_a1), row_a1
    lead.screenshot(path=str(screenshot_dir / "lead_plan_profiles.png"), full_page=True)
    # The form keeps what was asked; unticking difficulties plans only those cells, with the audit
    # size the lead sets (none here: the study has one duplicate-tier annotator).
    assert lead.locator("input[name=profiles]").input_value() == "default,custom-controls"
    for level in ("medium", "expert", "frontier"):
        lead.locator("#plan-difficulties").get_by_label(level).uncheck()
    lead.fill("input[name=duplicates_per_cell]", "0")
    with lead.expect_navigation():
        lead.click("button[value=preview]")
    assert lead.locator("#plan-preview").count() == 1, lead.locator("main").inner_text()[:1500]
    summary = lead.locator("#plan-preview").inner_text()
    assert "2 base tasks in 2 cells" in summary and "0 duplicate task-conditions" in summary, summary
    row_a1 = lead.locator("#plan-loads tbody tr", has_text="A1").inner_text()
    assert "medium" not in row_a1 and "expert" not in row_a1, row_a1
    assert lead.locator("#plan-difficulties").get_by_label("easy").is_checked()
    assert not lead.locator("#plan-difficulties").get_by_label("medium").is_checked()
    lead.screenshot(path=str(screenshot_dir / "lead_plan_difficulties.png"), full_page=True)
    for level in ("easy", "hard"):
        lead.locator("#plan-difficulties").get_by_label(level).uncheck()
    with lead.expect_navigation():
        lead.click("button[value=preview]")
    assert "tick at least one difficulty" in lead.locator(".notice.bad").inner_text()
