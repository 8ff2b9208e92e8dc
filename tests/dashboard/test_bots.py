"""Bots play assignments through the real pages in Chromium; the lead's progress page shows them."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlmodel import Session, select

from humantrace.dashboard.bots.service import run_bots, sign_in
from humantrace.dashboard.studies.models import Assignment, Attempt

pytestmark = pytest.mark.browser


@pytest.fixture(params=["sqlite"])
def db_url(request, sqlite_url):
    return sqlite_url


def test_two_bots_finish_six_assignments(live, study, make_assignment, context, screenshot_dir, tmp_path):
    from humantrace.annotators import service as accounts

    with Session(live.app.state.engine) as db:
        row = db.get(type(study), study.id)
        row.reading_countdown_seconds = 60  # the bots press "Start now"
        db.add(row)
        db.commit()
    for code in ("A1", "A2"):
        make_assignment(code, "lab-001", "clean")
        make_assignment(code, "lab-002", "clean")
        make_assignment(code, "lab-002", "intervention")
    reports = []
    # Playwright's sync API runs its own loop: give the bots a thread of their own.
    worker = threading.Thread(
        target=lambda: reports.extend(
            run_bots(
                engine=live.app.state.engine,
                secret_key=live.app.state.settings.secret_key,
                base_url=live.url,
                codes=["A1", "A2"],
                assignments=3,
                seed=3,
            )
        )
    )
    worker.start()
    worker.join(timeout=600)
    assert [(r.code, len(r.completed), r.failed) for r in reports] == [("A1", 3, []), ("A2", 3, [])]

    with Session(live.app.state.engine) as db:
        states = db.exec(select(Assignment.state)).all()
        assert states.count("completed") == 6
        attempts = db.exec(select(Attempt)).all()
        assert len(attempts) == 12 and all(a.passed for a in attempts), [(a.id, a.score) for a in attempts]
        assert all(a.raw_events and a.raw_events > 0 for a in attempts)
        link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code="L1", base_url=live.url
        )
    lead = context.new_page()
    sign_in(lead, link)
    assert lead.locator(".stat-n").first.inner_text() == "6"
    people = lead.locator("#progress-people").inner_text()
    assert "3 / 3" in people and "A1" in people and "A2" in people
    lead.screenshot(path=str(screenshot_dir / "lead_progress_bots.png"), full_page=True)

    # The study's output: export, verify, compare with agent runs (issue 7's round trip)
    from humantrace.dashboard.exports.bundle import export_bundle
    from humantrace.exports.bundle import verify_bundle
    from humantrace.exports.compare import compare

    bundle = tmp_path / "bundle"
    export_bundle(live.app.state.engine, bundle)
    assert verify_bundle(bundle) == []
    agents = tmp_path / "agents.csv"
    agents.write_text(
        "model,task,env,difficulty,condition,score,steps,elapsed_s,source_variant\n"
        "m1,lab-001,lab,easy,clean,1,4,20,\n"
        "m1,lab-002,lab,easy,clean,1,6,30,\n"
        "m1,lab-002,lab,easy,intervention,0.4,12,70,lab-002-v1\n"
    )
    result = compare(bundle, [agents], tmp_path / "report", bootstrap=200)
    assert result.report_path.exists() and result.csv_paths
    report = context.new_page()
    errors = []
    report.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    report.goto(result.report_path.as_uri())
    assert errors == []
    report.screenshot(path=str(screenshot_dir / "compare_report_bots.png"), full_page=False)


def test_a_paced_bot_takes_a_persons_time_and_stops_at_the_deadline(live, study, make_assignment):
    """`benchmarks/load.py` plays its bots at a person's pace: each attempt's website stays open
    for the drawn attempt time, however quick the clicks; after the deadline no bot starts
    another assignment."""
    import time

    from humantrace.dashboard.bots.service import Pace

    with Session(live.app.state.engine) as db:
        row = db.get(type(study), study.id)
        row.reading_countdown_seconds = 60
        db.add(row)
        db.commit()
    first = make_assignment("A1", "lab-001", "clean")
    second = make_assignment("A1", "lab-002", "clean")
    settings = live.app.state.settings

    def play(in_event_loop: bool = False, **kwargs) -> list:
        reports = []

        def go() -> None:
            reports.extend(
                run_bots(
                    engine=live.app.state.engine,
                    secret_key=settings.secret_key,
                    base_url=live.url,
                    codes=["A1"],
                    seed=3,
                    **kwargs,
                )
            )

        async def from_a_loop() -> None:
            go()

        worker = threading.Thread(target=(lambda: asyncio.run(from_a_loop())) if in_event_loop else go)
        worker.start()
        worker.join(timeout=300)
        return reports

    pace = Pace(reading=(1, 1), cold=(5, 5), warm=(3, 3), rating=(1, 1))
    reports = play(assignments=1, pace=pace)
    assert [(r.completed, r.failed) for r in reports] == [([first], [])]
    # The deadline has passed. Called where an asyncio loop runs (a notebook), the bots still run.
    late = play(in_event_loop=True, assignments=1, pace=pace, until=time.monotonic())
    assert [(r.completed, r.failed) for r in late] == [([], [])]
    with Session(live.app.state.engine) as db:
        attempts = {a.phase: a for a in db.exec(select(Attempt).where(Attempt.assignment_id == first))}
        assert db.get(Assignment, second).state != "completed"
        assert not db.exec(select(Attempt).where(Attempt.assignment_id == second)).all()
    assert attempts["cold"].passed and attempts["warm"].passed
    # From Begin to Evaluate: at least the drawn time (the oracle's clicks take about a second).
    assert attempts["cold"].wall_clock_ms >= 5000
    assert attempts["warm"].wall_clock_ms >= 3000
