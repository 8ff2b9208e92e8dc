"""Load: many annotators at once on PostgreSQL, through the real flow, against `humantrace serve`.

Starts `--processes` `humantrace serve` processes (default 2) on one PostgreSQL database
(`HUMANTRACE_DATABASE_URL`, or a private schema in the test database that is dropped afterwards),
creates a study with `--annotators` simulated annotators (4 shop assignments each) plus
`--bots` bot annotators, then for `--duration` seconds:

* every simulated annotator (asyncio, no browser; annotator i uses process i mod N) follows the
  real flow: login link, assignment list, Start, control tab and its live websocket, reading the
  instruction, begin, environment tab entry, shop API calls every few seconds, recorder batches
  over the recorder websocket at a human rate (about 3 events/s, a batch per second, the next
  batch after the ack), Evaluate, warm attempt likewise, rating; then the next assignment;
* `--bots` real Chromium bots (`dashboard.bots.service`) play shop assignments through the pages, on the
  first serve process. `--bot-pace flat-out` (the default): one Chromium, in a process of its own,
  plays the bots one after another, 2 assignments each, as fast as the pages allow.
  `--bot-pace human`: each bot in a process and a Chromium of its own, all at once, taking a
  person's time over each step (`dashboard.bots.service.HUMAN_PACE`, the timings of `--pace human`). That
  is nearer a real study, but here it costs the machine more (three browsers at once, each a few
  processes, beside the servers on the same cores), so the servers' figures come out worse.

Pace (`--pace`). `human`, the default, follows the BreakingWeb paper's Human-140 timings
(Section 5): warm attempts take a median of 34 s and cold ones about twice as long, so a cold
attempt lasts 45-90 s and a warm one 20-48 s (uniform; medians 67 s and 34 s); before Begin the
annotator reads the instruction for 5-20 s and fills in the rating for 10-25 s. These reading and
rating times are our assumption, not the paper's. `fast` is the earlier, harsher load: every
attempt 20-40 s, no reading, no rating time (about twice the human rate of Evaluates).

At the end every annotator finishes its batch in flight; then the database is counted.
`lost` = events acknowledged to a client but missing from the database. `api_p95_ms` is over the
environment API calls, `ack_p99_ms` over recorder batches (send to ack). To tell the servers' share
of a slow figure from the machine's, it also prints the same calls as the serve processes timed
them (from their logs: first middleware to last byte, the audit write after the answer included),
how late the load generator's own event loop woke from its sleeps, and the CPU seconds each part
used (serve processes, the load generator, the bots with their Chromium, PostgreSQL), and how
busy the whole machine was: the share of the time some task waited for a CPU, and the share of
CPU time the host gave to other guests (steal). Prints figures, a line saying whether the targets
(lost 0, HTTP 5xx 0, environment API p95 < 200 ms) were met and which were missed, then one JSON
line (`targets_met` among its fields):

    .venv/bin/python benchmarks/load.py [--duration 180] [--annotators 100] [--bots 3] [--processes 2] [--pace human|fast]
                                        [--bot-pace human|flat-out]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import queue
import random
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"
SECRET_KEY = "load-benchmark-secret-" + "k" * 32
CONTROLLER_SECRET = "load-benchmark-controller-" + "c" * 32
API_P95_TARGET_MS = 200
SHOP_READS = [
    "/api/env/shop/products",
    "/api/env/shop/cart",
    "/api/env/shop/home",
    "/api/env/shop/categories",
    "/api/env/shop/orders",
    "/api/env/shop/me",
]


from humantrace.dashboard.bots.service import HUMAN_PACE, Pace  # noqa: E402
from humantrace.dashboard.people.routes import sign_in_form  # noqa: E402

PACES = {
    "human": HUMAN_PACE,
    "fast": Pace(reading=(0, 0), cold=(20, 40), warm=(20, 40), rating=(0, 0)),
}
BOT_PACES = ("flat-out", "human")


@dataclass
class Figures:
    """Counters shared by every simulated annotator."""

    events_sent: int = 0
    events_acked: int = 0
    http_5xx: int = 0
    http_errors: list[str] = field(default_factory=list)
    api_ms: list[float] = field(default_factory=list)
    api_at: list[float] = field(default_factory=list)  # when each API call started (monotonic)
    api_by_base: dict[str, list[float]] = field(default_factory=dict)  # the same calls by serve process
    ack_ms: list[float] = field(default_factory=list)
    attempts_completed: int = 0
    assignments_completed: int = 0
    recordings: set[int] = field(default_factory=set)
    acked_per_recording: dict[int, int] = field(default_factory=dict)
    loop_lag_ms: list[float] = field(default_factory=list)  # how late this process's event loop woke up


HZ = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int, part: slice = slice(11, 13)) -> float:
    """CPU seconds of process `pid` from /proc: user + system by default (`slice(12, 13)`: system
    only; `slice(11, 15)`: also its reaped children's)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return sum(int(f) for f in fields[part]) / HZ


def machine_counters() -> dict[str, float] | None:
    """Seconds so far in which some task waited for a CPU (Linux pressure stall information) and
    seconds all CPUs together lost to other guests of the host (steal), or None where /proc does
    not say."""
    try:
        some = Path("/proc/pressure/cpu").read_text().splitlines()[0]
        cpu = Path("/proc/stat").read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    waited_us = int(some.rsplit("total=", 1)[1])
    return {"waited": waited_us / 1e6, "steal": int(cpu[8]) / HZ if len(cpu) > 8 else 0.0}


def machine_pressure(before: dict[str, float] | None, elapsed: float) -> dict[str, float] | None:
    """Percent of the run's wall time in which some task waited for a CPU, and percent of the
    machine's CPU time stolen by the host, since `before` (`machine_counters()`)."""
    after = machine_counters()
    if before is None or after is None or elapsed <= 0:
        return None
    return {
        "cpu_wait_pct": round(100 * (after["waited"] - before["waited"]) / elapsed, 1),
        "steal_pct": round(100 * (after["steal"] - before["steal"]) / (elapsed * (os.cpu_count() or 1)), 1),
    }


def postgres_cpu_seconds() -> float | None:
    """CPU seconds of the local PostgreSQL server so far (its ended backends included, through
    the postmaster's reaped children), or None if it does not run on this machine."""
    total, found = 0.0, False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        if text[text.index("(") + 1 : text.rindex(")")] != "postgres":
            continue
        found = True
        fields = text[text.rindex(")") + 2 :].split()
        parent = Path(f"/proc/{fields[1]}/stat")
        postmaster = not parent.exists() or "(postgres)" not in parent.read_text(errors="replace")
        total += sum(int(f) for f in fields[11 : 15 if postmaster else 13]) / HZ
    return total if found else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --------------------------------------------------------------------------- database and servers


def prepare_database(url: str | None) -> tuple[str, str | None]:
    """(SQLAlchemy URL, private schema to drop or None), migrated to the latest revision."""
    from humantrace.core import migrate
    from humantrace.core.settings import normalise_database_url

    schema = None
    if url is None:
        import psycopg

        schema = "ht_load_" + uuid.uuid4().hex[:10]
        with psycopg.connect(DEFAULT_PG, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        url = DEFAULT_PG + f"?options=-csearch_path%3D{schema}"
    url = normalise_database_url(url)
    migrate.upgrade(url)
    return url, schema


def drop_schema(schema: str) -> None:
    import psycopg

    with psycopg.connect(DEFAULT_PG, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def make_study(engine, *, annotators: int, bots: int) -> tuple[list[str], list[str]]:
    """A study with simulated annotators S* and bot annotators R*, 4 shop assignments each."""
    from sqlmodel import Session

    from humantrace.annotators import service as accounts
    from humantrace.dashboard.studies.models import Assignment, Study, StudyStatus
    from humantrace.dashboard.studies.planning import session_seed
    from humantrace.environments import catalog

    tasks = sorted(t.task_id for t in catalog.load_catalog().tasks.values() if t.env_id == "shop")
    with Session(engine) as db:
        # A reading countdown, as in a real study: the bots press "Start now"; the simulated annotators begin at once.
        study = Study(
            name="Load benchmark",
            seed=11,
            reading_countdown_seconds=60,
            rollback_grace_seconds=60,
            status=StudyStatus.open,
        )
        db.add(study)
        db.commit()
        db.refresh(study)
        codes = [f"S{i:03d}" for i in range(annotators)], [f"R{i}" for i in range(bots)]
        rng = random.Random(5)
        for code in codes[0] + codes[1]:
            person = accounts.add_annotator(
                db, code=code, role="annotator", tier="primary", study_id=study.id
            )
            assert study.id is not None and person.id is not None
            for order, task_id in enumerate(rng.sample(tasks, 4)):
                condition = rng.choice(["clean", "intervention"]) if catalog.variant_for(task_id) else "clean"
                db.add(
                    Assignment(
                        study_id=study.id,
                        annotator_id=person.id,
                        task_id=task_id,
                        env_id="shop",
                        difficulty=catalog.get_task(task_id).difficulty,
                        condition=condition,
                        order_index=order,
                        seed=session_seed(study.seed),
                    )
                )
        db.commit()
    return codes


def start_servers(count: int, url: str, data_dir: Path) -> list[tuple[subprocess.Popen, str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HUMANTRACE_")}
    env.update(
        HUMANTRACE_DATABASE_URL=url,
        HUMANTRACE_DATA_DIR=str(data_dir),
        HUMANTRACE_SECRET_KEY=SECRET_KEY,
        HUMANTRACE_CONTROLLER_SECRET=CONTROLLER_SECRET,
    )
    cli = Path(sys.executable).with_name("humantrace")
    servers = []
    for _ in range(count):
        port = free_port()
        log = open(data_dir / f"serve-{port}.log", "w")
        proc = subprocess.Popen(
            [str(cli), "serve", "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT
        )
        servers.append((proc, f"http://127.0.0.1:{port}"))
    import httpx

    for proc, base in servers:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"humantrace serve exited; see {data_dir}")
            try:
                httpx.get(base + "/login", timeout=2)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"humantrace serve on {base} did not answer") from None
                time.sleep(0.3)
    return servers


@contextmanager
def served_study(*, processes: int, annotators: int, bots: int, prefix: str, keep: bool = False):
    """A migrated database, the study of `make_study` and `processes` serve processes on it.

    Yields (engine, (simulated codes, bot codes), [(process, base url)], folder of the server logs);
    afterwards stops the servers and drops the private schema (unless `keep`).
    """
    from humantrace.core.db import make_engine

    url, schema = prepare_database(os.environ.get("HUMANTRACE_DATABASE_URL"))
    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    engine = make_engine(url)
    servers: list[tuple[subprocess.Popen, str]] = []
    try:
        codes = make_study(engine, annotators=annotators, bots=bots)
        servers = start_servers(processes, url, data_dir)
        yield engine, codes, servers, data_dir
    finally:
        for proc, _ in servers:
            proc.terminate()
        for proc, _ in servers:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        engine.dispose()
        if keep:
            print(f"kept schema {schema} and logs in {data_dir}", file=sys.stderr)
        else:
            if schema:
                drop_schema(schema)
            shutil.rmtree(data_dir, ignore_errors=True)


# --------------------------------------------------------------------------- one simulated annotator


def first_group(pattern: str, text: str) -> str:
    """The first group of `pattern`'s first match in `text` (a page that must have it)."""
    found = re.search(pattern, text)
    if found is None:
        raise AssertionError(f"{pattern!r} not found in the page")
    return found.group(1)


def event(seq: int, url: str, rng: random.Random) -> dict:
    t_ms = int(time.time() * 1000)
    kind = rng.choice(["mousemove", "mousemove", "click", "keydown", "input", "scroll", "dom_change"])
    base = {"seq": seq, "t_ms": t_ms, "type": kind, "url": url, "xpath": "/html/body/main/div[2]/button[1]"}
    extras: dict[str, dict[str, Any]] = {
        "mousemove": {"x": rng.uniform(0, 1200), "y": rng.uniform(0, 800)},
        "click": {"x": 100.0, "y": 200.0},
        "keydown": {"key": "a"},
        "input": {"value": "wireless headphones"},
        "scroll": {"scroll_x": 0.0, "scroll_y": 400.0, "dx": 0.0, "dy": 120.0},
        "dom_change": {"added": 3, "removed": 1, "attributes": 2},
    }
    return {**base, **extras[kind]}


class Annotator:
    """One person: the control tab on `base`, the environment tab on the same process."""

    def __init__(
        self, code: str, base: str, link: str, figures: Figures, stop: asyncio.Event, seed: int, pace: Pace
    ):
        import httpx

        self.code, self.base, self.link, self.figures, self.stop, self.pace = (
            code,
            base,
            link,
            figures,
            stop,
            pace,
        )
        self.assignment_id = 0
        self.first_attempt_of: dict[int, int] = {}
        self.http = httpx.AsyncClient(base_url=base, timeout=60, follow_redirects=False)
        self.rng = random.Random(seed)
        self.csrf = ""

    async def request(self, method: str, path: str, *, timed: bool = False, **kwargs):
        import httpx

        started = time.perf_counter()
        try:
            response = await self.http.request(method, path, **kwargs)
        except (httpx.RemoteProtocolError, httpx.ReadError):
            # A keep-alive connection the server closed just as we reused it: browsers retry once too.
            response = await self.http.request(method, path, **kwargs)
        if timed:
            self.figures.api_ms.append((time.perf_counter() - started) * 1000)
            self.figures.api_at.append(time.monotonic())
            self.figures.api_by_base.setdefault(self.base, []).append(self.figures.api_ms[-1])
        if response.status_code >= 500:
            self.figures.http_5xx += 1
            self.figures.http_errors.append(f"{method} {path} {response.status_code}")
        return response

    async def post(self, path: str, data: dict | None = None):
        return await self.request(
            "POST", path, data=data or {}, headers={"X-CSRF-Token": self.csrf, "Accept": "application/json"}
        )

    async def run(self) -> None:
        await asyncio.sleep(self.rng.uniform(0, 10))  # people do not all arrive in the same second
        path = self.link[self.link.index("/login/") :]
        await self.request("POST", path, data=sign_in_form((await self.request("GET", path)).text))
        try:
            while not self.stop.is_set():
                home = await self.request("GET", "/assignments")
                pending = re.findall(r'action="/assignments/(\d+)/start"', home.text)
                token = re.search(r'name="csrf_token" value="([^"]+)"', home.text)
                if not pending or token is None:
                    return
                self.csrf = token.group(1)
                await self.assignment(int(pending[0]))
        finally:
            await self.http.aclose()

    async def assignment(self, assignment_id: int) -> None:
        started = await self.request(
            "POST", f"/assignments/{assignment_id}/start", data={"csrf_token": self.csrf}
        )
        if started.status_code != 303:
            return
        control = asyncio.create_task(self.control_channel(assignment_id))
        try:
            attempt_id = await self.attempt_id(assignment_id)
            await self.pause(self.pace.reading)  # reads the instruction
            self.assignment_id = assignment_id
            if not await self.attempt(attempt_id, self.pace.cold):
                return
            warm = await self.post(f"/assignments/{assignment_id}/warm")
            if warm.status_code != 200:
                return
            if not await self.attempt(warm.json()["attempt_id"], self.pace.warm):
                return
            await self.pause(self.pace.rating)  # fills in the rating form
            rated = await self.request(
                "POST",
                f"/assignments/{assignment_id}/rating",
                data={"csrf_token": self.csrf, "clarity": "4", "realism": "4", "fun_value": "3"},
            )
            if rated.status_code == 303:
                self.figures.assignments_completed += 1
        finally:
            control.cancel()

    async def attempt_id(self, assignment_id: int) -> int:
        page = await self.request("GET", f"/assignments/{assignment_id}/control")
        return int(first_group(r'data-attempt="(\d+)"', page.text))

    async def control_channel(self, assignment_id: int) -> None:
        import websockets

        url = self.base.replace("http://", "ws://") + f"/ws/control/{assignment_id}"
        cookie = f"ht_session={self.http.cookies.get('ht_session')}"
        try:
            async with websockets.connect(
                url, additional_headers={"Cookie": cookie, "Origin": self.base}, open_timeout=60
            ) as channel:
                async for _ in channel:
                    pass
        except (asyncio.CancelledError, Exception):
            return

    async def pause(self, seconds: tuple[float, float]) -> None:
        """Think for a while (cut short when the run ends)."""
        if seconds[1] > 0:
            try:
                await asyncio.wait_for(self.stop.wait(), timeout=self.rng.uniform(*seconds))
            except TimeoutError:
                pass

    async def attempt(self, attempt_id: int, seconds: tuple[float, float]) -> bool:
        """Begin, enter the website, browse and record for `seconds` (less if time is up), Evaluate."""
        import websockets

        from humantrace.core.settings import other_loopback_host

        # As a browser does: the website tab on the environments' host name, entered by its ticket
        # (the cold attempt's website tab is opened by Start, the warm one reloads by itself).
        site = other_loopback_host(self.base)
        await self.post(f"/attempts/{attempt_id}/begin")
        if attempt_id == self.first_attempt_of.setdefault(self.assignment_id, attempt_id):
            ticket = (await self.request("GET", f"/assignments/{self.assignment_id}/website")).json()["url"]
            if (await self.request("GET", ticket)).status_code != 303:
                return False
        entry = await self.request("GET", site + "/website/go")
        if entry.status_code != 303:
            return False
        start_page = entry.headers.get("location", "/env/shop/")
        await self.request("GET", site + start_page)
        # http.cookiejar files a cookie of the host name "localhost" under "localhost.local"
        host = urlsplit(site).hostname
        token = next(
            (
                c.value
                for c in self.http.cookies.jar
                if c.name == "htrec" and c.domain.removesuffix(".local") == host
            ),
            None,
        )
        url = site + start_page
        ends_at = time.monotonic() + self.rng.uniform(*seconds)
        next_api = time.monotonic()
        seq = 0
        ws_url = site.replace("http://", "ws://") + f"/recorder/ws?token={token}"
        async with websockets.connect(ws_url, open_timeout=60, max_size=2**20) as recorder:
            hello = json.loads(await recorder.recv())
            await recorder.send(
                json.dumps(
                    {
                        "type": "meta",
                        "user_agent": "load-benchmark",
                        "viewport_w": 1366,
                        "viewport_h": 800,
                        "screen_w": 1920,
                        "screen_h": 1080,
                    }
                )
            )
            await recorder.recv()
            seq = hello["seq"] + 1
            while time.monotonic() < ends_at and not self.stop.is_set():
                if time.monotonic() >= next_api:
                    await self.request("GET", site + self.rng.choice(SHOP_READS), timed=True)
                    next_api = time.monotonic() + self.rng.uniform(2, 5)
                count = self.rng.randint(1, 5)  # about 3 events a second
                batch = [event(s, url, self.rng) for s in range(seq, seq + count)]
                sent_at = time.perf_counter()
                await recorder.send(json.dumps({"type": "batch", "events": batch}))
                self.figures.events_sent += count
                reply = json.loads(await recorder.recv())
                self.figures.ack_ms.append((time.perf_counter() - sent_at) * 1000)
                if reply.get("type") == "ack":
                    self.figures.events_acked += reply["seq"] + 1 - seq
                    seq = reply["seq"] + 1
                    self.figures.acked_per_recording[attempt_id] = seq  # events 0..seq-1 must be stored
                else:
                    self.figures.http_errors.append(f"recorder {reply}")
                await asyncio.sleep(1.0)
        ended = await self.post(f"/attempts/{attempt_id}/end", {"outcome": "evaluated"})
        if ended.status_code == 200:
            self.figures.attempts_completed += 1
            return not self.stop.is_set()
        return False


# --------------------------------------------------------------------------- the run


async def watch_loop(figures: Figures, stop: asyncio.Event, every: float = 0.05) -> None:
    """Record how late the load generator's own event loop wakes from a short sleep.

    Every latency the simulated annotators measure includes this delay: a response that has arrived
    waits until the loop gets round to it. It tells how much of `api_p95_ms` is the client's."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(every)
        figures.loop_lag_ms.append(max(0.0, (time.perf_counter() - started - every) * 1000))


async def simulate(links: list[tuple[str, str, str]], figures: Figures, duration: float, pace: Pace) -> None:
    stop = asyncio.Event()
    people = [
        Annotator(code, base, link, figures, stop, seed=i, pace=pace)
        for i, (code, base, link) in enumerate(links)
    ]
    tasks = [asyncio.create_task(person.run()) for person in people]
    watcher = asyncio.create_task(watch_loop(figures, stop))
    await asyncio.sleep(duration)
    stop.set()  # everyone finishes the batch in flight and Evaluates
    await watcher
    done, pending = await asyncio.wait(tasks, timeout=240)
    for task in pending:
        task.cancel()
    for task in done:
        if task.exception() is not None:
            figures.http_errors.append(f"annotator crashed: {task.exception()!r}")


def run_bots(url: str, codes: list[str], base: str, results, paced: bool, until: float) -> None:
    """Chromium bots in a process of their own, as on the annotators' own computers, so their
    Python work never shares the simulated annotators' interpreter. (Measured against the earlier
    thread: no clear change in the p95.) Paced: all of the bot's assignments at `HUMAN_PACE`, none
    started after `until`; else 2 assignments per bot, flat out. Puts (assignments completed,
    problems) on `results`."""
    from humantrace.core.db import make_engine
    from humantrace.dashboard.bots.service import run_bots as play

    engine = make_engine(url)
    try:
        played = play(
            engine=engine,
            secret_key=SECRET_KEY,
            base_url=base,
            codes=codes,
            assignments=4 if paced else 2,
            seed=3,
            pace=HUMAN_PACE if paced else None,
            until=until if paced else None,
        )
        results.put(
            (
                sum(len(r.completed) for r in played if hasattr(r, "completed")),
                [str(r) for r in played if getattr(r, "failed", None)],
            )
        )
    except Exception as exc:  # reported, never hides the rest of the figures
        results.put((0, [repr(exc)]))
    finally:
        engine.dispose()


def count_stored(engine) -> tuple[int, dict[int, list[int]]]:
    from sqlalchemy import text

    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT a.id, count(e.seq), coalesce(max(e.seq), -1) FROM attempt a "
                "JOIN raw_event e ON e.recording_id = a.recording_id GROUP BY a.id"
            )
        ).all()
    return sum(r[1] for r in rows), {r[0]: [r[1], r[2]] for r in rows}


SERVER_LOG_LINE = re.compile(r" humantrace\.http: GET (/api/env/\S+) \d{3} ([\d.]+)ms$")


def server_api_ms(data_dir: Path) -> list[float]:
    """Durations the serve processes logged for GETs of the paths the simulated annotators call
    (`SHOP_READS`; the bots' calls to them too): from the first middleware to the last byte handed
    to the server, so without the network and the client's own delays."""
    durations = []
    for log in sorted(data_dir.glob("serve-*.log")):
        for line in log.read_text(errors="replace").splitlines():
            found = SERVER_LOG_LINE.search(line)
            if found and found.group(1) in SHOP_READS:
                durations.append(float(found.group(2)))
    return durations


def cpu_used(before: dict, servers: list) -> dict:
    """CPU seconds each part of the benchmark used since `before` (the bots processes must have
    ended: their CPU and their Chromium's counts once they are reaped)."""
    load, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    postgres = postgres_cpu_seconds()
    return {
        "servers": [
            cpu_seconds(proc.pid) - was for (proc, _), was in zip(servers, before["servers"], strict=True)
        ],
        "load": load.ru_utime + load.ru_stime - before["load"].ru_utime - before["load"].ru_stime,
        "bots": children.ru_utime + children.ru_stime - before["bots"].ru_utime - before["bots"].ru_stime,
        "postgres": postgres - before["postgres"]
        if postgres is not None and before["postgres"] is not None
        else None,
    }


def percentile(values: list[float], q: int) -> float:
    if not values:
        return 0.0
    return (
        round(statistics.quantiles(values, n=100, method="inclusive")[q - 1], 1)
        if len(values) > 1
        else round(values[0], 1)
    )


def windows(figures: Figures, started: float, width: float) -> list[tuple[float, float]]:
    """(window start in seconds since the load began, p95 of the API calls started in it)."""
    buckets: dict[int, list[float]] = {}
    for at, ms in zip(figures.api_at, figures.api_ms, strict=True):
        buckets.setdefault(int((at - started) // width), []).append(ms)
    return [(k * width, percentile(v, 95)) for k, v in sorted(buckets.items())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=180)
    parser.add_argument("--annotators", type=int, default=100)
    parser.add_argument("--bots", type=int, default=3)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--pace",
        choices=sorted(PACES),
        default="human",
        help="human: the paper's attempt times plus reading and rating time; fast: 20-40 s attempts, no pauses",
    )
    parser.add_argument(
        "--bot-pace",
        choices=BOT_PACES,
        default="flat-out",
        help="flat-out: one Chromium playing the bots one after another as fast as it can; "
        "human: each bot in its own Chromium, all at once, at a person's pace",
    )
    parser.add_argument(
        "--client-nice",
        type=int,
        default=0,
        help="lower the CPU priority of the simulated clients and bots by this much (0: same as the servers)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the private schema and the server logs")
    args = parser.parse_args()

    from sqlmodel import Session

    from humantrace.annotators import service as accounts

    with served_study(
        processes=args.processes,
        annotators=args.annotators,
        bots=args.bots,
        prefix="ht-load-",
        keep=args.keep,
    ) as (engine, (simulated, bot_codes), servers, logs):
        bases = [base for _, base in servers]
        with Session(engine) as db:
            links = [
                (
                    code,
                    bases[i % len(bases)],
                    accounts.create_login_link(
                        db, secret_key=SECRET_KEY, code=code, base_url=bases[i % len(bases)]
                    ),
                )
                for i, code in enumerate(simulated)
            ]
        if args.client_nice:
            # The servers are started; from here on this process and the Chromium it launches yield
            # the CPU to them (in a study the clients are the annotators' own machines).
            os.nice(args.client_nice)
        figures = Figures()
        spawn = multiprocessing.get_context("spawn")
        bot_queue = spawn.Queue()
        url = engine.url.render_as_string(hide_password=False)
        paced = args.bot_pace == "human"
        started = time.monotonic()
        cpu_before = {
            "servers": [cpu_seconds(proc.pid) for proc, _ in servers],
            "postgres": postgres_cpu_seconds(),
            "load": resource.getrusage(resource.RUSAGE_SELF),
            "bots": resource.getrusage(resource.RUSAGE_CHILDREN),
        }
        machine_before = machine_counters()
        groups = [[code] for code in bot_codes] if paced else [bot_codes] if bot_codes else []
        bots = [
            spawn.Process(
                target=run_bots,
                args=(url, group, bases[0], bot_queue, paced, started + args.duration),
                daemon=True,
            )
            for group in groups
        ]
        for process in bots:
            process.start()
        asyncio.run(simulate(links, figures, args.duration, PACES[args.pace]))
        bot_done, bot_problems = 0, list[str]()
        answers, deadline = 0, time.monotonic() + 300
        while answers < len(bots):  # a bots process that dies without an answer is reported, not waited for
            try:
                done, problems = bot_queue.get(timeout=5)
                bot_done, bot_problems, answers = bot_done + done, bot_problems + problems, answers + 1
            except queue.Empty:
                if sum(p.is_alive() for p in bots) == 0 or time.monotonic() > deadline:
                    bot_problems.append(
                        f"{len(bots) - answers} bots processes gave no result "
                        f"(exit codes {[p.exitcode for p in bots]})"
                    )
                    break
        for process in bots:
            process.join(timeout=30)
        elapsed = time.monotonic() - started
        cpu = cpu_used(cpu_before, servers)
        pressure = machine_pressure(machine_before, elapsed)
        _, per_attempt = count_stored(engine)
        # the simulated annotators' attempts (the bots' events are not in events_sent)
        stored = sum(per_attempt.get(attempt_id, [0, -1])[0] for attempt_id in figures.acked_per_recording)
        lost = sum(
            max(0, acked - per_attempt.get(attempt_id, [0, -1])[0])
            for attempt_id, acked in figures.acked_per_recording.items()
        )
        print(
            f"{args.annotators} simulated annotators ({args.pace} pace) + {args.bots} Chromium bots ({args.bot_pace}) on "
            f"{args.processes} processes, {elapsed:.0f} s (load for {args.duration:.0f} s)"
        )
        print(
            f"events sent {figures.events_sent}, acknowledged {figures.events_acked}, stored {stored}, lost {lost}"
        )
        print(
            f"environment API p50 {percentile(figures.api_ms, 50)} ms, p95 {percentile(figures.api_ms, 95)} ms "
            f"over {len(figures.api_ms)} calls; recorder ack p50 {percentile(figures.ack_ms, 50)} ms, "
            f"p99 {percentile(figures.ack_ms, 99)} ms over {len(figures.ack_ms)} batches"
        )
        print(
            f"attempts completed {figures.attempts_completed} (+ bots: {bot_done} assignments), "
            f"assignments completed {figures.assignments_completed}, HTTP 5xx {figures.http_5xx}"
        )
        print(
            "environment API p95 by 30-s window of the run: "
            + ", ".join(
                f"{int(lo)}-{int(lo) + 30} s: {p95:.0f} ms" for lo, p95 in windows(figures, started, 30)
            )
        )
        print(
            "environment API p95 by serve process (the bots play on the first): "
            + ", ".join(
                f"{base.rsplit(':', 1)[-1]}: {percentile(calls, 95):.0f} ms over {len(calls)} calls"
                for base, calls in sorted(figures.api_by_base.items(), key=lambda item: bases.index(item[0]))
            )
        )
        print(
            f"CPU seconds over the run (the machine has {os.cpu_count()} × {elapsed:.0f} s): serve processes "
            + ", ".join(f"{s:.0f}" for s in cpu["servers"])
            + f"; load generator {cpu['load']:.0f}; bots with their "
            f"Chromium {cpu['bots']:.0f}"
            + (f"; PostgreSQL {cpu['postgres']:.0f}" if cpu["postgres"] is not None else "")
        )
        if pressure is not None:
            print(
                f"the machine: some task waited for a CPU {pressure['cpu_wait_pct']}% of the run's time; "
                f"the host took {pressure['steal_pct']}% of the CPU time (steal)"
            )
        served = server_api_ms(logs)
        print(
            f"the same calls as the serve processes timed them: p50 {percentile(served, 50)} ms, "
            f"p95 {percentile(served, 95)} ms over {len(served)} calls (the bots' included); the load "
            f"generator's event loop woke late by p50 {percentile(figures.loop_lag_ms, 50)} ms, "
            f"p95 {percentile(figures.loop_lag_ms, 95)} ms, p99 {percentile(figures.loop_lag_ms, 99)} ms"
        )
        missed = missed_targets(
            lost=lost,
            http_5xx=figures.http_5xx,
            api_calls=len(figures.api_ms),
            api_p95_ms=percentile(figures.api_ms, 95),
        )
        print(
            f"targets (lost 0, HTTP 5xx 0, environment API p95 < {API_P95_TARGET_MS} ms): "
            + ("met" if not missed else "missed: " + "; ".join(missed))
        )
        for problem in figures.http_errors[:10]:
            print("  problem:", problem)
        for problem in bot_problems:
            print("  bot:", problem)
        print(
            json.dumps(
                {
                    "annotators": args.annotators + args.bots,
                    "duration_s": round(elapsed, 1),
                    "events_stored": stored,
                    "events_sent": figures.events_sent,
                    "lost": lost,
                    "http_5xx": figures.http_5xx,
                    "api_p95_ms": percentile(figures.api_ms, 95),
                    "ack_p99_ms": percentile(figures.ack_ms, 99),
                    "attempts_completed": figures.attempts_completed + 2 * bot_done,
                    "pace": args.pace,
                    "bot_pace": args.bot_pace,
                    "server_api_p95_ms": percentile(served, 95),
                    "client_loop_lag_p95_ms": percentile(figures.loop_lag_ms, 95),
                    "cpu_s": {
                        "servers": round(sum(cpu["servers"]), 1),
                        "load": round(cpu["load"], 1),
                        "bots": round(cpu["bots"], 1),
                        "postgres": None if cpu["postgres"] is None else round(cpu["postgres"], 1),
                    },
                    "machine": pressure,
                    "targets_met": not missed,
                }
            )
        )


def missed_targets(*, lost: int, http_5xx: int, api_calls: int, api_p95_ms: float) -> list[str]:
    """The targets this run missed, each said with its figure (empty: all met)."""
    missed = []
    if lost:
        missed.append(f"{lost} acknowledged events not stored")
    if http_5xx:
        missed.append(f"{http_5xx} HTTP 5xx answers")
    if not api_calls:
        missed.append("no environment API call was made")
    elif api_p95_ms >= API_P95_TARGET_MS:
        missed.append(f"environment API p95 {api_p95_ms} ms")
    return missed


if __name__ == "__main__":
    main()
