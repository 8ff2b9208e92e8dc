"""The websocket and HTTP ingestion endpoints against a real uvicorn server and real websocket clients."""

from __future__ import annotations

import json
from contextlib import contextmanager

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from humantrace.recorder.schemas import MAX_FRAME_BYTES


def send(ws, frame: str | dict) -> dict:
    ws.send(frame if isinstance(frame, str) else json.dumps(frame))
    return json.loads(ws.recv(timeout=10))


@contextmanager
def open_socket(server, token):
    """A connected client and the server's first frame (the current ack)."""
    with connect(server.ws_url(token), open_timeout=10) as ws:
        yield ws, json.loads(ws.recv(timeout=10))


def closed_with(ws) -> tuple[dict, int, str]:
    """The error frame the server sent before closing, and the close code and reason."""
    first = json.loads(ws.recv(timeout=10))
    with pytest.raises(ConnectionClosed) as info:
        ws.recv(timeout=10)
    closed = info.value.rcvd
    assert closed is not None, "the server closed without a close frame"
    return first, closed.code, closed.reason


def test_valid_stream_is_acknowledged_and_stored(live_server_any_db, batch_json):
    server = live_server_any_db
    rid, token = server.new_recording()
    with open_socket(server, token) as (ws, hello):
        assert hello == {"type": "ack", "seq": -1, "stream": 0}
        assert send(ws, batch_json(0, 10)) == {"type": "ack", "seq": 9}
        assert send(ws, batch_json(10, 5, type_="click")) == {"type": "ack", "seq": 14}
        # A resend of what is stored is acknowledged, not duplicated.
        assert send(ws, batch_json(5, 12, type_="input")) == {"type": "ack", "seq": 16}
        meta = {
            "type": "meta",
            "user_agent": "UA/1.0",
            "viewport_w": 1000,
            "viewport_h": 700,
            "screen_w": 1920,
            "screen_h": 1080,
        }
        assert send(ws, meta) == {"type": "ack", "seq": 16}
    assert server.seqs(rid) == list(range(17))
    frame = server.frame(rid)
    assert frame["type"].tolist() == ["keydown"] * 10 + ["click"] * 5 + ["input"] * 2
    rec = server.recording(rid)
    assert (rec.acked_seq, rec.user_agent, rec.viewport_w, rec.screen_h) == (16, "UA/1.0", 1000, 1080)
    # A new connection (a reload) learns the ack right away.
    with open_socket(server, token) as (_, hello):
        pass
    assert hello == {"type": "ack", "seq": 16, "stream": 0}


