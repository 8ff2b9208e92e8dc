"""The study flow in real Chromium against a real server: control tab, environment window, rating,
rollback on a closed tab, reloads, the lead's view, and the annotator's isolation."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect
from sqlmodel import Session, select

from humantrace.annotators import service as accounts
from humantrace.dashboard.bots.service import sign_in
from humantrace.dashboard.studies.models import Assignment, Attempt, Rating, Study
from humantrace.recorder.models import RawEvent
from tests.waits import count_of, wait_for_text

pytestmark = pytest.mark.browser


@pytest.fixture(params=["sqlite"])
def db_url(request, sqlite_url):
    """Browser flows run on SQLite; the state machine itself is tested on both databases."""
    return sqlite_url


@pytest.fixture
def live_study(live, study):
    with Session(live.app.state.engine) as db:
        row = db.get(Study, study.id)
        row.reading_countdown_seconds = 30
        row.rollback_grace_seconds = 3
        db.add(row)
        db.commit()
    return live


@pytest.fixture
def context(study_context):
    """Every flow here runs in Chromium with popup blocking on, as people's browsers do."""
    return study_context


def website_origin(live) -> str:
    return live.url.replace("127.0.0.1", "localhost")


def open_as(context, live, code: str):
    with Session(live.app.state.engine) as db:
        link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code=code, base_url=live.url
        )
    page = context.new_page()
    sign_in(page, link)
    return page


def lab_oracle(env_page, live, assignment_id):
    from humantrace.dashboard.bots.service import _solution, _targets_and_instruction
    from humantrace.environments.oracles import OracleContext

    targets, instruction, task_id = _targets_and_instruction(live.app.state.engine, assignment_id)
    _solution(task_id, wrong=False)(
        env_page,
        OracleContext(
            targets=targets,
            condition="clean",
            instruction=instruction,
            base_url=website_origin(live),
            task_id=task_id,
        ),
    )
    env_page.wait_for_timeout(800)


def test_one_assignment_end_to_end(live_study, context, make_assignment, screenshot_dir):
    live = live_study
    assignment_id = make_assignment("A1")
    control = open_as(context, live, "A1")
    control.screenshot(path=str(screenshot_dir / "assignments_list.png"), full_page=True)
    row = control.locator(f'tr[data-assignment="{assignment_id}"]')
    assert "Not started" in row.inner_text() and "grounding" not in row.inner_text()  # never the primitive
    # Start opens the website tab in the same click (popup blocking is on), on its own host name
    with context.expect_page() as popup, control.expect_navigation():
        row.locator("button", has_text="Start").click()
    env_page = popup.value
    env_page.wait_for_url("**/website/cover")
    assert env_page.url.startswith(website_origin(live))
    assert "Read the task in the other tab" in env_page.content()
    env_page.screenshot(path=str(screenshot_dir / "website_cover.png"))

    # reading countdown; "Start now" tells the website tab to go. Until then nothing ends the attempt.
    assert control.locator("#countdown").is_visible()
    assert "Pin the note titled" in control.locator("#instruction").inner_text()
    for button in ("#evaluate", "#abandon"):
        expect(control.locator(button)).to_be_disabled()
    expect(control.locator("#end-wait")).to_be_visible()
    control.screenshot(path=str(screenshot_dir / "control_countdown.png"), full_page=True)
    control.bring_to_front()  # the website tab opened over it: a background tab may not take input
    control.click("#start-now")
    for button in ("#evaluate", "#abandon"):
        expect(control.locator(button)).to_be_enabled()
    expect(control.locator("#end-wait")).to_be_hidden()
    env_page.wait_for_url("**/env/lab/**")
    env_page.wait_for_load_state("load")
    assert context.cookies(live.url) and all(
        c["domain"] == "localhost" for c in context.cookies(website_origin(live))
    )
    wait_for_text(control, "#rec-label", lambda t: t == "REC")
    html = env_page.content()
    assert "Evaluate" not in html and "lab-001" not in html  # the website only

    lab_oracle(env_page, live, assignment_id)
    control.bring_to_front()
    wait_for_text(control, "#events", lambda t: count_of(t) > 0)
    control.screenshot(path=str(screenshot_dir / "control_recording.png"), full_page=True)
    with control.expect_navigation():
        control.click("#evaluate")
    assert control.locator("#start-warm").is_visible()
    env_page.wait_for_url("**/website/ended")
    control.screenshot(path=str(screenshot_dir / "control_warm_ready.png"), full_page=True)

    # the warm attempt follows at once: no second countdown, the website tab reloads by itself
    warm_pressed = time.time()
    with control.expect_navigation():
        control.click("#start-warm")
    assert "Second attempt" in control.locator(".pill-phase").inner_text()
    assert not control.locator("#countdown").is_visible()
    env_page.wait_for_url("**/env/lab/**")
    lab_oracle(env_page, live, assignment_id)
    control.bring_to_front()
    with control.expect_navigation():
        control.click("#evaluate")
    warm_ended = time.time()
    control.wait_for_selector("#rating-form")
    control.screenshot(path=str(screenshot_dir / "rating_form.png"), full_page=True)
    control.check('input[name="clarity"][value="4"]')
    control.check('input[name="suspected_bug"]')
    control.fill('textarea[name="comments"]', "The pin icon was hard to find.")
    with control.expect_navigation():
        control.click('button[value="submit"]')
    assert "Assignment completed" in control.content()

    with Session(live.app.state.engine) as db:
        assert db.get(Assignment, assignment_id).state == "completed"
        attempts = db.exec(
            select(Attempt).where(Attempt.assignment_id == assignment_id).order_by(Attempt.id)
        ).all()
        assert [(a.phase, a.outcome, a.passed) for a in attempts] == [
            ("cold", "evaluated", True),
            ("warm", "evaluated", True),
        ]
        # the warm clock starts at its own first acknowledged event, after "Start warm attempt"
        warm_first = min(
            e.t_ms for e in db.exec(select(RawEvent).where(RawEvent.recording_id == attempts[1].recording_id))
        )
        assert warm_first / 1000 >= warm_pressed - 0.5
        assert 0 < attempts[1].wall_clock_ms <= (warm_ended - warm_pressed) * 1000 + 500
        for attempt in attempts:
            assert attempt.raw_events and attempt.clean_steps and attempt.clean_steps <= attempt.raw_events
            assert attempt.viewport_w and attempt.user_agent and attempt.wall_clock_ms > 0
            # The website tab stayed open and (headless) visible, its page loads included: not away.
            assert attempt.away_s is not None and attempt.away_s < 1.0, attempt.away_s
        rating = db.exec(select(Rating).where(Rating.assignment_id == assignment_id)).one()
        assert rating.clarity == 4 and rating.needs_review

    lead = open_as(context.browser.new_context(viewport={"width": 1366, "height": 800}), live, "L1")
    assert "1" in lead.locator(".stat-n").first.inner_text()
    lead.screenshot(path=str(screenshot_dir / "lead_progress.png"), full_page=True)
    lead.goto(live.url + "/lead/review")
    assert "pin icon was hard to find" in lead.content()
    lead.screenshot(path=str(screenshot_dir / "lead_review.png"), full_page=True)
    lead.goto(live.url + f"/lead/assignments/{assignment_id}")
    lead.screenshot(path=str(screenshot_dir / "lead_assignment.png"), full_page=True)
    lead.goto(live.url + f"/lead/attempts/{attempts[0].id}")
    assert lead.locator("#raw-trace tbody tr").count() == attempts[0].raw_events
    assert lead.locator("#clean-trace tbody tr").count() == attempts[0].clean_steps
    lead.screenshot(path=str(screenshot_dir / "lead_inspector.png"), full_page=True)
    lead.goto(live.url + "/lead/pass-rates")
    assert "100%" in lead.locator("#pass-rates").inner_text()
    lead.screenshot(path=str(screenshot_dir / "lead_pass_rates.png"), full_page=True)
    for name in ("assignments", "plan", "exports"):
        assert lead.goto(f"{live.url}/lead/{name}").status == 200
        lead.screenshot(path=str(screenshot_dir / f"lead_{name}.png"), full_page=True)
    assert "2 finished attempts" in lead.content()
    lead.context.close()


