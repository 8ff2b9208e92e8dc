"""A short database outage loses nobody's work: PostgreSQL (a private cluster) stops for 6 s while
two bots play assignments in Chromium against two `humantrace serve` processes. Site pages send
their API calls again, the control tab its Evaluate, warm and rating requests, pages that got a
503 reload themselves, and both bots finish with every event kept and nothing rolled back."""

from __future__ import annotations

import threading
import time

import pytest
from sqlmodel import Session, col, func, select

from tests.waits import poll_until

pytestmark = [pytest.mark.browser, pytest.mark.heavy]

OUTAGE_SECONDS = 6
RATING_PAUSE = 4.0  # bot A sits this long on the rating form: it submits inside the outage


def _state(engine, assignment_id: int) -> str | None:
    from humantrace.core.requestlog import DATABASE_ERRORS
    from humantrace.dashboard.studies.models import Assignment

    try:
        with Session(engine) as db:
            row = db.get(Assignment, assignment_id)
            return row.state if row else None
    except DATABASE_ERRORS:
        return None


def _unreachable(log: str) -> str:
    return "\n".join(line for line in log.splitlines() if "unreachable" in line) or log[-3000:]


def _wait_for_request(process, first: str, then: str, timeout: float = 60) -> None:
    """Until `process` has logged a request line with `then` after one with `first`."""

    def seen() -> bool:
        lines = list(process.lines)
        at = next((i for i, line in enumerate(lines) if first in line), None)
        return at is not None and any(then in line for line in lines[at + 1 :])

    poll_until(seen, timeout_s=timeout, what=f"{then!r} after {first!r}", every_s=0.05)


def _wait_for_state(engine, assignment_id: int, states: set[str], timeout: float = 180) -> None:
    poll_until(
        lambda: _state(engine, assignment_id) in states,
        timeout_s=timeout,
        what=f"assignment {assignment_id} in {states}",
    )


