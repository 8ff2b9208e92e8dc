"""Annotators are blind to the condition: everything the browser receives for the clean and the
intervention assignment of one task (dashboard, control tab, rating form, page titles, URLs,
HTML, scripts, the website's network responses) is scanned for the benchmark's words and ids, and
both conditions load the same scripts and stylesheets. Real Chromium against a real server."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Error as PlaywrightError
from sqlmodel import Session

from humantrace.annotators import service as accounts
from humantrace.dashboard.bots.service import sign_in
from humantrace.dashboard.studies.models import Study

pytestmark = pytest.mark.browser

# The condition, difficulty, primitive, variant and intervention, as words and as lab-001's ids.
FORBIDDEN = (
    "intervention",
    "naturalness",
    "frontier",
    "difficulty",
    "primitive",
    "variant",
    "verification",
    "lab-001-v1",
    "decoy_notes",
    "shuffle_list",
    "misleading_success",
    "target_primitive",
    "condition",
)
TEXT_TYPES = ("text/", "javascript", "json", "css")


@pytest.fixture(params=["sqlite"])
def db_url(request, sqlite_url):
    return sqlite_url


def _record(context):
    seen: list[dict] = []

    def on_response(response):
        kind = response.headers.get("content-type", "")
        body = ""
        if any(t in kind for t in TEXT_TYPES):
            try:
                body = response.text()
            except Exception:  # a redirect or a body the page navigated away from
                body = ""
        seen.append(
            {
                "url": response.url,
                "type": response.request.resource_type,
                "body": body,
                "headers": " ".join(f"{k}: {v}" for k, v in response.headers.items()),
            }
        )

    context.on("response", on_response)
    return seen


def _play(browser, live, code: str, assignment_id: int) -> tuple[list[dict], list[str]]:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    seen = _record(context)
    titles: list[str] = []
    with Session(live.app.state.engine) as db:
        link = accounts.create_login_link(
            db, secret_key=live.app.state.settings.secret_key, code=code, base_url=live.url
        )
    control = context.new_page()
    control.on("dialog", lambda dialog: dialog.accept())
    sign_in(control, link)
    titles.append(control.title())
    with context.expect_page() as popup, control.expect_navigation():
        control.locator(f'tr[data-assignment="{assignment_id}"] button').click()
    env = popup.value
    env.wait_for_url("**/website/cover")
    titles.append(control.title())
    titles.append(env.title())
    control.bring_to_front()  # the website tab opened over it: a background tab may not take input
    control.click("#start-now")
    for phase in ("cold", "warm"):
        env.wait_for_url("**/env/lab/**")
        env.wait_for_load_state("load")
        env.wait_for_timeout(800)
        titles.append(env.title())
        env.locator("li.note").first.click()
        env.wait_for_timeout(300)
        with control.expect_navigation():
            control.click("#abandon")
        titles.append(control.title())
        env.wait_for_url("**/website/ended")
        titles.append(env.title())
        if phase == "cold":
            try:
                with control.expect_navigation():
                    control.click("#start-warm")
            except PlaywrightError as exc:
                # The form's navigation was superseded by the page's next one (a CI run saw it
                # once); the warm website loading below is what this waits for anyway.
                if "ERR_ABORTED" not in str(exc):
                    raise
            control.wait_for_load_state("load")
    control.wait_for_selector("#rating-form")
    titles.append(control.title())
    urls = [p.url for p in context.pages]
    context.close()
    return seen, titles + urls


def test_nothing_the_annotator_receives_names_the_condition(
    live, study, make_assignment, popup_blocking_browser
):
    browser = popup_blocking_browser
    with Session(live.app.state.engine) as db:
        row = db.get(Study, study.id)
        row.reading_countdown_seconds, row.rollback_grace_seconds = 30, 30
        db.add(row)
        db.commit()
    clean = make_assignment("A1", condition="clean")
    intervention = make_assignment("A2", condition="intervention")
    received = {
        "clean": _play(browser, live, "A1", clean),
        "intervention": _play(browser, live, "A2", intervention),
    }

    leaks = []
    for condition, (responses, titles_and_urls) in received.items():
        texts = [(r["url"], r["url"] + " " + r["headers"] + " " + r["body"]) for r in responses]
        texts += [("title/url", t) for t in titles_and_urls]
        for where, text in texts:
            for word in FORBIDDEN:
                if re.search(re.escape(word), text, re.IGNORECASE):
                    leaks.append((condition, word, where))
    assert leaks == [], leaks

    def assets(responses) -> dict[str, set[str]]:
        # Every body read of each script and stylesheet; a load the page navigated away from
        # before its body could be read gives no body (not an empty file).
        found: dict[str, set[str]] = {}
        for r in responses:
            if r["type"] in ("script", "stylesheet"):
                path = re.sub(r"\?.*$", "", r["url"].split("//", 1)[1].split("/", 1)[1])
                found.setdefault(path, set()).update({r["body"]} if r["body"] else set())
        return found

    clean_assets, intervention_assets = assets(received["clean"][0]), assets(received["intervention"][0])
    assert sorted(clean_assets) == sorted(intervention_assets), (
        "both conditions load the same scripts and stylesheets"
    )
    assert clean_assets["env-static/ux.js"] and intervention_assets["env-static/ux.js"]
    both_read = [path for path in clean_assets if clean_assets[path] and intervention_assets[path]]
    assert len(both_read) >= len(clean_assets) - 1, "nearly every file's body was read in both conditions"
    assert {p: clean_assets[p] for p in both_read} == {p: intervention_assets[p] for p in both_read}, (
        "and the same files"
    )
