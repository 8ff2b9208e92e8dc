"""`humantrace study ...`, `--study` on every study command, and `annotators import|deactivate|links`,
on SQLite and PostgreSQL (through the real command line, on a migrated database)."""

from __future__ import annotations

import csv

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from humantrace.dashboard.cli import app
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Assignment, Outcome, Study, StudyChange

runner = CliRunner()


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture
def cli_env(monkeypatch, tmp_path, migrated_url, client):
    monkeypatch.setenv("HUMANTRACE_DATABASE_URL", migrated_url)
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HUMANTRACE_SECRET_KEY", client.app.state.settings.secret_key)
    return client.app.state.engine


def study_named(engine, name: str) -> Study:
    with Session(engine, expire_on_commit=False) as db:
        return db.exec(select(Study).where(Study.name == name)).one()


def test_study_create_list_show_set_and_lifecycle(cli_env):
    out = run(
        "study",
        "create",
        "Pilot",
        "--env",
        "shop",
        "--seed",
        "7",
        "--description",
        "Shopping tasks.",
        "--setting",
        "rollback_grace_seconds=15",
        "--setting",
        "show_score_to_annotators=yes",
    )
    assert "Created study 'Pilot'" in out and "draft" in out
    study = study_named(cli_env, "Pilot")
    assert (
        study.seed,
        study.envs,
        study.rollback_grace_seconds,
        study.show_score_to_annotators,
        study.status,
    ) == (7, ["shop"], 15, True, "draft")
    assert "Pilot" in run("study", "list")
    shown = run("study", "show", "--study", "Pilot")
    assert "rollback_grace_seconds" in shown and "15" in shown and "Shopping tasks." in shown

    run("study", "set", "reading_countdown_seconds=5", "require_rating=true", "--study", "Pilot")
    study = study_named(cli_env, "Pilot")
    assert study.reading_countdown_seconds == 5 and study.require_rating is True

    # Validated: an unknown key names the allowed ones; an out-of-range value names the range; nothing changes.
    out = run("study", "set", "grace=3", "--study", "Pilot", code=1)
    assert "unknown setting grace" in out and "rollback_grace_seconds" in out
    out = run(
        "study", "set", "reading_countdown_seconds=1", "hard_time_limit_seconds=5", "--study", "Pilot", code=1
    )
    assert "hard_time_limit_seconds" in out and "greater than or equal to 60" in out
    assert study_named(cli_env, "Pilot").reading_countdown_seconds == 5  # all or nothing
    assert "not KEY=VALUE" in run("study", "set", "seed", "--study", "Pilot", code=1)
    # Study-level mask selectors (#19): separated by ;, shown as such, each checked.
    run("study", "set", "mask_selectors=#dob; .record-number", "--study", "Pilot")
    assert study_named(cli_env, "Pilot").mask_selectors == ["#dob", ".record-number"]
    assert "#dob; .record-number" in run("study", "show", "--study", "Pilot")
    assert "at most 500 characters" in run(
        "study", "set", "mask_selectors=#" + "x" * 600, "--study", "Pilot", code=1
    )
    assert "mask_selectors" in run("study", "set", "--help")
    assert "unknown environment" in run("study", "create", "Other", "--env", "nowhere", code=1)
    assert "already exists" in run("study", "create", "Pilot", code=1)

    assert "is open" in run("study", "open", "--study", "Pilot")
    assert "is closed" in run("study", "close", "--study", "Pilot")
    assert "is archived" in run("study", "archive", "--study", "Pilot")
    assert "cannot become closed" in run("study", "close", "--study", "Pilot", code=1)
    assert "Pilot" not in run("study", "list")
    assert "Pilot" in run("study", "list", "--all")


def test_commands_refuse_to_guess_between_several_studies(cli_env, tmp_path):
    run("study", "create", "Alpha")
    run("annotators", "add", "A1")  # one study: it is the default
    run("study", "create", "Beta")
    for command in (
        ["annotators", "list"],
        ["annotators", "add", "A2"],
        ["panel", "check"],
        ["study", "show"],
        ["export", "bundle", str(tmp_path / "b")],
        ["clean"],
        ["study", "open"],
        ["bots", "--annotators", "A1"],
        ["annotators", "links", "--out", str(tmp_path / "l.csv")],
    ):
        out = run(*command, code=1)
        assert "2 studies" in out and "--study" in out and "Alpha" in out and "Beta" in out, (command, out)
    assert "A1" in run("annotators", "list", "--study", "Alpha")
    assert "A1" not in run("annotators", "list", "--study", "Beta")
    # The same person joins the second study with another tier.
    run("annotators", "add", "A1", "--tier", "duplicate", "--study", "Beta")
    assert "duplicate" in run("annotators", "list", "--study", "Beta")
    assert "no study 'Gamma'" in run("annotators", "list", "--study", "Gamma", code=1)
    run("study", "archive", "--study", "Beta")
    assert "A1" in run("annotators", "list")  # one study left that is not archived