def test_six_seconds_without_the_database_under_two_working_bots(
    kit, private_postgres, serve, tmp_path, context
):
    from humantrace.core import migrate
    from humantrace.core.db import make_engine
    from humantrace.dashboard.bots.service import (
        Pace,
        _origin,
        _solution,
        _targets_and_instruction,
        open_assignment,
        play_attempt,
        run_bots,
        sign_in,
    )
    from humantrace.dashboard.studies.models import AssignmentEvent, Attempt, Rating, Study
    from humantrace.environments.oracles import OracleContext
    from humantrace.recorder.models import RawEvent

    kit.register_lab()
    migrate.upgrade(private_postgres.url)
    engine = make_engine(private_postgres.url)
    maker = kit.CastMaker(engine, kit.make_study(engine))
    with Session(engine) as db:
        study = db.get(Study, maker.study_id)
        assert study is not None
        study.reading_countdown_seconds = 30  # the bots press Start now
        db.add(study)
        db.commit()
    people = [maker.person("A"), maker.person("B")]
    ids = [maker.assignment(p)["assignment_id"] for p in people]
    env = kit.serve_env(data_dir=tmp_path / "data", database_url=private_postgres.url)
    processes = [serve(port=kit.free_port(), env=env), serve(port=kit.free_port(), env=env)]

    reports: list = []
    bot_a = threading.Thread(
        target=lambda: reports.extend(
            run_bots(
                engine=engine,
                secret_key=kit.SECRET_KEY,
                base_url=processes[0].url,
                codes=[people[0].code],
                assignments=1,
                pace=Pace(reading=(0, 0), cold=(0, 0), warm=(0, 0), rating=(RATING_PAUSE, RATING_PAUSE)),
            )
        )
    )
    bot_a.start()

    # B is played here, step by step as a bot plays, so that its website is open and about to
    # work when the database goes.
    page = context.new_page()
    sign_in(page, kit.login_link(engine, people[1].code, processes[1].url))
    page.goto(processes[1].url + "/assignments")
    website = open_assignment(page, ids[1])
    page.wait_for_url(f"**/assignments/{ids[1]}/control")
    page.bring_to_front()
    page.click("#start-now")
    website.wait_for_url("**/env/lab/**")
    website.wait_for_load_state("load")
    targets, instruction, task_id = _targets_and_instruction(engine, ids[1])
    oracle = OracleContext(
        targets=targets,
        condition="clean",
        instruction=instruction,
        base_url=_origin(website.url),
        task_id=task_id,
    )

    # A sits on its rating form for RATING_PAUSE s once its website tab shows the attempt ended
    # (what a bot waits for after Evaluate): the outage starts then, so A submits into it.
    _wait_for_state(engine, ids[0], {"rating"})
    with Session(engine) as db:
        warm = db.exec(
            select(Attempt.id).where(Attempt.assignment_id == ids[0], Attempt.phase == "warm")
        ).one()
    _wait_for_request(processes[0], f"POST /attempts/{warm}/end 200", "GET /website/ended 200")
    down, up = threading.Event(), threading.Event()

    def outage() -> None:
        private_postgres.stop()
        down.set()
        time.sleep(OUTAGE_SECONDS)  # the outage itself: how long the database stays away
        private_postgres.start()
        up.set()

    engine.dispose()
    threading.Thread(target=outage, daemon=True).start()
    assert down.wait(timeout=60)
    stopped = time.monotonic()
    _solution(task_id, wrong=False)(website, oracle)  # the site's calls meet the outage and are sent again
    assert up.is_set() and time.monotonic() - stopped >= OUTAGE_SECONDS
    website.wait_for_timeout(700)  # as a bot: the recorder's last batch goes out before Evaluate
    page.bring_to_front()
    with page.expect_navigation(timeout=60_000):
        page.click("#evaluate")
    page.wait_for_selector("#start-warm", timeout=60_000)
    # As the bots' play_attempt does after Evaluate: the website tab has left the cold attempt's
    # page, so the warm attempt's play waits for its own reload instead of solving on the old page.
    website.wait_for_url("**/website/ended", timeout=60_000)
    with page.expect_navigation(timeout=60_000):
        page.click("#start-warm")
    play_attempt(page, website, engine, assignment_id=ids[1], wrong=False)
    page.wait_for_selector("#rating-form", timeout=60_000)
    page.check('input[name="clarity"][value="4"]')
    page.click('button[value="submit"]')
    page.wait_for_url("**/assignments?notice=completed", timeout=60_000)
    bot_a.join(timeout=240)
    logs = [p.stop() for p in processes]

    assert [(r.code, len(r.completed), r.failed) for r in reports] == [(people[0].code, 1, [])], logs[0][
        -4000:
    ]
    # The processes log every request that met the outage (a warning; no traceback).
    assert f"POST /assignments/{ids[0]}/rating: database unreachable" in logs[0], _unreachable(logs[0])
    assert "GET /api/env/lab/notes: database unreachable" in logs[1], _unreachable(logs[1])
    with Session(engine) as db:
        for assignment_id in ids:
            assert _state(engine, assignment_id) == "completed"
            assert db.exec(select(Rating).where(Rating.assignment_id == assignment_id)).one().clarity
            rolled = db.exec(
                select(func.count())
                .select_from(AssignmentEvent)
                .where(
                    AssignmentEvent.assignment_id == assignment_id, AssignmentEvent.to_state == "not_started"
                )
            ).one()
            assert rolled == 0, "the outage rolled nothing back"
            attempts = db.exec(select(Attempt).where(Attempt.assignment_id == assignment_id)).all()
            assert [(a.phase, a.status) for a in attempts] == [("cold", "ended"), ("warm", "ended")]
            for attempt in attempts:
                seqs = list(
                    db.exec(
                        select(col(RawEvent.seq))
                        .where(RawEvent.recording_id == attempt.recording_id)
                        .order_by(col(RawEvent.seq))
                    )
                )
                assert attempt.raw_events and seqs == list(range(attempt.raw_events)), "no event lost"
                assert attempt.passed, (assignment_id, attempt.phase, attempt.score)
    for log in logs:
        assert "Traceback" not in log, log[-4000:]
    engine.dispose()