@pytest.mark.parametrize(
    ("frame", "code", "says"),
    [
        ("{not json", "malformed_json", "not valid JSON"),
        ("", "malformed_json", "not valid JSON"),
        (
            json.dumps({"type": "batch", "events": [{"type": "teleport", "seq": 0, "t_ms": 1}]}),
            "invalid",
            "'teleport'",
        ),
        (
            json.dumps(
                {"type": "batch", "events": [{"type": "click", "seq": 0, "t_ms": 1, "x": "12", "y": 3}]}
            ),
            "invalid",
            "events.0.click.x",
        ),
        (
            json.dumps({"type": "batch", "events": [{"type": "keydown", "t_ms": 1, "key": "a"}]}),
            "invalid",
            "events.0.keydown.seq: Field required",
        ),
        (
            json.dumps(
                {"type": "batch", "events": [{"type": "submit", "seq": 0, "t_ms": 1, "recording_id": 2}]}
            ),
            "invalid",
            "recording_id: Extra inputs",
        ),
        (
            json.dumps(
                {"type": "batch", "events": [{"type": "input", "seq": 0, "t_ms": 1, "value": "x" * 5000}]}
            ),
            "invalid",
            "at most 4096",
        ),
        (
            json.dumps(
                {"type": "batch", "events": [{"type": "navigation", "seq": 0, "t_ms": 1, "nav": "teleport"}]}
            ),
            "invalid",
            "events.0.navigation.nav",
        ),
        (json.dumps({"type": "hello"}), "invalid", "'hello'"),
        (
            json.dumps(
                {"type": "batch", "events": [{"type": "submit", "seq": s, "t_ms": 1} for s in (0, 1, 1)]}
            ),
            "repeated_seq",
            "seq 1 appears more than once",
        ),
        (
            json.dumps(
                {"type": "batch", "events": [{"type": "submit", "seq": s, "t_ms": 1} for s in (0, 2)]}
            ),
            "not_contiguous",
            "seq 2 follows seq 0",
        ),
        (
            json.dumps(
                {"type": "batch", "events": [{"type": "submit", "seq": s, "t_ms": 1} for s in range(501)]}
            ),
            "invalid",
            "at most 500",
        ),
    ],
)
def test_bad_frames_get_a_clear_error_and_store_nothing(live_server, batch_json, frame, code, says):
    rid, token = live_server.new_recording()
    with open_socket(live_server, token) as (ws, _):
        reply = send(ws, frame)
        assert reply["type"] == "error" and reply["code"] == code, reply
        assert says in reply["message"], reply
        assert live_server.seqs(rid) == []
        # The same connection keeps serving valid batches.
        assert send(ws, batch_json(0, 3)) == {"type": "ack", "seq": 2}
    assert live_server.seqs(rid) == [0, 1, 2]


