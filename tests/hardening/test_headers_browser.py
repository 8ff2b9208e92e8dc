"""The dashboard's Content-Security-Policy in real Chromium: every page loads without a violation and
still works, and a login page leaks nothing through Referer.

A bot (the same code as `humantrace bots`) plays an assignment through the real pages: the list,
Start, the control tab's websocket, Evaluate, the warm attempt and the rating form. Then a lead
opens every dashboard and lead page found in `app.routes` (with real ids filled in). Every page of
both browser contexts reports `securitypolicyviolation` events and CSP console errors; there must
be none, and the behaviour the pages' scripts carry (live monitor, copy link, progress bars,
confirm before deactivating) must still happen.
"""

from __future__ import annotations

import http.server
import random
import re
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from sqlmodel import Session, select

from tests.waits import wait_for_text

pytestmark = pytest.mark.browser

SITE_SIDE = re.compile(r"^/(env|api/env|env-static|website|enter|recorder)(/|$)")
# Every page of a context reports the violations its document sees.
WATCH = """
window.addEventListener("securitypolicyviolation", (e) => {
  console.error("CSP violation: " + e.violatedDirective + " blocked " + e.blockedURI + " in " + e.documentURI);
});
"""


class Violations:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def watch(self, context) -> None:
        context.add_init_script(WATCH)
        context.on("page", self._page)
        for page in context.pages:
            self._page(page)

    def _page(self, page) -> None:
        def console(message) -> None:
            text = message.text
            if "Content Security Policy" in text or "CSP violation" in text or "Refused to" in text:
                self.seen.append(f"{page.url}: {text}")

        page.on("console", console)


class Server:
    def __init__(self, app, port: int) -> None:
        from humantrace.recorder.protocol import uvicorn_ws_options

        self.url = f"http://127.0.0.1:{port}"
        options = uvicorn_ws_options()
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, access_log=False, log_config=None, **options)
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(self.url + "/login", timeout=1)
                return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


@pytest.fixture
def served(kit, sqlite_template, tmp_path):
    from humantrace.dashboard.app import create_app

    url = kit.copy_template(sqlite_template, tmp_path)
    kit.register_lab()
    port = kit.free_port()
    app = create_app(kit.settings(url, tmp_path / "data", port=port, run_monitor=True))
    server = Server(app, port).start()
    yield app, server
    server.stop()


def shot(page, directory: Path, name: str) -> None:
    page.set_viewport_size({"width": 1366, "height": 800})
    page.screenshot(path=str(directory / f"headers_{name}.png"), full_page=True)


