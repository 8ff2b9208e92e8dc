"""The study dimension of access control: two studies side by side never see each other's people,
assignments, ratings or exports, whoever asks (an annotator of one, a person in both, a lead)."""

from __future__ import annotations

import io
import zipfile
from dataclasses import replace

import pandas as pd
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session


@pytest.fixture
def two(kit, sqlite_template, tmp_path):
    """An app with studies one and two: a (one), b (two), c (both), a lead; each study has a
    completed assignment with a flagged rating, and c has one assignment in each."""
    from humantrace.annotators import service as accounts
    from humantrace.dashboard.app import create_app

    kit.register_lab()
    app = create_app(kit.settings(kit.copy_template(sqlite_template, tmp_path), tmp_path / "data"))
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as client:
        engine = app.state.engine
        one, two = kit.make_study(engine, "Study one"), kit.make_study(engine, "Study two")
        m1, m2 = kit.CastMaker(engine, one), kit.CastMaker(engine, two)
        a, b, c, lead = m1.person("A"), m2.person("B"), m1.person("C"), m1.person("L", role="lead")
        a, b, c, lead = (
            replace(p, code=p.code.upper()) for p in (a, b, c, lead)
        )  # codes are stored upper-case
        with Session(engine) as db:
            accounts.add_annotator(db, code=c.code, tier="duplicate", study_id=two)
        yield dict(
            client=client,
            app=app,
            one=one,
            two=two,
            a=a,
            b=b,
            c=c,
            lead=lead,
            done1=m1.assignment(a, state="completed"),
            done2=m2.assignment(b, state="completed"),
            c1=m1.assignment(c),
            c2=m2.assignment(c),
        )


def as_(client, person):
    client.cookies.clear()
    client.cookies.set("ht_session", person.session_token)
    client.headers.clear()
    client.headers.update({"Accept": "text/html", "X-CSRF-Token": person.csrf})
    return client


def test_an_annotator_sees_only_the_studies_they_are_in(two):
    client = as_(two["client"], two["a"])
    picker = client.get("/studies").text
    assert "Study one" in picker and "Study two" not in picker
    assert client.post(f"/studies/{two['two']}/choose").status_code == 404
    mine = client.get("/assignments")
    assert mine.status_code == 200 and "Study one" in mine.text and "Study two" not in mine.text
    assert f'data-assignment="{two["done1"]["assignment_id"]}"' in mine.text
    assert f'data-assignment="{two["done2"]["assignment_id"]}"' not in mine.text
    # b's assignment in study two answers like one that does not exist
    assert client.get(f"/assignments/{two['done2']['assignment_id']}/control").status_code == 404


def test_a_person_in_both_studies_picks_one_and_sees_only_its_work(two):
    client = as_(two["client"], two["c"])
    assert client.get("/assignments").headers["location"] == "/studies"  # several studies: pick one
    picker = client.get("/studies").text
    assert "Study one" in picker and "Study two" in picker
    assert client.post(f"/studies/{two['two']}/choose").status_code == 303
    page = client.get("/assignments").text
    assert "Study two" in page
    assert f'data-assignment="{two["c2"]["assignment_id"]}"' in page
    assert f'data-assignment="{two["c1"]["assignment_id"]}"' not in page
    assert client.post(f"/studies/{two['one']}/choose").status_code == 303
    page = client.get("/assignments").text
    assert (
        f'data-assignment="{two["c1"]["assignment_id"]}"' in page
        and f'data-assignment="{two["c2"]["assignment_id"]}"' not in page
    )


def lead_in(two, study_key: str):
    client = as_(two["client"], two["lead"])
    assert client.post(f"/lead/studies/{two[study_key]}/use").status_code == 303
    return client


@pytest.mark.parametrize("mine, theirs", [("one", "two"), ("two", "one")])
def test_a_lead_in_one_study_sees_none_of_the_other(two, mine, theirs):
    client = lead_in(two, mine)
    me, other = ("a", "b") if mine == "one" else ("b", "a")
    done, foreign = two[f"done{1 if mine == 'one' else 2}"], two[f"done{2 if mine == 'one' else 1}"]
    listing = client.get("/lead/assignments").text
    assert two[me].code in listing and two[other].code not in listing
    assert (
        f'/lead/assignments/{done["assignment_id"]}"' in listing
        and f'/lead/assignments/{foreign["assignment_id"]}"' not in listing
    )
    review = client.get("/lead/review?show=all").text
    assert (
        f'/lead/review/{done["rating_id"]}"' in review
        and f'/lead/review/{foreign["rating_id"]}"' not in review
    )
    people = client.get(f"/lead/studies/{two[mine]}/people").text
    assert two[me].code in people and two[other].code not in people and two["c"].code in people
    overview = client.get("/lead").text
    assert two[me].code in overview and two[other].code not in overview

    bundle = client.post("/lead/exports/bundle.zip", data={"format": "csv"})
    assert bundle.status_code == 200
    with zipfile.ZipFile(io.BytesIO(bundle.content)) as archive:
        attempts = pd.read_csv(archive.open("attempts.csv"))
        ratings = pd.read_csv(archive.open("ratings.csv"))
        manifest = archive.read("manifest.json").decode()
    assert set(attempts["assignment_id"]) == {done["assignment_id"]}
    assert set(attempts["annotator"]) == {two[me].code}
    assert set(ratings["assignment_id"]) == {done["assignment_id"]}
    assert f"Study {mine}" in manifest and f"Study {theirs}" not in manifest


def test_exports_and_the_monitor_are_per_study(two):
    from humantrace.dashboard.exports.bundle import export_bundle
    from humantrace.dashboard.studies.monitor import snapshot
    from humantrace.dashboard.studies.service import StudyError

    engine = two["app"].state.engine
    with pytest.raises(StudyError, match="2 studies"):
        export_bundle(engine, two["app"].state.settings.data_dir / "guess")
    out = two["app"].state.settings.data_dir / "two"
    export_bundle(engine, out, formats=("csv",), study_id=two["two"])
    assert set(pd.read_csv(out / "attempts.csv")["annotator"]) == {two["b"].code}

    # c works in study two: only study two's monitor shows them
    client = as_(two["client"], two["c"])
    client.post(f"/studies/{two['two']}/choose")
    assert client.post(f"/assignments/{two['c2']['assignment_id']}/start").status_code == 303
    assert [w["code"] for w in snapshot(engine, two["two"])["working"]] == [two["c"].code]
    assert snapshot(engine, two["one"])["working"] == []
