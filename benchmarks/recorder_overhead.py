"""Main-thread cost of the recorder on a busy page, in Debian's Chromium.

The same scripted interaction (2,000 input events: pointer moves, clicks, keystrokes, input
events, scrolls, dispatched in the page at 10 per animation frame) runs on a busy page (3,000-cell table, a per-frame ticker rewriting text and attributes,
a mousemove handler that highlights the row under the pointer) with and without the recorder.
The page is served by the real recorder server; the recorder is injected by the middleware when
the recorder cookie is set, exactly as for environment pages, and streams to that server.
Main-thread time is CDP `Performance.getMetrics` TaskDuration over the interaction (ScriptDuration
is reported too). A third condition runs rrweb's recorder (`rrweb-record`, installed from npm in
benchmarks/rrweb/: `cd benchmarks/rrweb && npm install`) on the same page, its events serialised
to JSON as a transport would; the bytes column is what each recorder produced (the humantrace
recorder: the text of the frames it sent; rrweb: its events' JSON). Runs alternate between the
conditions, round by round; medians are reported.

    .venv/bin/python benchmarks/recorder_overhead.py [--events 2000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CHROMIUM = os.environ.get("HUMANTRACE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SECRET = "overhead-benchmark-secret"
RRWEB_JS = (
    Path(__file__).resolve().parent
    / "rrweb"
    / "node_modules"
    / "rrweb"
    / "dist"
    / "record"
    / "rrweb-record.min.js"
)

# Counts what the humantrace recorder sends (socket frames, HTTP fallback and beacons), in bytes.
COUNT_SENT_JS = """(() => {
  window.__sent = { bytes: 0 };
  const size = (data) => (typeof data === 'string' ? new Blob([data]).size : 0);
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) { window.__sent.bytes += size(data); return send.call(this, data); };
  const beacon = navigator.sendBeacon && navigator.sendBeacon.bind(navigator);
  if (beacon) navigator.sendBeacon = (url, data) => { window.__sent.bytes += size(data); return beacon(url, data); };
})();"""

# rrweb records into a callback; serialising each event is what any transport would do first.
START_RRWEB_JS = """(() => {
  window.__sent = { bytes: 0, events: 0 };
  rrwebRecord({ emit(event) { window.__sent.bytes += new Blob([JSON.stringify(event)]).size; window.__sent.events++; } });
})();"""

BUSY_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Busy shop</title>
<style>
 td { padding: 2px 4px; border: 1px solid #ddd; } tr.hot { background: #ffe; } td:hover { background: #eef; }
 #feed { height: 200px; overflow: auto; } .tick { color: #333; }
</style></head>
<body>
<header><input id="search" type="text" size="40"> <button id="go">Search</button> <span id="clock" class="tick"></span></header>
<div id="feed"></div>
<table id="grid"></table>
<script>
  var grid = document.getElementById('grid');
  for (var r = 0; r < 150; r++) {
    var tr = document.createElement('tr');
    for (var c = 0; c < 20; c++) { var td = document.createElement('td'); td.textContent = r + ':' + c; tr.appendChild(td); }
    grid.appendChild(tr);
  }
  var feed = document.getElementById('feed');
  for (var i = 0; i < 100; i++) { var p = document.createElement('p'); p.textContent = 'news item ' + i; feed.appendChild(p); }
  var n = 0, clock = document.getElementById('clock'), cells = grid.getElementsByTagName('td');
  (function tick() {  // a busy page: text and attribute churn on every frame
    n++;
    clock.textContent = 'tick ' + n;
    for (var k = 0; k < 10; k++) cells[(n * 7 + k * 131) % cells.length].setAttribute('data-v', n);
    requestAnimationFrame(tick);
  })();
  var hot = null;
  document.addEventListener('mousemove', function (e) {
    var row = e.target.closest && e.target.closest('tr');
    if (row !== hot) { if (hot) hot.className = ''; if (row) row.className = 'hot'; hot = row; }
  });
  document.getElementById('go').addEventListener('click', function () {
    var p = document.createElement('p'); p.textContent = 'searched ' + document.getElementById('search').value;
    feed.insertBefore(p, feed.firstChild);
  });
</script>
</body></html>
"""


def start_server(database_url: str, pages: Path, port: int):
    import uvicorn

    from humantrace.recorder.protocol import uvicorn_ws_options
    from humantrace.recorder.standalone import create_app

    app = create_app(database_url=database_url, secret_key=SECRET, pages_dir=pages)
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, access_log=False, log_level="warning", **uvicorn_ws_options()
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return server, thread