def test_every_dashboard_page_loads_and_works_under_its_csp(served, kit, browser, screenshot_dir):
    from fastapi.routing import iter_route_contexts

    from humantrace.dashboard.bots.service import play_assignment, sign_in

    app, server = served
    engine = app.state.engine
    maker = kit.CastMaker(engine, kit.make_study(engine))
    owner, other, lead = maker.person("A"), maker.person("B"), maker.person("L", role="lead")
    first = maker.assignment(owner, state="not_started")
    rated = maker.assignment(other, state="rating")  # a rating for the lead's review pages
    violations = Violations()

    # The annotator: a whole assignment through the pages, as a bot plays it.
    annotator = browser.new_context(viewport={"width": 1366, "height": 800})
    violations.watch(annotator)
    page = annotator.new_page()
    sign_in(page, kit.login_link(engine, owner.code, server.url))
    page.wait_for_url("**/assignments")
    shot(page, screenshot_dir, "annotator_home")
    play_assignment(
        page,
        engine,
        assignment_id=first["assignment_id"],
        base_url=server.url,
        rng=random.Random(3),
        mistakes=0.0,
    )
    assert "completed" in page.url
    from humantrace.dashboard.studies.models import Assignment

    with Session(engine) as db:
        done = db.exec(select(Assignment).where(Assignment.id == first["assignment_id"])).one()
        assert done.state == "completed"
    annotator.close()

    # The lead: every dashboard page of app.routes that renders.
    context = browser.new_context(viewport={"width": 1366, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    violations.watch(context)
    page = context.new_page()
    sign_in(page, kit.login_link(engine, lead.code, server.url))
    page.goto(f"{server.url}/lead/studies")
    with page.expect_navigation():
        page.click(f"form[action='/lead/studies/{maker.study_id}/use'] button")
    ids = {
        "study_id": maker.study_id,
        "assignment_id": rated["assignment_id"],
        "attempt_id": rated["attempt_id"],
        "code": other.code,
    }
    with Session(engine) as db:
        from humantrace.dashboard.studies.models import Rating

        ids["rating_id"] = db.exec(select(Rating.id)).first() or 0
    visited = []
    for route in iter_route_contexts(app.routes):
        path = route.path
        if (
            "GET" not in (getattr(route, "methods", None) or ())
            or SITE_SIDE.match(path)
            or path.startswith("/control")
        ):
            continue
        if path.endswith("/stream") or path in ("/openapi.json", "/logout") or "{token}" in path:
            continue
        names = re.findall(r"\{(\w+)\}", path)
        if any(name not in ids for name in names):
            continue
        filled = re.sub(r"\{(\w+)\}", lambda m: str(ids[m.group(1)]), path)
        response = page.goto(server.url + filled)
        if (
            response is None
            or response.status != 200
            or "text/html" not in response.headers.get("content-type", "")
        ):
            continue
        page.wait_for_load_state("load")
        assert "content-security-policy" in response.headers, filled
        visited.append(filled)
    assert {"/lead", "/lead/assignments", "/lead/review", "/lead/plan", "/lead/exports"} <= set(visited), (
        visited
    )
    assert any(p.endswith("/monitor") for p in visited) and any(p.endswith("/people") for p in visited), (
        visited
    )

    # The scripts moved out of the templates still do their work.
    page.goto(f"{server.url}/lead")
    widths = page.eval_on_selector_all(".bar > span", "spans => spans.map(s => s.style.width)")
    assert widths and all(w.endswith("%") for w in widths), widths
    shot(page, screenshot_dir, "lead_home")
    page.goto(f"{server.url}/lead/studies/{maker.study_id}/monitor")
    wait_for_text(page, "#stream-state", lambda t: t == "live", timeout_ms=30_000)
    shot(page, screenshot_dir, "lead_monitor")
    page.goto(f"{server.url}/lead/studies/{maker.study_id}/people")
    code = other.code.upper()  # codes are stored upper-case
    page.click(f"#people tr[data-code={code}] .copy-link")
    wait_for_text(page, "#copied", lambda t: code in t)
    shot(page, screenshot_dir, "lead_people")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click(f"form[action$='/people/{code}/deactivate'] button")
    page.wait_for_timeout(300)
    assert asked and code in asked[0]
    assert page.url.endswith("/people")  # dismissed: not deactivated
    page.goto(f"{server.url}/lead/assignments/{rated['assignment_id']}")
    shot(page, screenshot_dir, "lead_assignment")
    context.close()

    assert violations.seen == [], "\n".join(violations.seen)


class _RefererLog(http.server.BaseHTTPRequestHandler):
    seen: list[str | None] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path == "/page":  # not the favicon the browser asks for next (its referrer is /page)
            type(self).seen.append(self.headers.get("Referer"))
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<!doctype html><title>elsewhere</title><p>third party</p>")

    def log_message(self, *args) -> None:
        pass


def test_a_login_page_sends_no_referrer_to_a_third_party(served, kit, browser):
    app, server = served
    engine = app.state.engine
    maker = kit.CastMaker(engine, kit.make_study(engine))
    person = maker.person("A")
    link = kit.login_link(engine, person.code, server.url)
    third = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RefererLog)
    _RefererLog.seen = []
    threading.Thread(target=third.serve_forever, daemon=True).start()
    elsewhere = f"http://localhost:{third.server_address[1]}/page"
    context = browser.new_context()
    try:
        page = context.new_page()
        for start in (link, f"{server.url}/login"):
            page.goto(start)
            # a link on the page to another site (as a mail client's preview or an extension may add)
            page.evaluate(
                "(href) => { const a = document.createElement('a'); a.id = 'out'; a.href = href; a.textContent = 'out';"
                " document.body.append(a); }",
                elsewhere,
            )
            with page.expect_navigation():
                page.click("#out")
            assert page.locator("p").inner_text() == "third party"
    finally:
        context.close()
        third.shutdown()
    assert len(_RefererLog.seen) == 2 and _RefererLog.seen == [None, None], _RefererLog.seen
