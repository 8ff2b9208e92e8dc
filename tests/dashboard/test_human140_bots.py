"""The Human-140 panel as a real study, played by the bots: one assignment per site, end to end.

Issue #31's full panel: the paper's design (K=4 over the seven sites, seed 42; four primary and four
duplicate-tier annotators, designers kept off the sites they designed) is imported into the app's
database through the real command line (`study create`, `annotators import`, `panel plan`,
`panel check`), then for one planned assignment of a site a bot signs in by a login link and plays
it through the real dashboard in real Chromium: Start (the website tab opens inside the click),
the reading countdown's Start now, the task's oracle on the website, Evaluate, Start warm, the
oracle again, Evaluate, the rating form. Both attempts must end evaluated with a passing verdict,
and the study's bundle (`export bundle`) must hold them under the planned task, condition, seed 42
and the annotator's coded id.

Which assignment: the site's planned primary assignment in the condition that alternates along
`PAPER_ENVS` (shop clean, mail intervention, booking clean, ...), earliest in its annotator's
queue (then by code), so both conditions are played.

Which sites: `./dev test --full` plays all seven. The default run (`.ci/run`) plays a fixed sample
of two, to keep CI's time: the two sites whose names have the smallest SHA-256 digests
(`DEFAULT_SITES`: booking, played clean, and mail, played with its intervention), the same on every
run and machine.
"""

from __future__ import annotations

import csv
import hashlib
import random
from pathlib import Path

import pytest
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from humantrace.annotators.planning import check_plan, examples, plan_panel
from humantrace.dashboard.bots.service import play_assignment, sign_in
from humantrace.dashboard.cli import app as cli
from humantrace.dashboard.studies.models import Assignment, Attempt, Study

pytestmark = pytest.mark.browser

SEED = 42
STUDY = "Human-140"


def _sample(sites: tuple[str, ...], k: int) -> tuple[str, ...]:
    """A fixed sample of `k` sites: the smallest SHA-256 digests of their names."""
    return tuple(sorted(sites, key=lambda s: hashlib.sha256(s.encode()).hexdigest())[:k])


DEFAULT_SITES = _sample(examples.PAPER_ENVS, 2)


def _site_params() -> list:
    return [
        pytest.param(site, id=site, marks=() if site in DEFAULT_SITES else pytest.mark.full)
        for site in examples.PAPER_ENVS
    ]


@pytest.fixture(params=["sqlite"])
def db_url(request, sqlite_url):
    # The bots' flow is the same on both databases (tests/dashboard/test_flow.py covers PostgreSQL).
    return sqlite_url


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def human140(live, monkeypatch, tmp_path) -> Study:
    """The Human-140 study in the live app's database, imported and planned by the command line."""
    settings = live.app.state.settings
    monkeypatch.setenv("HUMANTRACE_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("HUMANTRACE_SECRET_KEY", settings.secret_key)
    roster = tmp_path / "roster.csv"
    with roster.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["code", "role", "tier", "designed", "name"])
        for person in examples.paper_roster():
            writer.writerow([person.code, "annotator", person.tier, ";".join(sorted(person.designed)), ""])
    run("study", "create", STUDY, "--env", ",".join(examples.PAPER_ENVS), "--seed", str(SEED))
    run("annotators", "import", str(roster), "--study", STUDY)
    out = run("panel", "plan", "--per-cell", "4", "--study", STUDY)
    assert "280 primary and 35 duplicate task-conditions" in out, out
    assert "All 315 assignments follow every planning rule." in run("panel", "check", "--study", STUDY)
    run("study", "open", "--study", STUDY)
    with Session(live.app.state.engine, expire_on_commit=False) as db:
        return db.exec(select(Study).where(Study.name == STUDY)).one()


def _stored_plan(engine, study: Study) -> set[tuple[str, str, str, str, str, int]]:
    from humantrace.annotators.models import Annotator

    with Session(engine) as db:
        codes = {p.id: p.code for p in db.exec(select(Annotator))}
        return {
            (codes[a.annotator_id], a.task_id, a.env_id, str(a.condition), str(a.tier), a.seed)
            for a in db.exec(select(Assignment).where(Assignment.study_id == study.id))
        }


