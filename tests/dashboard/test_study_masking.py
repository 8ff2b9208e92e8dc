"""A study's own mask selectors (#19): text typed into a field a study declares sensitive is in no
table of the database and no file of the exported bundle, on SQLite and PostgreSQL, in Chromium
through the real study flow (Start, website tab, Evaluate)."""

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
from humantrace.dashboard.studies import service as studies
from humantrace.dashboard.studies.models import Attempt, Study
from humantrace.recorder.models import RawEvent, Recording
from tests.waits import count_of, wait_for_text

pytestmark = pytest.mark.browser

SECRET = "Zq7MRN-4471-Kx"
VISIBLE = "groceries"


@pytest.fixture
def context(study_context):
    return study_context


def _bundle_text(out: Path) -> str:
    """Every file of the bundle as text (Parquet tables read back as CSV), with the manifest's
    checksums removed: a 64-digit hex digest holds any four digits now and then."""
    parts = []
    for path in sorted(Path(out).rglob("*")):
        if path.suffix == ".parquet":
            parts.append(pd.read_parquet(path).to_csv())
        elif path.is_file():
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return re.sub(r"[0-9a-f]{32,}", "", "".join(parts))


def _everything_stored(engine) -> str:
    """Every row of every table, as text, without hex digests (token and checksum hashes)."""
    meta = MetaData()
    meta.reflect(engine)
    with engine.connect() as conn:
        rows = "\n".join(repr(row) for table in meta.sorted_tables for row in conn.execute(sa_select(table)))
    return re.sub(r"[0-9a-f]{32,}", "", rows)


def test_text_in_a_field_the_study_masks_is_nowhere_in_the_database_or_the_bundle(
    live, study, make_assignment, context, tmp_path
):
    engine = live.app.state.engine
    with Session(engine) as db:
        row = db.get(Study, study.id)
        # the lead's setting, as `humantrace study set mask_selectors="#body"` or the settings page store it
        studies.update_study(
            db, study=row, changes={"mask_selectors": "#body", "reading_countdown_seconds": "0"}, actor="L1"
        )
        assert db.get(Study, study.id).mask_selectors == ["#body"]
        link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code="A1", base_url=live.url
        )
    assignment_id = make_assignment("A1")
    control = context.new_page()
    sign_in(control, link)
    with context.expect_page() as popup, control.expect_navigation():
        control.locator(f'tr[data-assignment="{assignment_id}"] button', has_text="Start").click()
    website = popup.value
    website.wait_for_url("**/env/lab/**", timeout=20_000)
    website.click("#title")
    website.keyboard.type(VISIBLE)
    website.click("#body")
    website.keyboard.type(SECRET)
    website.keyboard.press("Control+A")  # selecting the masked text reveals nothing either
    website.click("#title")
    with Session(engine) as db:
        recording_id = db.exec(
            select(Attempt.recording_id).where(Attempt.assignment_id == assignment_id)
        ).first()
    control.bring_to_front()
    wait_for_text(control, "#events", lambda t: count_of(t) >= len(VISIBLE) + len(SECRET))
    website.wait_for_timeout(1500)  # the last batch is acknowledged
    with control.expect_navigation():
        control.click("#evaluate")

    with Session(engine) as db:
        recording = db.get(Recording, recording_id)
        assert "#body" in (
            recording.mask_selectors or ""
        )  # the study's selector reached the recorder, beside the site's
        keys = [
            e.key
            for e in db.exec(
                select(RawEvent).where(RawEvent.recording_id == recording_id, RawEvent.type == "keydown")
            )
        ]
    assert keys.count("*") >= len(SECRET), "the keys typed into #body are recorded, masked"
    assert "".join(k for k in keys if k and len(k) == 1 and k != "*").startswith(VISIBLE), (
        "other fields are not masked"
    )

    stored = _everything_stored(engine)
    out = tmp_path / "bundle"
    export_bundle(engine, out, formats=("parquet", "csv"), study_id=study.id)
    bundle = _bundle_text(out)
    assert VISIBLE in bundle  # the unmasked field's fill is in the cleaned trace
    for piece in {SECRET, SECRET[:4], SECRET[-4:], "4471"}:
        assert piece not in stored, piece
        assert piece not in bundle, piece
