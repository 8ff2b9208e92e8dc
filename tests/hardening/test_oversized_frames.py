"""Oversized recorder frames against a real `humantrace serve`: refused from the frame header.

Every environment page carries a valid recorder token, so anyone can open the recorder socket.
Forty attackers send 15 MB frames at once, three rounds each; the server must refuse each frame
(close 1009) before reading it, its peak resident memory must grow by less than 50 MB, and an
honest recording on the same server must keep being acknowledged meanwhile.
"""

from __future__ import annotations

import base64
import json
import os
import select
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlmodel import Session
from sqlmodel import select as sql_select

pytestmark = pytest.mark.heavy

ATTACKERS = 40
ROUNDS = 3
FRAME_BYTES = 15_000_000
MAX_GROWTH_BYTES = 50 * 1024 * 1024
CUT = -1


def _status_kib(pid: int, field_name: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field_name} in /proc/{pid}/status")


class PeakMemory:
    """The peak resident memory of a process from now on: the kernel's high-water mark (reset
    through clear_refs) and, where that cannot be reset, samples every few milliseconds."""

    def __init__(self, pid: int):
        self.pid = pid
        try:
            Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM to the current RSS
            self.hwm = True
        except OSError:
            self.hwm = False
        self.baseline = _status_kib(pid, "VmRSS") * 1024
        self.sampled = self.baseline
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.sampled = max(self.sampled, _status_kib(self.pid, "VmRSS") * 1024)
            time.sleep(0.005)

    def growth(self) -> int:
        self._stop.set()
        self._thread.join(timeout=5)
        peak = self.sampled
        if self.hwm:
            peak = max(peak, _status_kib(self.pid, "VmHWM") * 1024)
        return peak - self.baseline


def _read_frame(sock: socket.socket) -> tuple[int, bytes]:
    """One unmasked server frame: (opcode, payload)."""

    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    first, second = exactly(2)
    length = second & 0x7F
    if length == 126:
        length = int.from_bytes(exactly(2), "big")
    elif length == 127:
        length = int.from_bytes(exactly(8), "big")
    return first & 0x0F, exactly(length)


def _open(port: int, token: str) -> socket.socket:
    """A websocket handshake by hand (the attack needs to stream one frame's payload itself)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /recorder/ws?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("handshake refused")
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    opcode, payload = _read_frame(sock)  # the server's hello: the current ack
    assert opcode == 1 and json.loads(payload)["type"] == "ack", payload
    return sock


@dataclass
class Attack:
    closes: list[int | None] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    sent_bytes: list[int] = field(default_factory=list)


def _attacker(port: int, token: str, start: threading.Barrier, attack: Attack, lock: threading.Lock) -> None:
    chunk = b"x" * 65536  # with the all-zero mask key below, the payload goes out as it is
    start.wait(timeout=120)
    for _ in range(ROUNDS):
        sock = _open(port, token)
        sent = 0
        code: int | None = None
        reply = ""
        try:
            sock.sendall(bytes([0x81, 0x80 | 127]) + FRAME_BYTES.to_bytes(8, "big") + b"\0\0\0\0")
            while sent < FRAME_BYTES:
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:  # the server answered before taking the whole frame
                    break
                sock.sendall(chunk[: min(len(chunk), FRAME_BYTES - sent)])
                sent += min(len(chunk), FRAME_BYTES - sent)
            sock.settimeout(60)
            opcode, payload = _read_frame(sock)
            if opcode == 8:
                code = int.from_bytes(payload[:2], "big")
            else:
                reply = payload.decode(errors="replace")[:200]
        except OSError:
            code = CUT  # the server cut the connection (its close frame lost to the reset): nothing was read either
        finally:
            sock.close()
        with lock:
            attack.closes.append(code)
            attack.replies.append(reply)
            attack.sent_bytes.append(sent)


def _honest(
    port: int, token: str, url: str, stop: threading.Event, acks: list[tuple[float, int]], kit
) -> int:
    """A recording that keeps sending small batches; every ack's time kept. The last seq sent."""
    from websockets.sync.client import connect

    seq = 0
    with connect(f"ws://127.0.0.1:{port}/recorder/ws?token={token}", open_timeout=30) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "ack"
        while not stop.is_set():
            ws.send(
                json.dumps({"type": "batch", "events": [kit.make_event(s, url) for s in range(seq, seq + 5)]})
            )
            reply = json.loads(ws.recv(timeout=30))
            assert reply == {"type": "ack", "seq": seq + 4}, reply
            acks.append((time.monotonic(), reply["seq"]))
            seq += 5
            time.sleep(0.05)
    return seq - 1


