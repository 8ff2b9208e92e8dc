"""docs/deploy.md's layout in Chromium: the dashboard on `study.localhost`, the websites on
`sites.study.localhost` (one site to a browser, so the dashboard's Lax login cookie travels with a
website page's requests to the dashboard). The website tab's own script cannot open the control
channel, so it cannot keep a closed control tab "present": closing the control tab rolls back."""

from __future__ import annotations

import os

import pytest
from sqlmodel import Session, select

from humantrace.annotators import service as accounts
from humantrace.dashboard.bots.service import CHROMIUM_ARGS, sign_in
from humantrace.dashboard.studies.models import Assignment, AssignmentEvent, Study
from tests.waits import count_of, poll_until, wait_for_text

pytestmark = pytest.mark.browser

# A website page's script, as a hostile site would write it: open the control channel with the
# annotator's cookie; report the first message or the close.
PROBE = """(url) => new Promise((done) => {
  const ws = new WebSocket(url);
  ws.onmessage = (m) => { done({ message: JSON.parse(m.data) }); ws.close(); };
  ws.onclose = (e) => done({ code: e.code, reason: e.reason });
})"""
# ... and one that keeps the channel open for as long as the page lives, reconnecting when closed.
HOLD = """(url) => { const hold = () => { const ws = new WebSocket(url); ws.onclose = () => setTimeout(hold, 300); }; hold(); }"""


@pytest.fixture(params=["sqlite"])
def db_url(request, sqlite_url):
    return sqlite_url


@pytest.fixture
def same_site_browser(playwright_instance):
    """Chromium with popup blocking on, every `*.localhost` name on 127.0.0.1 (where the server listens)."""
    browser = playwright_instance.chromium.launch(
        executable_path=os.environ.get("HUMANTRACE_CHROMIUM", "/usr/bin/chromium"),
        args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP *.localhost 127.0.0.1"],
        headless=True,
        ignore_default_args=["--disable-popup-blocking"],
    )
    yield browser
    browser.close()


def _state(engine, assignment_id: int) -> str:
    with Session(engine) as db:
        row = db.get(Assignment, assignment_id)
        assert row is not None
        return row.state


def test_a_website_page_cannot_hold_the_control_channel_and_closing_the_control_tab_rolls_back(
    live_with, port, study, make_assignment, same_site_browser
):
    dashboard, websites = f"http://study.localhost:{port}", f"http://sites.study.localhost:{port}"
    live = live_with(public_url=dashboard, env_public_url=websites)
    engine = live.app.state.engine
    with Session(engine) as db:
        row = db.get(Study, study.id)
        assert row is not None
        row.rollback_grace_seconds = 3
        row.reading_countdown_seconds = 30  # Start now ends it
        db.add(row)
        db.commit()
        link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code="A1", base_url=dashboard
        )
    assignment_id = make_assignment("A1")
    context = same_site_browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        control = context.new_page()
        sign_in(control, link)
        with context.expect_page() as popup, control.expect_navigation():
            control.locator(f'tr[data-assignment="{assignment_id}"] button').click()
        website = popup.value
        website.wait_for_url(f"{websites}/website/cover")
        control.bring_to_front()
        control.click("#start-now")
        website.wait_for_url(f"{websites}/env/lab/**")
        wait_for_text(control, "#events", lambda t: count_of(t) > 0)

        channel = f"ws://study.localhost:{port}/ws/control/{assignment_id}"
        answer = website.evaluate(PROBE, channel)
        assert answer.get("code") == 1008 and "cross-origin" in answer.get("reason", ""), answer
        # The control tab's own channel, from the dashboard's origin, is open and live.
        assert control.evaluate(PROBE, channel)["message"]["state"] == "cold_active"

        website.evaluate(HOLD, channel)
        control.close()
        # grace 3 s, sweeps every second
        poll_until(
            lambda: _state(engine, assignment_id) == "not_started",
            timeout_s=30,
            what="rollback after closing the control tab",
        )
        with Session(engine) as db:
            trail = db.exec(
                select(AssignmentEvent.reason).where(
                    AssignmentEvent.assignment_id == assignment_id, AssignmentEvent.to_state == "not_started"
                )
            ).all()
        assert trail == ["control tab closed"]
    finally:
        context.close()