def new_token(database_url: str) -> tuple[int, str]:
    from sqlmodel import Session, SQLModel, create_engine

    from humantrace.recorder import service
    from humantrace.recorder.models import RECORDER_TABLES

    engine = create_engine(database_url)
    SQLModel.metadata.create_all(engine, tables=list(RECORDER_TABLES))
    with Session(engine) as session:
        rec = service.create_recording(session, kind="standalone", label="overhead")
        assert rec.id is not None
        token = service.issue_token(secret_key=SECRET, recording_id=rec.id)
        rid = rec.id
    engine.dispose()
    return rid, token


def stored_events(database_url: str, recording_id: int) -> int:
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    with engine.connect() as conn:
        count = conn.execute(
            text("SELECT COUNT(*) FROM raw_event WHERE recording_id = :r"), {"r": recording_id}
        ).scalar_one()
    engine.dispose()
    return count


# The interaction is dispatched inside the page, 10 events per animation frame, and the busy page
# does its work once per frame, so both conditions cover the same number of frames (200 + 40) and
# the same page work, however slow the machine is: Playwright input goes through CDP round trips
# whose latency varies with load. The recorder handles these events exactly like trusted ones
# (its listeners do not look at isTrusted).
INTERACTION_JS = """async (total) => {
  const cells = document.getElementsByTagName('td');
  const search = document.getElementById('search');
  const go = document.getElementById('go');
  const feed = document.getElementById('feed');
  let sent = 0, step = 0;
  const fire = (target, event) => { target.dispatchEvent(event); sent++; };
  await new Promise((resolve) => {
    function frame() {
      for (let k = 0; k < 10 && sent < total; k++) {
        const i = step++, phase = i % 30;
        const cell = cells[(i * 37) % cells.length];
        const x = 40 + (i * 23) % 900, y = 260 + (i * 17) % 500;
        if (phase < 18) fire(cell, new MouseEvent('mousemove', {bubbles: true, clientX: x, clientY: y}));
        else if (phase === 18) fire(cell, new MouseEvent('click', {bubbles: true, clientX: x, clientY: y}));
        else if (phase < 26) {
          // a browser's order: keydown, then the value changes, then input
          const key = String.fromCharCode(97 + i % 26);
          fire(search, new KeyboardEvent('keydown', {bubbles: true, key: key}));
          search.value += key;
          fire(search, new InputEvent('input', {bubbles: true}));
        } else if (phase === 26) fire(go, new MouseEvent('click', {bubbles: true, clientX: 300, clientY: 12}));
        else { feed.scrollTop = (feed.scrollTop + 37) % 2000; sent++; }  // the browser fires the scroll event
      }
      if (sent < total) requestAnimationFrame(frame); else resolve(sent);
    }
    requestAnimationFrame(frame);
  });
  return sent;
}"""


WAIT_FRAMES_JS = """(frames) => new Promise((resolve) => {
  let left = frames;
  (function next() { if (--left <= 0) resolve(); else requestAnimationFrame(next); })();
})"""