def test_frame_size_is_counted_in_bytes_not_characters():
    """A frame of few characters but many UTF-8 bytes is still too large (the shortcut for short
    text frames must not let it through), and one just under the limit is not refused for size."""
    from humantrace.recorder.protocol import check_frame_size

    euro = "\u20ac"  # 3 bytes in UTF-8
    too_many_bytes = euro * (MAX_FRAME_BYTES // 3 + 1)
    assert len(too_many_bytes) < MAX_FRAME_BYTES < len(too_many_bytes.encode("utf-8"))
    refused = check_frame_size(too_many_bytes)
    assert refused is not None and refused.reply.code == "frame_too_large"
    assert str(len(too_many_bytes.encode("utf-8"))) in refused.reply.message
    assert check_frame_size(euro * (MAX_FRAME_BYTES // 3)) is None
    assert check_frame_size(b"x" * (MAX_FRAME_BYTES + 1)) is not None


def test_oversized_frame_is_refused_by_the_protocol_and_a_new_connection_serves(live_server, batch_json):
    """A frame over the limit is refused by the websocket layer (close 1009, message too big)
    without being read or stored; the recorder then reconnects with smaller frames."""
    rid, token = live_server.new_recording()
    with open_socket(live_server, token) as (ws, _):
        huge = json.dumps(
            {
                "type": "batch",
                "events": [{"type": "submit", "seq": 0, "t_ms": 1, "url": "u" * (MAX_FRAME_BYTES + 10)}],
            }
        )
        ws.send(huge)
        with pytest.raises(ConnectionClosed) as info:
            ws.recv(timeout=10)
        assert info.value.rcvd.code == 1009
    with open_socket(live_server, token) as (ws, hello):
        assert hello == {"type": "ack", "seq": -1, "stream": 0}
        at_limit = batch_json(0, 2)
        at_limit = at_limit[:-2] + " " * (MAX_FRAME_BYTES - len(at_limit.encode())) + at_limit[-2:]
        assert len(at_limit.encode()) == MAX_FRAME_BYTES
        assert send(ws, at_limit) == {"type": "ack", "seq": 1}
    assert live_server.seqs(rid) == [0, 1]


def test_gap_reports_the_ack_to_resend_from(live_server, batch_json):
    rid, token = live_server.new_recording()
    with open_socket(live_server, token) as (ws, _):
        assert send(ws, batch_json(0, 4)) == {"type": "ack", "seq": 3}
        reply = send(ws, batch_json(8, 4))
        assert reply["code"] == "gap" and reply["seq"] == 3 and "resend from seq 4" in reply["message"]
        assert live_server.seqs(rid) == [0, 1, 2, 3]
        assert send(ws, batch_json(4, 8)) == {"type": "ack", "seq": 11}
    assert live_server.seqs(rid) == list(range(12))


@pytest.mark.parametrize("token", ["", "garbage", "eyJyaWQiOjF9.forged-signature"])
def test_wrong_token_is_closed_with_policy_violation(live_server, token):
    with connect(live_server.ws_url(token), open_timeout=10) as ws:
        first, code, reason = closed_with(ws)
    assert first["code"] == "token_invalid"
    assert code == 1008 and "token is not valid" in reason


def test_each_token_writes_only_into_its_own_recording(live_server, batch_json):
    rid_a, token_a = live_server.new_recording()
    rid_b, token_b = live_server.new_recording()
    with open_socket(live_server, token_a) as (ws_a, _), open_socket(live_server, token_b) as (ws_b, _):
        assert send(ws_a, batch_json(0, 5)) == {"type": "ack", "seq": 4}
        # A token field inside the frame does not redirect a websocket's events.
        frame = json.loads(batch_json(0, 2))
        frame["token"] = token_a
        assert send(ws_b, frame) == {"type": "ack", "seq": 1}
    assert live_server.seqs(rid_a) == [0, 1, 2, 3, 4]
    assert live_server.seqs(rid_b) == [0, 1]


def test_ended_recording_token_is_refused(live_server, batch_json):
    rid, token = live_server.new_recording()
    with open_socket(live_server, token) as (ws, _):
        assert send(ws, batch_json(0, 3)) == {"type": "ack", "seq": 2}
        live_server.end(rid)
        # The open connection stops working too.
        ws.send(batch_json(3, 3))
        first, code, reason = closed_with(ws)
    assert first["code"] == "recording_ended"
    assert code == 1008 and reason == "this recording has ended; its token no longer works"
    with connect(live_server.ws_url(token), open_timeout=10) as ws:
        first, code, reason = closed_with(ws)
    assert (first["code"], code, reason) == (
        "recording_ended",
        1008,
        "this recording has ended; its token no longer works",
    )
    assert live_server.seqs(rid) == [0, 1, 2]


def test_http_fallback(live_server, batch_json):
    rid, token = live_server.new_recording()
    url = live_server.base_url + "/recorder/events"
    with httpx.Client(timeout=10) as client:
        r = client.post(
            url,
            content=batch_json(0, 3),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        assert (r.status_code, r.json()) == (200, {"type": "ack", "seq": 2})
        assert r.headers["access-control-allow-origin"] == "*"
        # Token in the body, sent as text/plain the way sendBeacon does.
        body = json.loads(batch_json(3, 3))
        body["token"] = token
        r = client.post(url, content=json.dumps(body), headers={"Content-Type": "text/plain;charset=UTF-8"})
        assert (r.status_code, r.json()) == (200, {"type": "ack", "seq": 5})
        r = client.post(url, content=batch_json(9, 2), headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 409 and r.json()["code"] == "gap" and r.json()["seq"] == 5
        r = client.post(url, content="{oops", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 400 and r.json()["code"] == "malformed_json"
        r = client.post(url, content=batch_json(6, 1))
        assert r.status_code == 401 and "no recorder token" in r.json()["message"]
        r = client.post(url, content=batch_json(6, 1), headers={"Authorization": "Bearer nonsense"})
        assert r.status_code == 401 and r.json()["code"] == "token_invalid"
        r = client.post(
            url, content="x" * (MAX_FRAME_BYTES + 1), headers={"Authorization": f"Bearer {token}"}
        )
        assert r.status_code == 413 and r.json()["code"] == "frame_too_large"
        assert live_server.seqs(rid) == list(range(6))
        live_server.end(rid)
        r = client.post(url, content=batch_json(6, 1), headers={"Authorization": f"Bearer {token}"})
        assert (
            r.status_code == 410
            and r.json()["message"] == "this recording has ended; its token no longer works"
        )
    assert live_server.seqs(rid) == list(range(6))


def test_script_is_served_with_type_and_cache_headers(live_server):
    with httpx.Client(base_url=live_server.base_url, timeout=10) as client:
        r = client.get("/recorder/recorder.js")
        assert r.status_code == 200
        assert r.headers["content-type"] == "text/javascript; charset=utf-8"
        assert "max-age" in r.headers["cache-control"] and r.headers["etag"]
        assert "HUMANTRACE_RECORDER" in r.text
        again = client.get("/recorder/recorder.js", headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304 and again.content == b""


def test_no_client_address_or_token_in_logs(live_server, batch_json):
    """uvicorn logs every websocket handshake with the peer address and query string."""
    rid, token = live_server.new_recording()
    # Only what is logged while serving clients (the startup line names the server's own address).
    start = len(live_server.log.getvalue())
    with open_socket(live_server, token) as (ws, _):
        send(ws, batch_json(0, 2))
        send(ws, "{bad")
    with connect(live_server.ws_url("garbage"), open_timeout=10) as bad:
        closed_with(bad)
    with httpx.Client(timeout=10) as client:
        client.post(
            live_server.base_url + "/recorder/events",
            content=batch_json(2, 1),
            headers={"Authorization": f"Bearer {token}"},
        )
        client.get(live_server.base_url + "/env/plain.html")
    text = live_server.log.getvalue()[start:]
    assert '"WebSocket /recorder/ws' in text, "the handshake log line should have been captured"
    assert "127.0.0.1" not in text
    assert token not in text and "token=[redacted]" in text


def test_a_recording_opens_at_most_max_streams_and_then_refuses_a_new_tab(live_server_any_db, batch_json):
    """One token opened 701 streams in one recording, one per made-up tab key: past MAX_STREAMS a
    new tab key is refused (error frame, close 1008 with the reason), over the socket and the HTTP
    fallback; the tabs it already has keep recording."""
    from sqlmodel import Session, select

    from humantrace.recorder import service
    from humantrace.recorder.models import RecordingStream
    from humantrace.recorder.schemas import MAX_STREAMS

    server = live_server_any_db
    rid, token = server.new_recording()
    with Session(server.engine) as db:  # all but the last allowed stream, as earlier tabs made them
        for n in range(MAX_STREAMS - 1):
            assert service.resolve_stream(db, recording_id=rid, tab=f"{n:08x}") == (n, -1)
    last_tab = f"{MAX_STREAMS - 1:08x}"
    with connect(server.ws_url(token) + f"&tab={last_tab}", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10)) == {"type": "ack", "seq": -1, "stream": MAX_STREAMS - 1}
        assert send(ws, batch_json(0, 2))["seq"] == 1
    with connect(server.ws_url(token) + "&tab=feedface00", open_timeout=10) as ws:
        first, code, reason = closed_with(ws)
    assert first["code"] == "too_many_streams"
    assert code == 1008 and f"already has {MAX_STREAMS} streams" in reason
    frame = json.loads(batch_json(0, 1)) | {"tab": "feedface01"}
    reply = httpx.post(
        server.base_url + "/recorder/events",
        content=json.dumps(frame),
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert reply.status_code == 429 and reply.json()["code"] == "too_many_streams"
    with connect(server.ws_url(token) + "&tab=00000003", open_timeout=10) as ws:  # a known tab
        assert json.loads(ws.recv(timeout=10))["stream"] == 3
        assert send(ws, batch_json(0, 1))["seq"] == 0
    with Session(server.engine) as db:
        streams = db.exec(select(RecordingStream).where(RecordingStream.recording_id == rid)).all()
    assert len(streams) == MAX_STREAMS
