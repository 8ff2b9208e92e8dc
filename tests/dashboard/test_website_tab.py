"""The website tab, in Chromium with popup blocking on, against a real server: opened by the Start
click on its own host name, a neutral cover until "go", no dashboard cookie or window reference in
it, a clock that excludes the countdown, "Reopen website" during the grace period, a confirmation
before leaving the control tab, and a rolled-back assignment that can be started again."""

from __future__ import annotations

import time

import pytest
from sqlmodel import Session, select

from humantrace.annotators import service as accounts
from humantrace.dashboard.bots.service import sign_in
from humantrace.dashboard.studies.models import Assignment, AssignmentEvent, Attempt, Study
from humantrace.recorder.models import RawEvent
from tests.waits import count_of, wait_for_text

pytestmark = pytest.mark.browser


@pytest.fixture(params=["sqlite"])
def db_url(request, sqlite_url):
    return sqlite_url


@pytest.fixture
def context(study_context):
    return study_context


def _settings(live, **values):
    with Session(live.app.state.engine) as db:
        row = db.exec(select(Study)).one()
        for key, value in values.items():
            setattr(row, key, value)
        db.add(row)
        db.commit()


def _login(context, live, code="A1"):
    with Session(live.app.state.engine) as db:
        link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code=code, base_url=live.url
        )
    page = context.new_page()
    sign_in(page, link)
    return page


def _start(context, control, assignment_id):
    with context.expect_page() as popup, control.expect_navigation():
        control.locator(f'tr[data-assignment="{assignment_id}"] button', has_text="Start").click()
    website = popup.value
    website.wait_for_url("**/website/cover")
    return website


def _assignment(live, assignment_id):
    with Session(live.app.state.engine) as db:
        return db.get(Assignment, assignment_id)


def _attempts(live, assignment_id):
    with Session(live.app.state.engine) as db:
        return db.exec(
            select(Attempt).where(Attempt.assignment_id == assignment_id).order_by(Attempt.id)
        ).all()


