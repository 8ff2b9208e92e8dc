"""Bots: scripted annotators that play assignments through the real pages in real Chromium.

Like oTree's bots they use exactly the code paths a person uses: the login link, the assignment
list, the control tab (countdown, Start now, Evaluate, Start warm attempt, the rating form) and
the environment window, where they run the task's oracle solution (or, with probability
`mistakes`, its plausible wrong solution). They are the demo data generator
(`humantrace bots`, `serve --demo --bots`) and a test fixture.

A bot needs the resolved targets to act on, as a person reads them from the instruction; it takes
them from the database (bots run beside the server), never from the environment tab.

By default a bot plays flat out: each attempt takes as long as its solution's clicks. With a
`Pace` it takes a person's time instead: it reads the instruction before the cold attempt, keeps
each attempt's website open for a person's attempt time, and spends a while on the rating form
(`HUMAN_PACE`, used by `benchmarks/load.py`). The clicks themselves stay quick; the rest of the
time the pages sit open, as a person's do while they read.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import urlsplit

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from humantrace.annotators import service as accounts
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Assignment, AssignmentState

log = logging.getLogger("humantrace.bots")
T = TypeVar("T")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@dataclass(frozen=True)
class Pace:
    """Seconds (low, high; drawn uniformly) that a person spends on each step of an assignment."""

    reading: tuple[float, float]  # the instruction, before the cold attempt
    cold: tuple[float, float]  # the cold attempt, from opening the website to Evaluate
    warm: tuple[float, float]  # the warm attempt, likewise
    rating: tuple[float, float]  # the rating form


# The BreakingWeb paper's Human-140 timings (Section 5): warm attempts take a median of 34 s and
# cold ones about twice as long. The reading and rating times are our assumption, not the paper's.
HUMAN_PACE = Pace(reading=(5, 20), cold=(45, 90), warm=(20, 48), rating=(10, 25))


def _pause(
    page,
    rng: random.Random | None,
    seconds: tuple[float, float] | None,
    *,
    since: float | None = None,
    until: float | None = None,
) -> None:
    """Wait a drawn number of seconds (less the time spent since `since`), as a person would, but
    not past `until` (a `time.monotonic()` value: then the bot hurries to finish)."""
    if seconds is None or rng is None:
        return
    now = time.monotonic()
    wait = rng.uniform(*seconds) - (now - since if since is not None else 0.0)
    if until is not None:
        wait = min(wait, until - now)
    if wait > 0:
        page.wait_for_timeout(wait * 1000)


@dataclass
class BotReport:
    code: str
    completed: list[int] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


OUTAGE_SECONDS = 30.0  # how long a bot waits out a database that is away, as the pages do


def _through_outage(read: Callable[..., T], *args) -> T:
    """`read(*args)` (a bot's own look into the database), tried again while the database is briefly
    away, so that a short outage ends no bot that the pages themselves would carry through."""
    from humantrace.core.requestlog import DATABASE_ERRORS

    deadline = time.monotonic() + OUTAGE_SECONDS
    while True:
        try:
            return read(*args)
        except DATABASE_ERRORS:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)  # a poll of the database, not a wait for a page


def _targets_and_instruction(engine: Engine, assignment_id: int) -> tuple[dict, str, str]:
    from humantrace.dashboard.flow import envs
    from humantrace.environments import sessions

    with Session(engine) as db:
        assignment = flow.get_assignment(db, assignment_id=assignment_id, annotator=None)
        attempt = flow.current_attempt(db, assignment=assignment)
        if attempt is None:
            raise RuntimeError(f"assignment {assignment_id} has no attempt in progress")
        targets = sessions.get_targets(db, session_id=attempt.env_session_id)
        return targets, envs.instruction(db, session_id=attempt.env_session_id), assignment.task_id


def _solution(task_id: str, *, wrong: bool) -> Callable:
    from humantrace.environments import catalog, registry
    from humantrace.environments.oracles import load_oracles

    env = registry.get(catalog.get_task(task_id).env_id)
    found = load_oracles(env)
    table = found.wrong if wrong and task_id in found.wrong else found.oracles
    return table[task_id]


def sign_in(page, link: str) -> None:
    """Open a personal login link and press its Sign in button, as a person does."""
    page.goto(link)
    button = page.locator("form[action^='/login/'] button[type=submit]")
    if button.count() != 1:
        raise RuntimeError(
            f"the login link did not offer a sign-in: {page.locator('main').inner_text()[:300]}"
        )
    with page.expect_navigation():
        button.click()


def _next_assignment(engine: Engine, code: str, study_id: int | None = None) -> int | None:
    with Session(engine) as db:
        person = accounts.get_by_code(db, code=code)
        query = select(Assignment).where(
            Assignment.annotator_id == person.id, Assignment.state != AssignmentState.completed
        )
        if study_id is not None:
            query = query.where(Assignment.study_id == study_id)
        row = db.exec(query.order_by(col(Assignment.order_index), col(Assignment.id))).first()
        return row.id if row else None


def _condition(engine: Engine, assignment_id: int) -> str:
    # From the database, as the targets: the pages an annotator sees never name the condition.
    with Session(engine) as db:
        return flow.get_assignment(db, assignment_id=assignment_id, annotator=None).condition


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def play_attempt(
    control,
    env_page,
    engine: Engine,
    *,
    assignment_id: int,
    wrong: bool,
    rng: random.Random | None = None,
    pace: Pace | None = None,
    until: float | None = None,
) -> None:
    """From a control tab in an active attempt: let the website start, solve, press Evaluate."""
    from humantrace.environments.oracles import OracleContext

    cold = "First attempt" in control.locator(".pill-phase").inner_text()
    if control.locator("#start-now").is_visible():  # the cold attempt's reading countdown
        _pause(control, rng, pace.reading if pace is not None else None, until=until)
        control.bring_to_front()  # the website tab opened over it: a background tab may not take input
        control.click("#start-now")
    env_page.wait_for_url("**/env/**", timeout=60_000)
    env_page.wait_for_load_state("load")
    opened = time.monotonic()
    targets, instruction, task_id = _through_outage(_targets_and_instruction, engine, assignment_id)
    context = OracleContext(
        targets=targets,
        condition=_through_outage(_condition, engine, assignment_id),
        instruction=instruction,
        base_url=_origin(env_page.url),
        task_id=task_id,
    )
    _solution(task_id, wrong=wrong)(env_page, context)
    _pause(
        env_page,
        rng,
        (pace.cold if cold else pace.warm) if pace is not None else None,
        since=opened,
        until=until,
    )
    env_page.wait_for_timeout(700)  # let the recorder flush its last batch before the attempt ends
    control.bring_to_front()
    with control.expect_navigation(timeout=60_000):
        control.click("#evaluate")
    control.wait_for_selector("#start-warm, #rating-form", timeout=60_000)
    env_page.wait_for_url("**/website/ended", timeout=60_000)


def open_assignment(page, assignment_id: int):
    """Start (or continue) an assignment from the list page; returns the website tab.

    Start opens the website tab inside the click, as for a person; a continued assignment's
    website tab is opened with the control tab's "Reopen website" link (a fresh ticket)."""
    row = page.locator(f'tr[data-assignment="{assignment_id}"]')
    start = row.locator("button", has_text="Start")
    if start.count():
        with page.context.expect_page() as popup, page.expect_navigation(timeout=60_000):
            start.click()
        return popup.value
    row.locator("a.btn").first.click()
    page.wait_for_url(f"**/assignments/{assignment_id}/control", timeout=60_000)
    url = page.evaluate(f"fetch('/assignments/{assignment_id}/website').then(r => r.json()).then(d => d.url)")
    website = page.context.new_page()
    website.goto(url)
    return website


def play_assignment(
    page,
    engine: Engine,
    *,
    assignment_id: int,
    base_url: str,
    rng: random.Random,
    mistakes: float,
    pace: Pace | None = None,
    until: float | None = None,
) -> None:
    """Start (or continue) an assignment on the assignment list page and play it to completion."""
    env_page = open_assignment(page, assignment_id)
    page.wait_for_url(f"**/assignments/{assignment_id}/control", timeout=60_000)
    play_attempt(
        page,
        env_page,
        engine,
        assignment_id=assignment_id,
        wrong=rng.random() < mistakes,
        rng=rng,
        pace=pace,
        until=until,
    )
    page.wait_for_selector("#start-warm")
    with page.expect_navigation(timeout=60_000):
        page.click("#start-warm")  # no second countdown: the website tab reloads into the warm attempt
    play_attempt(
        page,
        env_page,
        engine,
        assignment_id=assignment_id,
        wrong=rng.random() < mistakes,
        rng=rng,
        pace=pace,
        until=until,
    )
    page.wait_for_selector("#rating-form", timeout=60_000)
    _pause(page, rng, pace.rating if pace is not None else None, until=until)
    for name in ("clarity", "realism", "unusual", "fun_value"):
        page.check(f'input[name="{name}"][value="{rng.randint(3, 5)}"]')
    page.click('button[value="submit"]')
    page.wait_for_url("**/assignments?notice=completed", timeout=60_000)
    env_page.close()


def run_bots(
    *,
    engine: Engine,
    secret_key: str,
    base_url: str,
    codes: list[str],
    assignments: int,
    mistakes: float = 0.0,
    seed: int = 0,
    headless: bool = True,
    progress: Callable[[str], None] | None = None,
    pace: Pace | None = None,
    until: float | None = None,
    study_id: int | None = None,
) -> list[BotReport]:
    """Each bot logs in by a fresh link and completes up to `assignments` of its assignments, one
    bot after another, flat out unless `pace` is given. After `until` (a `time.monotonic()` value)
    no bot starts another assignment, and a paced bot cuts its pauses short.

    Playwright's sync API refuses to run where an asyncio loop is running (a notebook, or a
    process already driving another sync Playwright); the bots then run in a thread of their own."""
    run = functools.partial(
        _run_bots,
        engine=engine,
        secret_key=secret_key,
        base_url=base_url,
        codes=codes,
        assignments=assignments,
        mistakes=mistakes,
        seed=seed,
        headless=headless,
        progress=progress,
        pace=pace,
        until=until,
        study_id=study_id,
    )
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="bots") as pool:
        return pool.submit(run).result()


