"""Ingestion throughput, ack latency and exactness of the recorder server, against a bare sink.

Starts the real recorder server (uvicorn, its own process, SQLite in a temp dir, the
`recorder.standalone` app factory) and, in another process, N concurrent recorder clients over real
websockets sending realistic 50-event batches (asyncio, one batch in flight per client, the next
sent when the ack arrives, exactly as recorder.js does). Three timed phases of `--duration` each:

1. saturation against the recorder server: clients send as fast as acks come back
   -> `events_per_s` (persisted events per second);
2. paced against the recorder server: every client sends one full batch every 500 ms, the
   recorder's maximum sustained rate (50 events per flush interval) -> `ack_p50_ms`, `ack_p99_ms`;
3. saturation against a bare `websockets` sink (accepts, parses, acknowledges, stores nothing)
   -> `sink_events_per_s`; `ratio_to_sink` = events_per_s / sink_events_per_s.

`lost` counts acknowledged events missing from the database, `duplicated` rows stored twice
(both over phases 1 and 2). Prints figures, then one JSON line.

    .venv/bin/python benchmarks/ingest.py [--clients 200] [--duration 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from humantrace.recorder.schemas import MAX_FRAME_BYTES  # noqa: E402  (after the path is set)

SECRET = "benchmark-secret"
BATCH = 50
PACED_INTERVAL_S = 0.5


# ---------------------------------------------------------------------------- load generation
def realistic_events(start_seq: int, count: int, rng: random.Random) -> list[dict]:
    """A plausible mix of what a person produces on a shop page, with contiguous seqs."""
    now = int(time.time() * 1000)
    url = "http://127.0.0.1/env/shop/products?page=2&sort=price"
    out = []
    for i in range(count):
        seq = start_seq + i
        roll = rng.random()
        base = {"seq": seq, "t_ms": now + i * 20, "url": url}
        if roll < 0.35:
            event = {
                "type": "mousemove",
                "xpath": f"/html/body/div[1]/main[1]/ul[1]/li[{rng.randint(1, 40)}]/a[1]",
                "x": round(rng.uniform(0, 1366), 2),
                "y": round(rng.uniform(0, 800), 2),
            }
        elif roll < 0.55:
            event = {
                "type": "keydown",
                "xpath": "/html/body/div[1]/header[1]/form[1]/input[1]",
                "key": rng.choice("abcdefgh"),
            }
        elif roll < 0.75:
            event = {
                "type": "input",
                "xpath": "/html/body/div[1]/header[1]/form[1]/input[1]",
                "value": "wireless headph"[: rng.randint(1, 15)],
            }
        elif roll < 0.85:
            event = {
                "type": "scroll",
                "xpath": "/html",
                "scroll_x": 0,
                "scroll_y": rng.randint(0, 3000),
                "dx": 0,
                "dy": rng.choice([-100, 100]),
            }
        elif roll < 0.93:
            event = {
                "type": "click",
                "xpath": "/html/body/div[1]/main[1]/ul[1]/li[3]/button[1]",
                "x": 512.5,
                "y": 301.0,
            }
        else:
            event = {
                "type": "dom_change",
                "added": rng.randint(0, 5),
                "removed": rng.randint(0, 3),
                "attributes": rng.randint(0, 10),
            }
        out.append({**base, **event})
    return out


def event_bodies(rng: random.Random, count: int = 500) -> list[str]:
    """Pre-rendered JSON bodies of realistic events (without seq and t_ms) to draw batches from."""
    bodies = []
    for event in realistic_events(0, count, rng):
        fields = {k: v for k, v in event.items() if k not in ("seq", "t_ms")}
        bodies.append(json.dumps(fields)[1:-1])
    return bodies


def batch_frame(bodies: list[str], start_seq: int, offset: int) -> str:
    """A batch of BATCH events with seqs start_seq.. built from pre-rendered bodies (cheap for the client)."""
    now = int(time.time() * 1000)
    n = len(bodies)
    parts = [f'{{"seq":{start_seq + i},"t_ms":{now + i},{bodies[(offset + i) % n]}}}' for i in range(BATCH)]
    return '{"type":"batch","events":[' + ",".join(parts) + "]}"


async def one_client(url: str, deadline: float, paced: bool, seed: int) -> dict:
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    bodies = event_bodies(rng)
    latencies: list[float] = []
    sent = 0
    async with connect(url, max_size=2**22, open_timeout=60) as ws:
        hello = json.loads(await ws.recv())
        next_seq = hello["seq"] + 1
        tick = time.monotonic() + rng.uniform(0, PACED_INTERVAL_S)  # spread paced clients over the interval
        while time.monotonic() < deadline:
            if paced:
                await asyncio.sleep(max(0.0, tick - time.monotonic()))
                tick += PACED_INTERVAL_S
                if time.monotonic() >= deadline:
                    break
            frame = batch_frame(bodies, next_seq, rng.randrange(len(bodies)))
            started = time.perf_counter()
            await ws.send(frame)
            reply = json.loads(await ws.recv())
            latencies.append((time.perf_counter() - started) * 1000)
            if reply.get("type") != "ack":
                raise RuntimeError(f"server refused a batch: {reply}")
            next_seq += BATCH
            sent += BATCH
    return {"sent": sent, "acked": next_seq - 1, "latencies": latencies}


async def client_load(urls: list[str], duration: float, paced: bool) -> dict:
    start = time.monotonic()
    deadline = start + duration
    results = await asyncio.gather(*(one_client(u, deadline, paced, i) for i, u in enumerate(urls)))
    elapsed = time.monotonic() - start
    latencies = sorted(x for r in results for x in r["latencies"])
    return {
        "elapsed": elapsed,
        "sent": sum(r["sent"] for r in results),
        "acked_by_client": [r["acked"] for r in results],
        "latencies": latencies,
    }


def _client_process(urls: list[str], duration: float, paced: bool, queue) -> None:
    try:
        queue.put(asyncio.run(client_load(urls, duration, paced)))
    except BaseException as exc:  # report instead of hanging the parent
        queue.put({"error": repr(exc)})


def run_clients(urls: list[str], duration: float, paced: bool) -> dict:
    """The client load in its own process (so it does not share an interpreter with anything)."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_client_process, args=(urls, duration, paced, queue))
    proc.start()
    result = queue.get(timeout=duration + 300)
    proc.join(timeout=30)
    if "error" in result:
        raise RuntimeError(result["error"])
    return result