def test_the_website_tab_holds_nothing_of_the_dashboard_and_the_clock_skips_the_countdown(
    live, study, make_assignment, context
):
    _settings(live, reading_countdown_seconds=4, rollback_grace_seconds=30)
    assignment_id = make_assignment("A1")
    control = _login(context, live)
    clicked = time.time()
    website = _start(context, control, assignment_id)
    origin = live.url.replace("127.0.0.1", "localhost")
    assert website.url.startswith(origin + "/website/cover")
    assert website.evaluate("window.opener") is None  # noopener: no way back to the control tab
    # the countdown runs out by itself; the website loads only then
    website.wait_for_url("**/env/lab/**", timeout=20_000)
    assert time.time() - clicked >= 3.5
    # what a script of the website can do with the dashboard: nothing
    probe = website.evaluate(
        """async ([dashboard, id]) => {
            const out = {};
            try { const r = await fetch('/assignments/' + id + '/control'); out.sameOrigin = r.status; } catch (e) { out.sameOrigin = 'error'; }
            try { await fetch(dashboard + '/assignments/' + id + '/control', {credentials: 'include'}); out.dashboard = 'read'; }
            catch (e) { out.dashboard = 'blocked'; }
            try { await fetch(dashboard + '/attempts/1/end', {method: 'POST', credentials: 'include', mode: 'no-cors',
                                                            body: new URLSearchParams({outcome: 'abandoned'})}); } catch (e) {}
            out.cookies = document.cookie;
            return out;
        }""",
        [live.url, assignment_id],
    )
    assert probe["sameOrigin"] == 404 and probe["dashboard"] == "blocked" and probe["cookies"] == ""
    assert {c["name"] for c in context.cookies(origin)} == {"htweb", "htenv", "htrec"}
    assert not {"htsession", "htcsrf"} & {c["name"] for c in context.cookies(origin)}
    assert _assignment(live, assignment_id).state == "cold_active"  # the forged end did nothing

    website.locator("li.note").first.click()
    website.wait_for_timeout(1500)
    control.bring_to_front()
    wait_for_text(control, "#events", lambda t: count_of(t) > 0)
    refused: list[str] = []  # after Evaluate the recorder stops: no 410s from its token, no refused writes
    website.on("response", lambda r: refused.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    website.on("console", lambda m: refused.append(m.text) if m.type == "error" else None)
    with control.expect_navigation():
        control.click("#evaluate")
    website.wait_for_url("**/website/ended")
    elapsed_since_click = time.time() - clicked
    website.wait_for_timeout(2500)
    assert refused == [], refused
    cold = _attempts(live, assignment_id)[0]
    with Session(live.app.state.engine) as db:
        first = min(
            e.t_ms for e in db.exec(select(RawEvent).where(RawEvent.recording_id == cold.recording_id))
        )
    assert cold.wall_clock_ms <= (elapsed_since_click - 3.5) * 1000, (
        "the reading countdown is not on the clock"
    )
    assert cold.wall_clock_ms > 500 and first / 1000 >= clicked + 3.5
    # the website tab left the site (its session cookies are gone); a page still holding the
    # session would be refused with a clear message
    late = context.request.post(
        origin + "/api/env/lab/notes", data={"title": "late"}, headers={"X-Env-Session": cold.env_session_id}
    )
    assert late.status == 409 and late.json() == {"detail": "This attempt has ended"}


def test_reopen_website_during_the_grace_period_and_a_question_before_leaving(
    live, study, make_assignment, context, screenshot_dir
):
    _settings(live, reading_countdown_seconds=0, rollback_grace_seconds=12)
    assignment_id = make_assignment("A1")
    control = _login(context, live)
    website = _start(context, control, assignment_id)
    website.wait_for_url("**/env/lab/**")
    session_id = _attempts(live, assignment_id)[0].env_session_id
    website.locator("li.note").first.click()
    website.wait_for_timeout(1500)  # acknowledged before the tab goes
    closed_at = time.time()
    website.close()
    control.bring_to_front()
    control.wait_for_selector("#website-gone", state="visible", timeout=15_000)
    control.screenshot(path=str(screenshot_dir / "control_website_gone.png"), full_page=True)
    with context.expect_page() as popup:
        control.click("#reopen-website")
    reopened = popup.value
    reopened.wait_for_url("**/env/lab/**")
    closed_for = time.time() - closed_at
    control.wait_for_selector("#website-gone", state="hidden", timeout=10_000)
    time.sleep(13)  # past the grace period: nothing was rolled back
    attempts = _attempts(live, assignment_id)
    assert _assignment(live, assignment_id).state == "cold_active"
    assert len(attempts) == 1 and attempts[0].env_session_id == session_id  # the same env session
    # the reopened page records as a new stream of the attempt; the first tab's events are all kept
    reopened.locator("li.note").first.click()
    reopened.wait_for_timeout(1500)
    with Session(live.app.state.engine) as db:
        rows = db.exec(
            select(RawEvent.stream, RawEvent.seq).where(RawEvent.recording_id == attempts[0].recording_id)
        ).all()
    by_stream: dict[int, list[int]] = {}
    for stream, seq in rows:
        by_stream.setdefault(stream, []).append(seq)
    assert sorted(by_stream) == [0, 1], by_stream
    assert all(sorted(seqs) == list(range(len(seqs))) for seqs in by_stream.values()), (
        "seq contiguous per stream"
    )

    # leaving the control tab during the task asks first; staying keeps everything
    asked = []
    control.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
    control.click("a[href='/assignments']", no_wait_after=True)
    control.wait_for_timeout(800)
    assert asked == ["beforeunload"] and "/control" in control.url

    # the time without a website tab is the attempt's away_s (known to within a heartbeat, 2 s)
    with control.expect_navigation():
        control.click("#evaluate")
    ended = _attempts(live, assignment_id)[0]
    assert ended.away_s is not None and closed_for - 1.0 <= ended.away_s <= closed_for + 2.5, (
        ended.away_s,
        closed_for,
    )
    assert ended.away_s < ended.wall_clock_ms / 1000


def test_a_rolled_back_assignment_can_be_started_again_and_evaluated(live, study, make_assignment, context):
    _settings(live, reading_countdown_seconds=0, rollback_grace_seconds=3)
    assignment_id = make_assignment("A1")
    control = _login(context, live)
    website = _start(context, control, assignment_id)
    website.wait_for_url("**/env/lab/**")
    website.close()
    control.wait_for_url("**/assignments?notice=rolled_back", timeout=20_000)
    website = _start(context, control, assignment_id)
    website.wait_for_url("**/env/lab/**")
    website.locator("li.note").first.click()
    time.sleep(12)  # four grace periods of work with both tabs open
    assert _assignment(live, assignment_id).state == "cold_active"
    control.bring_to_front()
    with control.expect_navigation():
        control.click("#evaluate")
    assert _assignment(live, assignment_id).state == "warm_ready"
    with Session(live.app.state.engine) as db:
        trail = [
            (e.from_state, e.to_state)
            for e in db.exec(
                select(AssignmentEvent)
                .where(AssignmentEvent.assignment_id == assignment_id)
                .order_by(AssignmentEvent.id)
            )
        ]
    assert trail == [
        ("not_started", "cold_active"),
        ("cold_active", "not_started"),
        ("not_started", "cold_active"),
        ("cold_active", "warm_ready"),
    ]


def test_an_assignment_a_lead_reopened_can_be_started_again_and_evaluated(
    live, study, make_assignment, context, person
):
    from humantrace.dashboard.flow import service as flow

    _settings(live, reading_countdown_seconds=0, rollback_grace_seconds=3)
    assignment_id = make_assignment("A1")
    control = _login(context, live)
    website = _start(context, control, assignment_id)
    website.wait_for_url("**/env/lab/**")
    website.locator("li.note").first.click()
    control.bring_to_front()
    with control.expect_navigation():
        control.click("#evaluate")
    assert _assignment(live, assignment_id).state == "warm_ready"
    with Session(live.app.state.engine) as db:
        flow.reopen(db, assignment_id=assignment_id, lead=person("L1"), reason="the site was down")
    website.close()  # after the reopen, so the monitor cannot roll the warm_ready assignment back first
    control.goto(live.url + "/assignments")
    website = _start(context, control, assignment_id)
    website.wait_for_url("**/env/lab/**")
    website.locator("li.note").first.click()
    time.sleep(12)  # four grace periods of work with both tabs open: the old tabs' presence is not judged
    assert _assignment(live, assignment_id).state == "cold_active"
    control.bring_to_front()
    with control.expect_navigation():
        control.click("#evaluate")
    assert _assignment(live, assignment_id).state == "warm_ready"
    with Session(live.app.state.engine) as db:
        trail = [
            (e.from_state, e.to_state)
            for e in db.exec(
                select(AssignmentEvent)
                .where(AssignmentEvent.assignment_id == assignment_id)
                .order_by(AssignmentEvent.id)
            )
        ]
    assert trail == [
        ("not_started", "cold_active"),
        ("cold_active", "warm_ready"),
        ("warm_ready", "not_started"),
        ("not_started", "cold_active"),
        ("cold_active", "warm_ready"),
    ]
