"""Server CPU per request: what one annotator's actions cost a `humantrace serve` process.

Starts one `humantrace serve` on PostgreSQL (`HUMANTRACE_DATABASE_URL`, or a private schema in the
test database that is dropped afterwards), walks one simulated annotator into an attempt, then, one
call at a time (no concurrency, so no queueing), measures the server process's CPU time
(user + system, from /proc) per

* environment API read (`GET /api/env/shop/products` and friends),
* recorder batch of 3 events over the websocket (send, wait for the ack),
* page (`GET /assignments`),
* attempt cycle: Evaluate an attempt holding 120 events, then start the next attempt (the warm
  one, or the next assignment after a skipped rating), open the website and record 120 events
  (40 batches: subtract 40 batch costs to get the rest).

CPU time of one process is far steadier than latency on a shared machine, so this is the figure
to compare before and after a change to the request path. Prints figures, then one JSON line:

    .venv/bin/python benchmarks/request_cost.py [--calls 600]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.load import (  # noqa: E402
    SECRET_KEY,
    SHOP_READS,
    cpu_seconds,
    event,
    first_group,
    served_study,
)


class Meter:
    def __init__(self, pid: int):
        self.pid = pid
        self.rows: dict[str, dict[str, float]] = {}

    async def measure(self, name: str, count: int, action) -> None:
        walls = []
        before, before_sys = cpu_seconds(self.pid), cpu_seconds(self.pid, slice(12, 13))
        for i in range(count):
            started = time.perf_counter()
            await action(i)
            walls.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.3)  # let writes queued after the answer (audit, presence) finish
        cpu_ms = (cpu_seconds(self.pid) - before) * 1000 / count
        sys_ms = (cpu_seconds(self.pid, slice(12, 13)) - before_sys) * 1000 / count
        self.rows[name] = {"cpu_ms": round(cpu_ms, 2), "wall_p50_ms": round(statistics.median(walls), 2)}
        print(
            f"{name:<34} {count:>5} calls  server CPU {cpu_ms:6.2f} ms/call (system {sys_ms:5.2f})  "
            f"wall p50 {statistics.median(walls):6.2f} ms",
            flush=True,
        )


async def walk(base: str, link: str, pid: int, calls: int, cycles: int, per_path: bool) -> dict:
    import httpx
    import websockets

    from humantrace.core.settings import other_loopback_host

    meter = Meter(pid)
    site = other_loopback_host(base)  # the website tab's host name (its cookies live there)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        from humantrace.dashboard.people.routes import sign_in_form

        path = link[link.index("/login/") :]
        await http.post(path, data=sign_in_form((await http.get(path)).text))
        home = await http.get("/assignments")
        csrf = first_group(r'name="csrf_token" value="([^"]+)"', home.text)
        assignment = int(re.findall(r'action="/assignments/(\d+)/start"', home.text)[0])
        await http.post(f"/assignments/{assignment}/start", data={"csrf_token": csrf})
        page = await http.get(f"/assignments/{assignment}/control")
        attempt = int(first_group(r'data-attempt="(\d+)"', page.text))
        headers = {"X-CSRF-Token": csrf, "Accept": "application/json"}

        async def enter(attempt_id: int) -> str:
            # The website tab, as a browser reaches it: its ticket, then "go", on the environments' host.
            await http.post(f"/attempts/{attempt_id}/begin", headers=headers)
            ticket = (await http.get(f"/assignments/{assignment}/website")).json()["url"]
            await http.get(ticket)
            entry = await http.get(site + "/website/go")
            start_page = entry.headers.get("location", "/env/shop/")
            await http.get(site + start_page)
            return start_page

        start_page = await enter(attempt)
        await meter.measure("page /assignments", calls // 4, lambda i: http.get("/assignments"))
        await meter.measure("env API read", calls, lambda i: http.get(site + SHOP_READS[i % len(SHOP_READS)]))
        if per_path:
            for path in SHOP_READS:
                await meter.measure(
                    f"  GET {path}", max(20, calls // 10), lambda i, path=path: http.get(site + path)
                )

        import random

        rng = random.Random(1)

        async def record(recorder, seq: int, count: int) -> int:
            """Send `count` batches of 3 events, each after the previous ack; the next seq."""
            for _ in range(count):
                batch = [event(s, base + start_page, rng) for s in range(seq, seq + 3)]
                await recorder.send(json.dumps({"type": "batch", "events": batch}))
                seq = json.loads(await recorder.recv())["seq"] + 1
            return seq

        def recorder_socket():
            token = http.cookies.get("htrec")
            return websockets.connect(site.replace("http://", "ws://") + f"/recorder/ws?token={token}")

        async with recorder_socket() as recorder:
            seq = json.loads(await recorder.recv())["seq"] + 1

            async def batch(i: int) -> None:
                nonlocal seq
                seq = await record(recorder, seq, 1)

            await meter.measure("recorder batch (3 ev)", calls, batch)

        async def cycle(i: int) -> None:
            """Evaluate the attempt in progress, then start and enter the next one, with 120 events."""
            nonlocal attempt, assignment
            ended = await http.post(
                f"/attempts/{attempt}/end", data={"outcome": "evaluated"}, headers=headers
            )
            assert ended.status_code == 200, ended.text
            if i % 2 == 0:
                warm = await http.post(f"/assignments/{assignment}/warm", headers=headers)
                attempt = warm.json()["attempt_id"]
            else:
                await http.post(
                    f"/assignments/{assignment}/rating", data={"csrf_token": csrf, "action": "skip"}
                )
                home = await http.get("/assignments")
                assignment = int(re.findall(r'action="/assignments/(\d+)/start"', home.text)[0])
                await http.post(f"/assignments/{assignment}/start", data={"csrf_token": csrf})
                page = await http.get(f"/assignments/{assignment}/control")
                attempt = int(first_group(r'data-attempt="(\d+)"', page.text))
            await enter(attempt)
            async with recorder_socket() as recorder:
                await record(recorder, json.loads(await recorder.recv())["seq"] + 1, 40)

        await meter.measure("attempt cycle", cycles, cycle)
    return meter.rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=600, help="calls per measured request kind")
    parser.add_argument(
        "--per-path", action="store_true", help="also measure each environment API read on its own"
    )
    parser.add_argument(
        "--cycles", type=int, default=6, help="attempt cycles (at most 7: the annotator has 4 assignments)"
    )
    args = parser.parse_args()
    from sqlmodel import Session

    from humantrace.annotators import service as accounts

    with served_study(processes=1, annotators=1, bots=0, prefix="ht-cost-") as (
        engine,
        (codes, _),
        servers,
        _logs,
    ):
        proc, base = servers[0]
        with Session(engine) as db:
            link = accounts.create_login_link(db, secret_key=SECRET_KEY, code=codes[0], base_url=base)
        rows = asyncio.run(walk(base, link, proc.pid, args.calls, args.cycles, args.per_path))
    print(
        json.dumps(
            {
                name.strip().split(" (")[0].replace(" ", "_").replace("/", ""): row["cpu_ms"]
                for name, row in rows.items()
            }
        )
    )


if __name__ == "__main__":
    main()