def measure(browser, base_url: str, token: str | None, events: int, *, rrweb: bool = False) -> dict:
    context = browser.new_context(viewport={"width": 1366, "height": 800})
    try:
        if token:
            context.add_cookies([{"name": "htrec", "value": token, "url": base_url}])
            context.add_init_script(COUNT_SENT_JS)
        if rrweb:
            context.add_init_script(RRWEB_JS.read_text(encoding="utf-8") + "\n" + START_RRWEB_JS)
        page = context.new_page()
        page.goto(base_url + "/env/busy.html")
        page.wait_for_timeout(1000)  # page and recorder settled (socket open, first ack in)
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable", {"timeDomain": "threadTicks"})

        def metrics() -> dict:
            return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

        before = metrics()
        sent_before = page.evaluate("() => window.__sent ? window.__sent.bytes : 0")
        started = time.perf_counter()
        dispatched = page.evaluate(INTERACTION_JS, events)
        page.evaluate(WAIT_FRAMES_JS, 40)  # >= 667 ms: the recorder flushes what it holds (every 500 ms)
        after = metrics()
        wall = time.perf_counter() - started
        has_recorder = page.locator("script[src='/recorder/recorder.js']").count() == 1
        sent = page.evaluate("() => window.__sent || null")
        return {
            "bytes": (sent["bytes"] - sent_before) if sent else 0,
            "rrweb_events": (sent or {}).get("events"),
            "task_ms": (after["TaskDuration"] - before["TaskDuration"]) * 1000,
            "script_ms": (after["ScriptDuration"] - before["ScriptDuration"]) * 1000,
            "wall_s": wall,
            "dispatched": dispatched,
            "has_recorder": has_recorder,
        }
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    import socket

    from playwright.sync_api import sync_playwright

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="ht-overhead-") as tmp:
        pages = Path(tmp) / "pages"
        pages.mkdir()
        (pages / "busy.html").write_text(BUSY_PAGE, encoding="utf-8")
        database_url = f"sqlite:///{Path(tmp) / 'overhead.db'}"
        rid, token = new_token(database_url)
        server, thread = start_server(database_url, pages, port)
        base_url = f"http://127.0.0.1:{port}"
        runs: dict[str, list[dict]] = {"with": [], "without": [], "rrweb": []}
        if not RRWEB_JS.exists():
            sys.exit(f"rrweb is not installed: cd {RRWEB_JS.parents[4]} && npm install")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                measure(browser, base_url, None, 60)  # warm-up: caches, JIT, fonts
                for _ in range(args.repeats):  # alternating rounds: machine load hits every condition alike
                    runs["without"].append(measure(browser, base_url, None, args.events))
                    runs["with"].append(measure(browser, base_url, token, args.events))
                    runs["rrweb"].append(measure(browser, base_url, None, args.events, rrweb=True))
                browser.close()
        finally:
            server.should_exit = True
            thread.join(timeout=15)
        recorded = stored_events(database_url, rid)

    assert all(r["has_recorder"] for r in runs["with"]) and not any(
        r["has_recorder"] for r in runs["without"]
    )
    with_ms = statistics.median(r["task_ms"] for r in runs["with"])
    without_ms = statistics.median(r["task_ms"] for r in runs["without"])
    recorded_per_run = recorded / args.repeats
    result = {
        "main_thread_ms_with": round(with_ms, 1),
        "main_thread_ms_without": round(without_ms, 1),
        "overhead_ratio": round(with_ms / without_ms, 3),
        "per_event_ms": round((with_ms - without_ms) / recorded_per_run, 4),
        "script_ms_with": round(statistics.median(r["script_ms"] for r in runs["with"]), 1),
        # ScriptDuration moves far less with machine load than TaskDuration: the recorder's own cost.
        "script_ms_per_event": round(
            (
                statistics.median(r["script_ms"] for r in runs["with"])
                - statistics.median(r["script_ms"] for r in runs["without"])
            )
            / recorded_per_run,
            4,
        ),
        "script_ms_without": round(statistics.median(r["script_ms"] for r in runs["without"]), 1),
        "input_events": runs["with"][0]["dispatched"],
        "recorded_events_per_run": round(recorded_per_run),
        "wall_s_with": round(statistics.median(r["wall_s"] for r in runs["with"]), 2),
        "wall_s_without": round(statistics.median(r["wall_s"] for r in runs["without"]), 2),
        "repeats": args.repeats,
        "rrweb_main_thread_ms": round(statistics.median(r["task_ms"] for r in runs["rrweb"]), 1),
        "rrweb_script_ms": round(statistics.median(r["script_ms"] for r in runs["rrweb"]), 1),
        "rrweb_overhead_ratio": round(statistics.median(r["task_ms"] for r in runs["rrweb"]) / without_ms, 3),
        "bytes_per_recorded_event": round(
            statistics.median(r["bytes"] for r in runs["with"]) / recorded_per_run, 1
        ),
        "bytes_per_input_event": round(statistics.median(r["bytes"] for r in runs["with"]) / args.events, 1),
        "rrweb_bytes_per_input_event": round(
            statistics.median(r["bytes"] for r in runs["rrweb"]) / args.events, 1
        ),
        "rrweb_events_per_run": round(statistics.median(r["rrweb_events"] or 0 for r in runs["rrweb"])),
    }
    for name in ("without", "with", "rrweb"):
        print(
            f"{name:>7} recorder: main thread "
            + ", ".join(f"{r['task_ms']:.0f} ms" for r in runs[name])
            + " (script "
            + ", ".join(f"{r['script_ms']:.0f}" for r in runs[name])
            + " ms)"
        )
    print(
        f"recorded {recorded_per_run:.0f} events per run from {result['input_events']} input events; "
        f"overhead ratio {result['overhead_ratio']}, {result['per_event_ms']} ms per recorded event"
    )
    print(f"{'':>8}{'main thread ms':>16}{'script ms':>11}{'ratio':>8}{'bytes/input event':>19}")
    for name, label in (("without", "none"), ("with", "humantrace"), ("rrweb", "rrweb")):
        task = statistics.median(r["task_ms"] for r in runs[name])
        script = statistics.median(r["script_ms"] for r in runs[name])
        size = statistics.median(r["bytes"] for r in runs[name]) / args.events
        print(f"{label:>10}{task:>14.0f}{script:>11.0f}{task / without_ms:>8.2f}{size:>19.1f}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