def _signed_in_home(client, sign_in_http, url: str) -> str:
    """Sign in with a login link on a fresh cookie jar; the text of the page `/` leads to."""
    client.cookies.clear()
    assert sign_in_http(client, "/login/" + url.strip().split("/login/")[1]).status_code == 303
    return client.get("/", follow_redirects=True).text


def test_annotators_link_signs_a_person_of_several_studies_into_the_named_one(
    cli_env, client, sign_in_http, tmp_path
):
    run("study", "create", "Alpha", "--description", "Alpha tasks.")
    run("study", "create", "Beta", "--description", "Beta tasks.")
    run("annotators", "add", "A1", "--study", "Alpha")
    run("annotators", "add", "A1", "--tier", "duplicate", "--study", "Beta")
    run("annotators", "add", "A2", "--study", "Beta")
    run("annotators", "add", "L1", "--role", "lead")
    # In two studies and no --study: refused, naming both.
    out = run("annotators", "link", "A1", code=1)
    assert "A1 is in 2 studies" in out and "--study" in out and "Alpha" in out and "Beta" in out
    # --study: the link opens that study's assignments, not the picker; for each of the person's studies.
    for name, other in (("Beta", "Alpha"), ("Alpha", "Beta")):
        home = _signed_in_home(client, sign_in_http, run("annotators", "link", "A1", "--study", name))
        assert f"{name} tasks." in home and f"{other} tasks." not in home and "Choose a study" not in home
    # A link naming no study (as before) still shows the picker to a person in several studies.
    with Session(cli_env) as db:
        from humantrace.annotators import service as accounts

        plain = accounts.create_login_link(
            db, secret_key=client.app.state.settings.secret_key, code="A1", base_url="http://x"
        )
    assert "Alpha" in _signed_in_home(client, sign_in_http, plain) and "Beta" in client.get("/studies").text
    # One study: it is the default; a study the person is not in is refused; a lead's link may name any study.
    assert "Beta tasks." in _signed_in_home(client, sign_in_http, run("annotators", "link", "A2"))
    assert "A2 is not an active member of 'Alpha'" in run(
        "annotators", "link", "A2", "--study", "Alpha", code=1
    )
    assert "no study 'Gamma'" in run("annotators", "link", "A1", "--study", "Gamma", code=1)
    assert "/login/" in run("annotators", "link", "L1", "--study", "Alpha")
    # The mail-merge CSV's links sign each person into the study it was written for.
    run("annotators", "links", "--study", "Alpha", "--out", str(tmp_path / "alpha.csv"))
    (a1,) = [r for r in csv.DictReader((tmp_path / "alpha.csv").open()) if r["code"] == "A1"]
    assert "Alpha tasks." in _signed_in_home(client, sign_in_http, a1["url"])
    run("annotators", "deactivate", "A2", "--study", "Beta")
    assert "A2 is in no study" in run("annotators", "link", "A2", code=1)


GOOD = "code,role,tier,designed,name\nA1,annotator,primary,shop,Ann\nA2,,primary,,Bo\nD1,annotator,duplicate,mail;shop,Cy\n"
BAD = "code,role,tier,designed,name\nA1,annotator,primary,shop,Ann\nA2,annotator,tertiary,,Bo\nA1,annotator,primary,,Again\n9X,annotator,primary,,\nA3,annotator,primary,nowhere,\n"