def _start_cold(context, live, assignment_id):
    control = open_as(context, live, "A1")
    with context.expect_page() as popup, control.expect_navigation():
        control.locator(f'tr[data-assignment="{assignment_id}"] button').click()
    env_page = popup.value
    env_page.wait_for_url("**/website/cover")
    control.bring_to_front()  # the website tab opened over it: a background tab may not take input
    control.click("#start-now")
    env_page.wait_for_url("**/env/lab/**")
    env_page.wait_for_load_state("load")
    wait_for_text(control, "#events", lambda t: count_of(t) > 0)
    return control, env_page


def _state(live, assignment_id):
    with Session(live.app.state.engine) as db:
        return db.get(Assignment, assignment_id).state


def _wait_for_state(live, assignment_id, state, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if _state(live, assignment_id) == state:
            return True
        time.sleep(0.5)
    return False


def test_closing_the_environment_tab_rolls_back_and_reload_does_not(live_study, context, make_assignment):
    live = live_study
    assignment_id = make_assignment("A1")
    control, env_page = _start_cold(context, live, assignment_id)
    env_page.reload()  # a reload is not a close
    env_page.wait_for_load_state("load")
    control.reload()
    assert not _wait_for_state(live, assignment_id, "not_started", 6)
    env_page.close()
    assert _wait_for_state(live, assignment_id, "not_started", 15), (
        "closing the website window must roll back"
    )
    control.wait_for_url("**/assignments?notice=rolled_back", timeout=15000)
    assert "put back to" in control.content()


def test_closing_the_control_tab_rolls_back(live_study, context, make_assignment):
    live = live_study
    assignment_id = make_assignment("A1")
    control, _env_page = _start_cold(context, live, assignment_id)
    control.close()
    assert _wait_for_state(live, assignment_id, "not_started", 15)


def test_double_click_on_evaluate_scores_once(live_study, context, make_assignment):
    live = live_study
    assignment_id = make_assignment("A1")
    control, _env = _start_cold(context, live, assignment_id)
    control.evaluate(
        """() => { const b = document.getElementById('evaluate'); b.click(); b.disabled = false; b.click(); }"""
    )
    control.wait_for_selector("#start-warm")
    with Session(live.app.state.engine) as db:
        attempts = db.exec(select(Attempt).where(Attempt.assignment_id == assignment_id)).all()
        assert len(attempts) == 1 and attempts[0].outcome == "evaluated"


def test_an_annotator_cannot_reach_another_annotators_assignment(live_study, context, make_assignment):
    live = live_study
    theirs = make_assignment("A2")
    page = open_as(context, live, "A1")
    assert f'data-assignment="{theirs}"' not in page.content()
    for path in (f"/assignments/{theirs}/control", f"/assignments/{theirs}/website"):
        response = page.goto(live.url + path)
        assert response.status == 404, path
    response = page.request.post(
        live.url + f"/assignments/{theirs}/start",
        headers={
            "X-CSRF-Token": page.locator("#control, [name=csrf_token]").first.get_attribute("value") or ""
        },
    )
    assert response.status in (403, 404)
    assert _state(live, theirs) == "not_started"
