"""A lead runs a study in the browser: creates it, imports three annotators from a CSV, plans the
panel, opens the study and copies A1's login link; A1 signs in and completes one assignment while
the lead's live monitor (no reload) shows A1 working. Screenshots of every study page."""

from __future__ import annotations

import random

import pytest
from sqlmodel import Session, select

from humantrace.dashboard.bots.service import play_assignment, sign_in
from tests.waits import wait_for_text

pytestmark = pytest.mark.browser

PEOPLE_CSV = "code,role,tier,designed,name\nA1,annotator,primary,,Ana\nA2,annotator,primary,,Ben\nD1,annotator,duplicate,,Eli\n"
BAD_CSV = "code,tier\nA7,primary\nA8,tertiary\n"


@pytest.fixture(params=["sqlite"])
def db_url(request, sqlite_url):
    return sqlite_url


def shot(page, directory, name: str) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    page.screenshot(path=str(directory / f"{name}.png"), full_page=True)


def test_lead_creates_imports_plans_and_watches_a1_complete_an_assignment(
    live, lab, browser, screenshot_dir, tmp_path
):
    from humantrace.annotators import service as accounts
    from humantrace.dashboard.studies.models import Assignment, Study

    engine = live.app.state.engine
    with Session(engine) as db:
        accounts.add_annotator(db, code="L1", role="lead")
        lead_link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code="L1", base_url=live.url
        )
    lead_context = browser.new_context(viewport={"width": 1366, "height": 768})
    lead_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.url)
    lead = lead_context.new_page()
    sign_in(lead, lead_link)
    lead.wait_for_url("**/lead/studies")  # no study yet: the lead lands on the studies list
    shot(lead, screenshot_dir, "study_list_empty")

    # Create the study; a bad seed first: refused with the reason, nothing created.
    lead.fill("#create-study input[name=name]", "Browser study")
    lead.fill("#create-study textarea[name=description]", "Short shopping tasks, each done twice.")
    lead.fill("#create-study input[name=envs]", "shop")
    lead.fill("#create-study input[name=seed]", "-3")
    lead.evaluate("document.querySelector('#create-study input[name=seed]').removeAttribute('min')")
    lead.click("#create-study button[type=submit]")
    assert "seed" in lead.locator("#create-error").inner_text()
    lead.fill("#create-study input[name=seed]", "42")
    lead.click("#create-study button[type=submit]")
    lead.wait_for_url("**/lead/studies/*")
    assert lead.locator("#study-status").inner_text() == "draft"
    with Session(engine) as db:
        study = db.exec(select(Study).where(Study.name == "Browser study")).one()
    # Settings: an out-of-range value is refused with its range; a valid one is saved.
    lead.fill("#study-settings input[name=rollback_grace_seconds]", "1")
    lead.evaluate(
        "document.querySelector('#study-settings input[name=rollback_grace_seconds]').removeAttribute('min')"
    )
    lead.click("#study-settings button[type=submit]")
    assert "rollback_grace_seconds" in lead.locator("#settings-error").inner_text()
    lead.fill("#study-settings input[name=rollback_grace_seconds]", "30")
    lead.fill("#study-settings input[name=reading_countdown_seconds]", "60")
    lead.fill(
        "#study-settings textarea[name=mask_selectors]", "#dob\n.record-number"
    )  # the study's own masked fields
    lead.click("#study-settings button[type=submit]")
    lead.wait_for_load_state("load")
    assert "saved=1" in lead.url, lead.locator("main").inner_text()[:800]
    assert (
        lead.locator("#study-settings textarea[name=mask_selectors]").input_value() == "#dob\n.record-number"
    )
    with Session(engine) as db:
        assert db.get(Study, study.id).mask_selectors == ["#dob", ".record-number"]
    shot(lead, screenshot_dir, "study_settings")

    # People: a CSV with a bad row adds nobody and names the row; the good one adds three.
    lead.goto(f"{live.url}/lead/studies/{study.id}/people")
    (tmp_path / "bad.csv").write_text(BAD_CSV)
    lead.set_input_files("#import-people input[type=file]", str(tmp_path / "bad.csv"))
    lead.click("#import-people button[type=submit]")
    errors = lead.locator("#people-errors").inner_text()
    assert "Nothing was imported" in errors and "line 3" in errors and "tertiary" in errors
    assert lead.locator("#people tr[data-code=A7]").count() == 0
    (tmp_path / "people.csv").write_text(PEOPLE_CSV)
    lead.set_input_files("#import-people input[type=file]", str(tmp_path / "people.csv"))
    lead.click("#import-people button[type=submit]")
    lead.wait_for_load_state("load")
    assert "notice=imported" in lead.url, lead.locator("main").inner_text()[:800]
    for code in ("A1", "A2", "D1"):
        assert lead.locator(f"#people tr[data-code={code}]").count() == 1

    # Plan the panel of this study, then open the study.
    lead.goto(f"{live.url}/lead/plan")
    assert "Browser study" in lead.locator(".page-head").inner_text()
    lead.click("button[value=store]")
    lead.wait_for_load_state("load")
    assert lead.url.endswith("/lead/assignments"), lead.locator("main").inner_text()[:800]
    with Session(engine) as db:
        planned = db.exec(select(Assignment).where(Assignment.study_id == study.id)).all()
    assert planned and {a.env_id for a in planned} == {"shop"}
    lead.goto(f"{live.url}/lead/studies/{study.id}")
    with lead.expect_navigation():  # the form posts and redirects; a goto before it ends is aborted
        lead.click("#study-status-form button[value=open]")
    assert lead.locator("#study-status").inner_text() == "open"

    # Copy A1's fresh link from the people page (the clipboard, as a lead would paste it into a mail).
    lead.goto(f"{live.url}/lead/studies/{study.id}/people")
    assert "never" in lead.locator("#people tr[data-code=A1] .signed-in").inner_text()
    lead.click("#people tr[data-code=A1] .copy-link")
    wait_for_text(lead, "#copied", lambda t: "A1" in t)
    copied = lead.evaluate("navigator.clipboard.readText()")
    public_url = (
        live.app.state.settings.public_url
    )  # links name HUMANTRACE_PUBLIC_URL; this test's server is elsewhere
    assert copied.startswith(public_url + "/login/")
    a1_link = live.url + copied.removeprefix(public_url)
    shot(lead, screenshot_dir, "study_people")

    # The live monitor: watch it without reloading while A1 works.
    lead.goto(f"{live.url}/lead/studies/{study.id}/monitor")
    wait_for_text(lead, "#stream-state", lambda t: t == "live")
    lead.evaluate("""() => {
        window.__sameDocument = true;
        window.__seen = [];
        new MutationObserver(() => document.querySelectorAll('#monitor-rows tr[data-code]').forEach(tr =>
            window.__seen.push(tr.innerText))).observe(document.getElementById('monitor-rows'), {childList: true, subtree: true});
    }""")

    annotator_context = browser.new_context(viewport={"width": 1366, "height": 768})
    a1 = annotator_context.new_page()
    sign_in(a1, a1_link)
    a1.wait_for_url("**/assignments")
    assert a1.locator("#study-name").inner_text() == "Browser study"
    assert "shopping tasks" in a1.locator("#study-description").inner_text()
    shot(a1, screenshot_dir, "study_annotator_home")
    with Session(engine) as db:
        a1_id = accounts.get_by_code(db, code="A1").id
        first = db.exec(
            select(Assignment)
            .where(Assignment.study_id == study.id, Assignment.annotator_id == a1_id)
            .order_by(Assignment.order_index, Assignment.id)
        ).first()
    # A1 presses Start; the lead's monitor shows them on it within a few seconds, without a reload.
    a1.locator(f'tr[data-assignment="{first.id}"] button').click()
    a1.wait_for_url(f"**/assignments/{first.id}/control")
    lead.wait_for_selector("#monitor-rows tr[data-code=A1]", timeout=15_000)
    lead.wait_for_timeout(1500)  # the elapsed time counts up between snapshots
    shot(lead, screenshot_dir, "study_monitor")
    a1.goto(f"{live.url}/assignments")  # back to the list: the bot continues from there
    play_assignment(a1, engine, assignment_id=first.id, base_url=live.url, rng=random.Random(1), mistakes=0.0)

    seen = lead.evaluate("window.__seen")
    assert lead.evaluate("window.__sameDocument") is True  # no reload happened
    working = [row for row in seen if row.startswith("A1")]
    assert any("first attempt" in row for row in working), seen
    assert any("warm attempt" in row for row in working), seen
    assert any(" s" in row.split("\t")[3] for row in working if len(row.split("\t")) > 3), seen
    # Once A1 finished, the monitor says nobody is working (still without a reload).
    wait_for_text(lead, "#working-count", lambda t: t == "0", timeout_ms=10_000)
    with Session(engine) as db:
        assert db.get(Assignment, first.id).state == "completed"
    lead.goto(f"{live.url}/lead/studies/{study.id}/people")
    assert "never" not in lead.locator("#people tr[data-code=A1] .signed-in").inner_text()

    # Closed: A1's dashboard says so and offers no Start.
    lead.goto(f"{live.url}/lead/studies/{study.id}")
    with lead.expect_navigation():  # the form posts and redirects; a goto before it ends is aborted
        lead.click("#study-status-form button[value=close]")
    a1.goto(f"{live.url}/assignments")
    assert "closed" in a1.locator("#study-closed").inner_text()
    assert a1.locator("#assignments button", has_text="Start").count() == 0
    assert a1.locator("#assignments a.btn").count() == 0  # nothing to continue either
    shot(a1, screenshot_dir, "study_annotator_closed")
    lead.goto(f"{live.url}/lead/studies/{study.id}")
    trail = lead.locator("#audit-trail").inner_text()
    assert "status" in trail and "open" in trail and "closed" in trail and "L1" in trail
    shot(lead, screenshot_dir, "study_settings_audit")
    lead.goto(f"{live.url}/lead/studies")
    shot(lead, screenshot_dir, "study_list")
    lead_context.close()
    annotator_context.close()