def test_annotators_import_is_all_or_nothing_then_links_and_deactivate(cli_env, tmp_path):
    run("study", "create", "Pilot")
    bad = tmp_path / "bad.csv"
    bad.write_text(BAD)
    out = run("annotators", "import", str(bad), code=1)
    assert "nothing was imported" in out
    assert "line 3" in out and "tertiary" in out
    assert "line 4" in out and "also on line 2" in out
    assert "line 5" in out and "'9X' is not valid" in out
    assert "line 6: unknown environment(s) nowhere" in out  # every row's problem, with its line
    listing = run("annotators", "list")
    assert "A1" not in listing and "A2" not in listing

    unknown_env = tmp_path / "env.csv"
    unknown_env.write_text("code,designed\nA3,nowhere\n")
    assert "unknown environment(s) nowhere" in run("annotators", "import", str(unknown_env), code=1)
    assert "unknown column(s) email" in run(
        "annotators", "import", str(_write(tmp_path, "c.csv", "code,email\nA1,x@y\n")), code=1
    )

    good = tmp_path / "people.csv"
    good.write_text(GOOD)
    assert "Imported 3 people" in run("annotators", "import", str(good))
    assert "Added L7 (lead)" in run("annotators", "add", "L7", "--role", "lead", "--name", "Lee")
    listing = run("annotators", "list")
    assert all(code in listing for code in ("A1", "A2", "D1", "L7")) and "mail, shop" in listing
    assert "already in this study" in run("annotators", "import", str(good), code=1)

    links = tmp_path / "links.csv"
    assert "Wrote 3 login links" in run("annotators", "links", "--out", str(links))
    rows = list(csv.DictReader(links.open()))
    assert [r["code"] for r in rows] == ["A1", "A2", "D1"] and all("/login/" in r["url"] for r in rows)
    assert len({r["url"] for r in rows}) == 3 and rows[0]["name"] == "Ann"

    assert "Deactivated A2 in 'Pilot'" in run("annotators", "deactivate", "A2")
    run("annotators", "links", "--out", str(links))
    assert [r["code"] for r in csv.DictReader(links.open())] == ["A1", "D1"]
    assert "Deactivated L7 (lead account)" in run("annotators", "deactivate", "L7")
    assert "no annotator with code Z1" in run("annotators", "deactivate", "Z1", code=1)


def test_login_links_csv_neutralises_formulas_in_names(cli_env, tmp_path):
    """A name a spreadsheet would run (`=HYPERLINK(...)`, `+cmd`) is written with a leading '."""
    run("study", "create", "Pilot")
    people = tmp_path / "people.csv"
    people.write_text(
        'code,name\nA1,"=HYPERLINK(""http://evil"";""x"")"\nA2,+cmd\nA3,@SUM(A1)\nA4,Plain Name\n'
    )
    run("annotators", "import", str(people))
    links = tmp_path / "links.csv"
    run("annotators", "links", "--out", str(links))
    rows = {r["code"]: r for r in csv.DictReader(links.open(newline="", encoding="utf-8"))}
    assert rows["A1"]["name"] == '\'=HYPERLINK("http://evil";"x")'
    assert rows["A2"]["name"] == "'+cmd" and rows["A3"]["name"] == "'@SUM(A1)"
    assert rows["A4"]["name"] == "Plain Name" and all("/login/" in r["url"] for r in rows.values())
    cells = [cell for row in csv.reader(links.open(newline="", encoding="utf-8")) for cell in row]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))]


def test_people_csv_rows_are_refused_by_line_a_nul_name_and_a_lead_among_them(cli_env, tmp_path):
    """A NUL in a name (PostgreSQL cannot store it; it was a database traceback) and a lead (leads
    are added one by one, as docs/running-a-study.md says) are refused with their line, and every
    other problem in the same file keeps its own line number (unknown environments said `line ?`)."""
    run("study", "create", "Pilot")
    people = tmp_path / "people.csv"
    people.write_bytes(
        b"code,role,tier,designed,name\nA1,annotator,primary,,Ann\x00ie\nL9,lead,,,Boss\n"
        b"A3,annotator,primary,nowhere,Cy\nA4,,,,Tab\there\n"
    )
    out = " ".join(run("annotators", "import", str(people), code=1).split())
    assert "nothing was imported" in out and "Traceback" not in out
    assert "line 2: name: the name holds the control character U+0000; remove it" in out
    assert "line 3: L9 is a lead; leads manage every study and are added one by one" in out
    assert "line 4: unknown environment(s) nowhere" in out and "line ?" not in out
    assert "line 5: name: the name holds the control character U+0009" in out
    assert "A1" not in run("annotators", "list")
    assert "control character U+0000" in run("annotators", "add", "A5", "--name", "x\x00y", code=1)
    assert "Added L9 (lead)" in run("annotators", "add", "L9", "--role", "lead", "--name", "Boss")


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_panel_plan_and_export_act_on_the_named_study(cli_env, tmp_path):
    run("study", "create", "Pilot", "--env", "shop")
    run("study", "create", "Main", "--env", "shop", "--seed", "9")
    people = _write(
        tmp_path, "p.csv", "code,tier\nA1,primary\nA2,primary\nA3,primary\nA4,primary\nD1,duplicate\n"
    )
    run("annotators", "import", str(people), "--study", "Main")
    out = run("panel", "plan", "--per-cell", "1", "--study", "Main")
    assert "Stored" in out or "assignments" in out
    assert "follow every planning rule" in run("panel", "check", "--study", "Main")
    assert "no assignments yet" in run("panel", "check", "--study", "Pilot", code=1)
    assert "plan cannot be made" in run(
        "panel", "plan", "--per-cell", "1", "--study", "Pilot", code=1
    )  # nobody in Pilot
    out = run("export", "bundle", str(tmp_path / "bundle"), "--format", "csv", "--study", "Main")
    assert "'Main'" in out
    assert "matches its manifest" in " ".join(
        run("export", "verify", str(tmp_path / "bundle")).split()
    )  # rich wraps long paths
    run("clean", "--study", "Main")


