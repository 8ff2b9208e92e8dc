"""The recorder in Chromium never resends a frame refused as too large as it was: it splits it.

The server here refuses websocket messages over 48 KiB (as a proxy with a smaller limit than the
recorder's own 240 KiB budget would); a burst of long `input` events makes the first frame far
larger. Every frame the page sent is watched through Playwright.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import uvicorn
from sqlalchemy import select
from sqlmodel import Session, create_engine

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "recorder" / "pages"
SECRET = "frame-size-secret"
SMALL_LIMIT = 48 * 1024
BURST = 70  # input events of ~4 KB: about 290 KB in all

BURST_JS = """(count) => {
  const field = document.querySelector('#name');
  field.focus();
  for (let i = 0; i < count; i++) {
    field.value = String(i % 10).repeat(4000);
    field.dispatchEvent(new Event('input', {bubbles: true}));
  }
}"""


def test_a_frame_refused_as_too_large_is_split_and_resent(context, sqlite_url, port):
    from humantrace.recorder import service
    from humantrace.recorder.models import RawEvent, Recording
    from humantrace.recorder.protocol import uvicorn_ws_options
    from humantrace.recorder.standalone import create_app

    app = create_app(database_url=sqlite_url, secret_key=SECRET, pages_dir=PAGES)
    options = {**uvicorn_ws_options(), "ws_max_size": SMALL_LIMIT}
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, access_log=False, log_config=None, **options)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    engine = create_engine(sqlite_url)
    try:
        with Session(engine) as db:
            recording = service.create_recording(db, kind="standalone")
            rid = recording.id
            token = service.issue_token(secret_key=SECRET, recording_id=rid)
        base = f"http://127.0.0.1:{port}"
        context.add_cookies([{"name": "htrec", "value": token, "url": base}])
        page = context.new_page()
        sent: list[str] = []
        sockets: list[object] = []

        def watch(ws) -> None:
            sockets.append(ws)
            ws.on("framesent", lambda payload: sent.append(payload))

        page.on("websocket", watch)
        page.goto(base + "/env/page1.html")
        page.evaluate(BURST_JS, BURST)

        deadline = time.monotonic() + 60
        state = None
        while time.monotonic() < deadline:
            state = page.evaluate(
                "(key) => JSON.parse(sessionStorage.getItem(key) || 'null')", f"humantrace:{token}"
            )
            with Session(engine) as db:
                acked = db.execute(select(Recording.acked_seq).where(Recording.id == rid)).scalar_one()
            if state and not state["events"] and state["next"] > BURST and acked == state["next"] - 1:
                break
            time.sleep(0.2)
        else:
            raise AssertionError(
                f"the burst was never fully acknowledged: browser {state and len(state['events'])} "
                f"pending; frames sent: {[len(f) for f in sent]}"
            )

        sizes = [len(frame.encode()) for frame in sent]
        refused = [frame for frame in sent if len(frame.encode()) > SMALL_LIMIT]
        assert refused, f"the test meant the first frame to exceed the server's limit: {sizes}"
        assert len(refused) == len(set(refused)), (
            f"a frame refused as too large was sent again as it was: {sizes}"
        )
        # Each refusal costs one connection; halving from 240 KiB gets under 48 KiB in three.
        assert len(sockets) <= 5, (
            f"the recorder should halve its frames after each refusal: {len(sockets)} connections, {sizes}"
        )
        with Session(engine) as db:
            seqs = list(
                db.execute(
                    select(RawEvent.seq).where(RawEvent.recording_id == rid).order_by(RawEvent.seq)
                ).scalars()
            )
        assert seqs == list(range(state["next"]))
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        engine.dispose()