def _run_bots(
    *,
    engine: Engine,
    secret_key: str,
    base_url: str,
    codes: list[str],
    assignments: int,
    mistakes: float,
    seed: int,
    headless: bool,
    progress: Callable[[str], None] | None,
    pace: Pace | None,
    until: float | None,
    study_id: int | None,
) -> list[BotReport]:
    from playwright.sync_api import sync_playwright

    from humantrace.core import playwright_stack

    playwright_stack.install()
    reports = []
    with sync_playwright() as pw:
        # Popup blocking on, as in people's browsers: the website tab must open inside the Start click.
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=headless,
            ignore_default_args=["--disable-popup-blocking"],
        )
        try:
            for code in codes:
                report = BotReport(code=code)
                reports.append(report)
                rng = random.Random(f"{seed}:{code}")
                with Session(engine) as db:
                    link = accounts.create_login_link(db, secret_key=secret_key, code=code, base_url=base_url)
                context = browser.new_context(viewport={"width": 1366, "height": 800})
                page = context.new_page()
                sign_in(page, link)
                if study_id is not None:  # a person in several studies picks this one, as a person would
                    page.goto(base_url + "/studies")
                    choice = page.locator(f'[data-study="{study_id}"] button')
                    if choice.count():
                        choice.click()
                        page.wait_for_url("**/assignments")
                for _ in range(assignments):
                    if until is not None and time.monotonic() >= until:
                        break
                    assignment_id = _through_outage(_next_assignment, engine, code, study_id)
                    if assignment_id is None:
                        break
                    page.goto(base_url + "/assignments")
                    try:
                        play_assignment(
                            page,
                            engine,
                            assignment_id=assignment_id,
                            base_url=base_url,
                            rng=rng,
                            mistakes=mistakes,
                            pace=pace,
                            until=until,
                        )
                        report.completed.append(assignment_id)
                    except Exception as exc:  # report and stop this bot; others go on
                        log.exception("bot %s failed on assignment %s", code, assignment_id)
                        report.failed.append(f"assignment {assignment_id}: {exc}")
                        break
                    if progress:
                        progress(f"{code} completed assignment {assignment_id}")
                context.close()
        finally:
            browser.close()
    return reports