def _pick(engine, study: Study, site: str) -> Assignment:
    condition = ("clean", "intervention")[examples.PAPER_ENVS.index(site) % 2]
    with Session(engine, expire_on_commit=False) as db:
        rows = db.exec(
            select(Assignment).where(
                Assignment.study_id == study.id,
                Assignment.env_id == site,
                Assignment.condition == condition,
                Assignment.tier == "primary",
            )
        ).all()
        from humantrace.annotators.models import Annotator

        codes = {p.id: p.code for p in db.exec(select(Annotator))}
        return min(rows, key=lambda a: (a.order_index, codes[a.annotator_id]))


def test_default_sample_is_two_fixed_sites_one_per_condition():
    assert len(DEFAULT_SITES) == 2 and set(DEFAULT_SITES) <= set(examples.PAPER_ENVS)
    assert DEFAULT_SITES == _sample(tuple(reversed(examples.PAPER_ENVS)), 2)  # not the order's choice


@pytest.mark.parametrize("site", _site_params())
def test_bot_plays_a_human140_assignment_end_to_end(
    site, human140, live, study_context, tmp_path: Path, screenshot_dir
):
    from humantrace.annotators import service as accounts
    from humantrace.annotators.models import Annotator
    from humantrace.dashboard.studies.planning import catalogue_tasks
    from humantrace.exports.bundle import read_bundle, verify_bundle

    engine = live.app.state.engine
    # The stored assignments are the paper's panel, planned on the real catalogue: the same plan
    # the planner makes from the catalogue and the roster, and it passes the planner's checker.
    tasks = [t for t in catalogue_tasks() if t.env_id in examples.PAPER_ENVS]
    roster = examples.paper_roster()
    plan = plan_panel(tasks=tasks, annotators=roster, per_cell=4, seed=SEED)
    assert check_plan(plan, tasks=tasks, annotators=roster, per_cell=4) == []
    assert _stored_plan(engine, human140) == {
        (r.annotator, r.task_id, r.env_id, str(r.condition), str(r.tier), SEED) for r in plan.assignments
    }

    chosen = _pick(engine, human140, site)
    with Session(engine) as db:
        person = db.get(Annotator, chosen.annotator_id)
        assert person is not None
        code = person.code
        assert site not in next(p.designed for p in roster if p.code == code)
        link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code=code, base_url=live.url
        )

    # The bot: the login link, the assignment list, the control and website tabs, the rating form.
    page = study_context.new_page()
    sign_in(page, link)
    page.goto(live.url + "/assignments")
    assert chosen.id is not None
    play_assignment(
        page,
        engine,
        assignment_id=chosen.id,
        base_url=live.url,
        rng=random.Random(f"{SEED}:{site}"),
        mistakes=0.0,
    )
    assert "Assignment completed" in page.locator("main").inner_text()
    page.screenshot(path=str(screenshot_dir / f"human140_bots_{site}.png"))

    with Session(engine) as db:
        stored = db.get(Assignment, chosen.id)
        assert stored is not None and stored.state == "completed"
        attempts = db.exec(
            select(Attempt).where(Attempt.assignment_id == chosen.id).order_by(col(Attempt.id))
        ).all()
        # Nothing else of the study was touched.
        others = db.exec(select(Attempt).where(Attempt.assignment_id != chosen.id)).all()
    assert others == []
    assert [(a.phase, a.status, a.outcome) for a in attempts] == [
        ("cold", "ended", "evaluated"),
        ("warm", "ended", "evaluated"),
    ]
    for attempt in attempts:
        assert attempt.verdict is not None and attempt.passed is True, (attempt.phase, attempt.verdict)
        assert attempt.score == 1.0 and attempt.raw_events and attempt.raw_events > 0

    bundle = tmp_path / "bundle"
    run("export", "bundle", str(bundle), "--study", STUDY)
    assert verify_bundle(bundle) == []
    exported = read_bundle(bundle, tables=["attempts", "verdicts", "ratings"])
    assert exported.attempts is not None and exported.verdicts is not None and exported.ratings is not None
    rows = exported.attempts.sort_values("attempt_id")
    assert list(rows["attempt_id"]) == [a.id for a in attempts]
    assert list(rows["phase"]) == ["cold", "warm"]
    assert set(rows["task_id"]) == {chosen.task_id} and set(rows["env_id"]) == {site}
    assert set(rows["condition"]) == {chosen.condition} and set(rows["seed"]) == {SEED}
    assert set(rows["annotator"]) == {code} and code[0] in "AD" and code[1:].isdigit()
    assert list(rows["passed"]) == [True, True]
    assert set(exported.verdicts["attempt_id"]) == set(rows["attempt_id"])
    assert len(exported.ratings) == 1 and exported.ratings.iloc[0]["annotator"] == code
