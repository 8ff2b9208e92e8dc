"""#20 item 5: the assignment list never offers "Continue" for an assignment whose control tab has
gone silent (the monitor is about to roll it back); it says what is happening instead. SQLite and
PostgreSQL."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlmodel import Session, select

from humantrace.annotators.models import utcnow
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.flow.routes import CONTROL_GONE_SECONDS
from humantrace.dashboard.studies.models import TabPresence


def _row(html: str, assignment_id: int) -> str:
    found = re.search(rf'<tr[^>]*data-assignment="{assignment_id}".*?</tr>', html, re.S)
    assert found, html[:2000]
    return found.group(0)


def test_no_continue_for_an_assignment_about_to_be_rolled_back(client, make_assignment, person, login_as):
    assignment_id = make_assignment("A1")
    with Session(client.app.state.engine) as db:
        flow.start_assignment(db, assignment_id=assignment_id, annotator=person("A1"))
        db.add(TabPresence(assignment_id=assignment_id, tab="control", last_seen_at=utcnow()))
        db.commit()
    login_as(client, "A1")
    row = _row(client.get("/assignments").text, assignment_id)
    assert "Continue" in row  # the control tab is alive: the person may go back to it

    with Session(client.app.state.engine) as db:
        beat = db.exec(select(TabPresence).where(TabPresence.assignment_id == assignment_id)).one()
        beat.last_seen_at = utcnow() - timedelta(seconds=CONTROL_GONE_SECONDS + 2)
        db.add(beat)
        db.commit()
    row = _row(client.get("/assignments").text, assignment_id)
    assert "Continue" not in row and "going back to “Not started”" in row