def test_forty_parallel_oversized_frames_cost_no_memory_and_honest_recording_goes_on(
    kit, sqlite_template, tmp_path, serve
):
    from humantrace.core.db import make_engine
    from humantrace.recorder import service as recorder
    from humantrace.recorder.models import RawEvent

    kit.register_lab()
    url = kit.copy_template(sqlite_template, tmp_path / "db")
    engine = make_engine(url)
    maker = kit.CastMaker(engine, kit.make_study(engine))
    attacker_rec = maker.assignment(maker.person("X"), state="cold_active")["recording_id"]
    honest_rec = maker.assignment(maker.person("H"), state="cold_active")["recording_id"]
    attacker_token = recorder.issue_token(secret_key=kit.SECRET_KEY, recording_id=attacker_rec)
    honest_token = recorder.issue_token(secret_key=kit.SECRET_KEY, recording_id=honest_rec)
    server = serve(port=kit.free_port(), env=kit.serve_env(data_dir=tmp_path / "data", database_url=url))

    stop = threading.Event()
    acks: list[tuple[float, int]] = []
    honest_result: dict[str, object] = {}

    def honest() -> None:
        try:
            honest_result["last"] = _honest(
                server.port, honest_token, server.url + "/env/lab/", stop, acks, kit
            )
        except BaseException as exc:  # reported below
            honest_result["error"] = exc

    honest_thread = threading.Thread(target=honest, daemon=True)
    honest_thread.start()
    deadline = time.monotonic() + 30
    while len(acks) < 5:  # the honest recording is under way
        assert time.monotonic() < deadline and "error" not in honest_result, honest_result
        time.sleep(0.05)

    attack = Attack()
    lock = threading.Lock()
    start = threading.Barrier(ATTACKERS + 1)
    attackers = [
        threading.Thread(
            target=_attacker, args=(server.port, attacker_token, start, attack, lock), daemon=True
        )
        for _ in range(ATTACKERS)
    ]
    for thread in attackers:
        thread.start()
    peak = PeakMemory(server.proc.pid)
    start.wait(timeout=120)
    began = time.monotonic()
    for thread in attackers:
        thread.join(timeout=300)
    ended = time.monotonic()
    growth = peak.growth()
    time.sleep(0.5)  # a few more honest batches after the attack
    stop.set()
    honest_thread.join(timeout=60)

    assert "error" not in honest_result, (
        f"the honest recording failed during the attack: {honest_result['error']!r}"
    )
    assert len(attack.closes) == ATTACKERS * ROUNDS, "an attacker did not finish"
    assert set(attack.closes) <= {1009, CUT} and 1009 in attack.closes, (
        f"every oversized frame must be refused by the protocol with close 1009; got closes "
        f"{sorted(set(map(str, attack.closes)))}, replies {sorted(set(attack.replies))[:3]}"
    )
    assert max(attack.sent_bytes) < FRAME_BYTES, "the server took a whole 15 MB frame before refusing it"
    assert growth < MAX_GROWTH_BYTES, f"peak resident memory grew by {growth / 2**20:.0f} MB under the attack"

    during = [t for t, _ in acks if began <= t <= ended]
    assert during, f"no honest batch was acknowledged during the {ended - began:.1f} s attack"
    times = [began] + during + [ended]
    longest = max(b - a for a, b in zip(times, times[1:], strict=False))
    assert longest < 5, f"the honest recording waited {longest:.1f} s for an ack during the attack"
    with Session(engine) as db:
        stored = list(
            db.exec(
                sql_select(RawEvent.seq).where(RawEvent.recording_id == honest_rec).order_by(RawEvent.seq)
            )
        )
        nothing = db.exec(sql_select(RawEvent.seq).where(RawEvent.recording_id == attacker_rec)).first()
    assert stored == list(range(honest_result["last"] + 1))
    assert nothing is None
    engine.dispose()