# ---------------------------------------------------------------------------- servers
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited during startup")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError("server did not start")


def start_recorder_server(port: int, database_url: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "HUMANTRACE_RECORDER_DATABASE_URL": database_url,
        "HUMANTRACE_RECORDER_SECRET": SECRET,
    }
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "humantrace.recorder.standalone:app_from_env",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
        "--log-level",
        "warning",
        "--ws-max-size",
        str(MAX_FRAME_BYTES),
        "--ws-per-message-deflate",
        "false",
    ]  # as `humantrace serve` runs it
    proc = subprocess.Popen(command, env=env, cwd=REPO)
    wait_for_port(port, proc)
    return proc


SINK_SOURCE = r"""
import asyncio, json, sys
from websockets.asyncio.server import serve

async def handler(ws):
    await ws.send('{"type":"ack","seq":-1}')
    async for message in ws:
        events = json.loads(message)["events"]
        await ws.send(json.dumps({"type": "ack", "seq": events[-1]["seq"]}))

async def main(port):
    async with serve(handler, "127.0.0.1", port, max_size=2**20):
        await asyncio.Future()

asyncio.run(main(int(sys.argv[1])))
"""


def start_sink(port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", SINK_SOURCE, str(port)])
    wait_for_port(port, proc)
    return proc


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads) so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


# ---------------------------------------------------------------------------- database checks
def create_recordings(database_url: str, count: int) -> list[tuple[int, str]]:
    from sqlmodel import Session, SQLModel, create_engine

    from humantrace.core.sqlite import tune_sqlite
    from humantrace.recorder import service
    from humantrace.recorder.models import RECORDER_TABLES

    engine = create_engine(database_url)
    tune_sqlite(engine)
    SQLModel.metadata.create_all(engine, tables=list(RECORDER_TABLES))
    out = []
    with Session(engine) as session:
        for i in range(count):
            rec = service.create_recording(session, kind="standalone", label=f"bench-{i}")
            assert rec.id is not None
            out.append((rec.id, service.issue_token(secret_key=SECRET, recording_id=rec.id)))
    engine.dispose()
    return out


