"""The patient portal declares its secrets (#30): dates of birth, medical record numbers, insurance
member ids and card numbers are masked by the recorder. In Chromium, through the real study flow
(Start, website tab, recorder over its websocket, Evaluate), values typed into those fields and
values shown in them and selected are in no table of the database and no file of the exported
bundle, while an unmasked field's text and an unmasked selection are recorded as usual."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import MetaData
from sqlalchemy import select as sa_select
from sqlmodel import Session, select

from humantrace.annotators import service as accounts
from humantrace.dashboard.bots.service import sign_in
from humantrace.dashboard.exports.bundle import export_bundle
from humantrace.dashboard.studies.models import Assignment, Attempt
from humantrace.dashboard.studies.planning import session_seed
from humantrace.environments import registry
from humantrace.environments.sessions import get_state
from humantrace.recorder.models import RawEvent, Recording
from tests.waits import count_of, wait_for_text

pytestmark = pytest.mark.browser

TYPED = {
    "#proxy-dob": "1937-11-29",  # a family member's date of birth
    "#ins-member": "QXZ7719304",  # an insurance member id
    "#card-number": "4000056655665556",  # a card number
}
VISIBLE = "Wilhelmina Tatters"  # typed into the proxy's name field, which is not masked


@pytest.fixture
def context(study_context):
    return study_context


def _bundle_text(out: Path) -> str:
    parts = []
    for path in sorted(Path(out).rglob("*")):
        if path.suffix == ".parquet":
            parts.append(pd.read_parquet(path).to_csv())
        elif path.is_file():
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return re.sub(r"[0-9a-f]{32,}", "", "".join(parts))


def _stored(engine, *, skip: tuple[str, ...] = ()) -> str:
    """Every row of every table (but `skip`), as text, without hex digests."""
    meta = MetaData()
    meta.reflect(engine)
    with engine.connect() as conn:
        rows = "\n".join(
            repr(row)
            for table in meta.sorted_tables
            if table.name not in skip
            for row in conn.execute(sa_select(table))
        )
    return re.sub(r"[0-9a-f]{32,}", "", rows)


def _type(page, selector: str, text: str) -> None:
    page.click(selector)
    page.keyboard.type(text)


def test_the_portal_masks_what_it_declares_in_the_database_and_the_bundle(
    live, study, client, context, tmp_path
):
    env = registry.get("portal")
    assert {".dob", ".mrn", ".member-id", ".card-number"} <= set(env.mask_selectors)
    engine = live.app.state.engine
    with Session(engine) as db:
        link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code="A1", base_url=live.url
        )
        person = accounts.get_by_code(db, code="A1")
        row = Assignment(
            study_id=study.id,
            annotator_id=person.id,
            task_id="portal-001",
            env_id="portal",
            difficulty="easy",
            condition="clean",
            tier="primary",
            seed=session_seed(study.seed),
        )
        db.add(row)
        db.commit()
        assignment_id = row.id
    control = context.new_page()
    sign_in(control, link)
    with context.expect_page() as popup, control.expect_navigation():
        control.locator(f'tr[data-assignment="{assignment_id}"] button', has_text="Start").click()
    site = popup.value
    site.wait_for_url("**/env/portal/**", timeout=20_000)
    origin = site.url.split("/env/portal")[0]

    # Shown: the patient's date of birth and record number, and an insurance member id, each
    # selected by a double and a triple click (the recorder records selected page text).
    site.goto(origin + "/env/portal/profile")
    site.locator("dd.dob").wait_for()
    shown = {
        "dob": site.locator("dd.dob").inner_text(),
        "mrn": site.locator("dd.mrn").inner_text(),
    }
    for selector in ("dd.dob", "dd.mrn"):
        site.dblclick(selector)
        site.click(selector, click_count=3)
    site.click("text=elena.park@example.com", click_count=3)  # an unmasked selection, recorded as is
    site.wait_for_timeout(300)
    site.goto(origin + "/env/portal/insurance")
    site.locator("dd.member-id").first.wait_for()
    shown["member"] = site.locator("dd.member-id").first.inner_text()
    site.click("dd.member-id >> nth=0", click_count=3)
    site.wait_for_timeout(300)

    # Typed: a family member's date of birth, a member id and a card number (never submitted).
    _type(site, "#ins-member", TYPED["#ins-member"])
    site.goto(origin + "/env/portal/sharing")
    site.locator("#proxy-dob").wait_for()
    _type(site, "#proxy-name", VISIBLE)
    _type(site, "#proxy-dob", TYPED["#proxy-dob"])
    site.keyboard.press("Control+A")  # selecting the masked text reveals nothing either
    site.goto(origin + "/env/portal/billing")
    site.get_by_role("button", name=re.compile(r"^Pay statement")).first.click()
    site.locator("#pay-method").select_option("new")
    _type(site, "#card-number", TYPED["#card-number"])
    site.click("#pay-amount")

    typed_keys = len(VISIBLE) + sum(len(v) for v in TYPED.values())
    with Session(engine) as db:
        recording_id = db.exec(
            select(Attempt.recording_id).where(Attempt.assignment_id == assignment_id)
        ).first()
        env_session_id = db.exec(
            select(Attempt.env_session_id).where(Attempt.assignment_id == assignment_id)
        ).first()
    control.bring_to_front()
    wait_for_text(control, "#events", lambda t: count_of(t) >= typed_keys)
    site.wait_for_timeout(1500)  # the last batch is acknowledged
    with control.expect_navigation():
        control.click("#evaluate")

    with Session(engine) as db:
        recording = db.get(Recording, recording_id)
        assert ".member-id" in (recording.mask_selectors or "")  # the site's selectors reached the recorder
        events = list(db.exec(select(RawEvent).where(RawEvent.recording_id == recording_id)))
        state = get_state(db, session_id=env_session_id)
    keys = [e.key for e in events if e.type == "keydown"]
    assert keys.count("*") >= sum(len(v) for v in TYPED.values()), "keys typed into masked fields are masked"
    assert VISIBLE in "".join(k for k in keys if k and len(k) == 1 and k != "*"), (
        "other fields are not masked"
    )
    selections = [e.value for e in events if e.type == "select"]
    assert "elena" in " ".join(v or "" for v in selections), "an unmasked selection is recorded"
    assert any(v and set(v) == {"*"} for v in selections), "masked selections are recorded, masked"
    profile = state["profile"][0]
    assert shown["dob"] == profile["date_of_birth"] and shown["mrn"] == profile["mrn"]

    everything = _stored(engine)
    # The site's own record of the patient holds the shown values (that is the site's data);
    # nothing the recorder or the study keeps does.
    recorded = _stored(engine, skip=("env_session",))
    out = tmp_path / "bundle"
    export_bundle(engine, out, formats=("parquet", "csv"), study_id=study.id)
    bundle = _bundle_text(out)
    assert VISIBLE in bundle  # the unmasked field is in the trace
    for value in TYPED.values():
        for piece in {value, value[:6], value[-6:]}:
            assert piece not in everything, piece
            assert piece not in bundle, piece
    for value in shown.values():
        assert value not in recorded, value
        assert value not in bundle, value