def test_settings_changes_after_the_first_attempt_are_audited_and_seed_is_fixed(
    cli_env, make_assignment, person, study
):
    run("study", "set", "rollback_grace_seconds=20", "--study", study.name)
    with Session(cli_env) as db:
        assert db.exec(select(StudyChange)).all() == []  # before any attempt: not audited
        flow.start_assignment(db, assignment_id=make_assignment("A1"), annotator=person("A1"))
    run("study", "set", "rollback_grace_seconds=30", "--study", study.name, "--by", "L1")
    assert "cannot change once attempts are recorded" in run(
        "study", "set", "seed=8", "--study", study.name, code=1
    )
    run("study", "close", "--study", study.name, "--by", "L1")
    with Session(cli_env) as db:
        trail = [
            (c.actor, c.key, c.old, c.new) for c in db.exec(select(StudyChange).order_by(StudyChange.id))
        ]
    assert trail == [("L1", "rollback_grace_seconds", "20", "30"), ("L1", "status", "open", "closed")]
    shown = run("study", "show", "--study", study.name)
    assert "audit trail" in shown and "rollback_grace_seconds" in shown


def test_a_closed_study_refuses_new_starts(cli_env, make_assignment, person, study):
    assignment_id = make_assignment("A1")
    run("study", "close", "--study", study.name)
    with Session(cli_env) as db, pytest.raises(flow.StudyNotOpen, match="closed"):
        flow.start_assignment(db, assignment_id=assignment_id, annotator=person("A1"))
    run("study", "open", "--study", study.name)
    with Session(cli_env) as db:
        attempt = flow.start_assignment(db, assignment_id=assignment_id, annotator=person("A1"))
        flow.begin_recording(db, attempt_id=attempt.id, annotator=person("A1"))  # the website starts ("go")
        flow.end_attempt(db, attempt_id=attempt.id, annotator=person("A1"), outcome=Outcome.abandoned)


def test_panel_plans_four_tasks_per_cell_over_four_real_sites(cli_env, tmp_path):
    """K=4, as the paper's panel, over the real catalogue's sites that have four tasks per cell;
    `--env` takes a comma-separated list as well as repeats; a site short of tasks is named."""
    run("study", "create", "K4", "--env", "shop,mail", "--env", "booking,portal")
    people = _write(
        tmp_path,
        "p.csv",
        "code,tier\n"
        + "".join(f"A{i},primary\n" for i in range(1, 5))
        + "".join(f"D{i},duplicate\n" for i in range(1, 5)),
    )
    run("annotators", "import", str(people), "--study", "K4")
    out = run("panel", "plan", "--per-cell", "4", "--study", "K4")
    assert "Panel: 80 base tasks in 20 cells; 160 primary and 20 duplicate task-conditions" in " ".join(
        out.split()
    )
    assert "All 180 assignments follow every planning rule" in " ".join(
        run("panel", "check", "--study", "K4").split()
    )
    with Session(cli_env) as db:
        rows = db.exec(select(Assignment)).all()
    assert {a.env_id for a in rows} == {"shop", "mail", "booking", "portal"}
    short = run("panel", "plan", "--per-cell", "40", "--study", "K4", "--env", "shop", "--dry-run", code=1)
    assert "cell (shop, easy) has 4 tasks with a variant; --per-cell 40 needs 40" in " ".join(short.split())