def check_database(database_url: str, recording_ids: list[int], acked: list[int]) -> dict:
    """Per recording: acknowledged events that are not stored (lost), rows stored twice (duplicated)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    lost = duplicated = stored = 0
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT recording_id, COUNT(*), COUNT(DISTINCT seq), MIN(seq), MAX(seq) FROM raw_event GROUP BY recording_id"
            )
        ).all()
        by_id = {r[0]: r[1:] for r in rows}
        for rid, ack in zip(recording_ids, acked, strict=True):
            count, distinct, low, high = by_id.get(rid, (0, 0, None, None))
            stored += count
            duplicated += count - distinct
            contiguous_prefix = distinct if (low == 0 and high == distinct - 1) else 0
            lost += max(0, (ack + 1) - contiguous_prefix)
    engine.dispose()
    return {"lost": lost, "duplicated": duplicated, "stored": stored}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return (
        statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1]
        if len(values) > 1
        else values[0]
    )


# ---------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per phase")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ht-ingest-") as tmp:
        database_url = f"sqlite:///{Path(tmp) / 'ingest.db'}"
        recordings = create_recordings(database_url, 2 * args.clients)
        saturation_recs, paced_recs = recordings[: args.clients], recordings[args.clients :]
        port = free_port()
        server = start_recorder_server(port, database_url)
        try:
            ws = f"ws://127.0.0.1:{port}/recorder/ws?token="
            cpu_before = cpu_seconds(server.pid)
            saturated = run_clients([ws + t for _, t in saturation_recs], args.duration, paced=False)
            server_cpu = cpu_seconds(server.pid) - cpu_before
            paced = run_clients([ws + t for _, t in paced_recs], args.duration, paced=True)
        finally:
            stop(server)
        checks = check_database(
            database_url,
            [rid for rid, _ in recordings],
            saturated["acked_by_client"] + paced["acked_by_client"],
        )
        sink_port = free_port()
        sink = start_sink(sink_port)
        try:
            cpu_before = cpu_seconds(sink.pid)
            sink_run = run_clients(
                [f"ws://127.0.0.1:{sink_port}/"] * args.clients, args.duration, paced=False
            )
            sink_cpu = cpu_seconds(sink.pid) - cpu_before
        finally:
            stop(sink)

    events_per_s = saturated["sent"] / saturated["elapsed"]
    sink_events_per_s = sink_run["sent"] / sink_run["elapsed"]
    result = {
        "events_per_s": round(events_per_s, 1),
        "sink_events_per_s": round(sink_events_per_s, 1),
        "ratio_to_sink": round(events_per_s / sink_events_per_s, 3),
        "ack_p50_ms": round(percentile(paced["latencies"], 50), 2),
        "ack_p99_ms": round(percentile(paced["latencies"], 99), 2),
        "lost": checks["lost"],
        "duplicated": checks["duplicated"],
        "clients": args.clients,
        "duration_s": args.duration,
        "paced_events_per_s": round(paced["sent"] / paced["elapsed"], 1),
        "saturated_ack_p50_ms": round(percentile(saturated["latencies"], 50), 2),
        "saturated_ack_p99_ms": round(percentile(saturated["latencies"], 99), 2),
        "stored_rows": checks["stored"],
        # CPU time per event does not depend on how busy the machine is, unlike the rates above.
        "server_cpu_us_per_event": round(server_cpu / saturated["sent"] * 1e6, 1),
        "sink_cpu_us_per_event": round(sink_cpu / sink_run["sent"] * 1e6, 1),
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    print(
        f"recorder server, saturated: {result['events_per_s']:.0f} events/s "
        f"(ack p50 {result['saturated_ack_p50_ms']} ms, p99 {result['saturated_ack_p99_ms']} ms)"
    )
    print(
        f"recorder server, paced at 100 events/s/client: {result['paced_events_per_s']:.0f} events/s, "
        f"ack p50 {result['ack_p50_ms']} ms, p99 {result['ack_p99_ms']} ms"
    )
    print(
        f"bare websockets sink, saturated: {result['sink_events_per_s']:.0f} events/s; ratio {result['ratio_to_sink']}"
    )
    print(f"stored rows {checks['stored']}, lost {checks['lost']}, duplicated {checks['duplicated']}")
    print(
        f"CPU per event: recorder server {result['server_cpu_us_per_event']} us, sink {result['sink_cpu_us_per_event']} us "
        f"(load average {result['load_avg_1m']} on {result['cpus']} CPUs)"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
