"""No client address anywhere: a small study on a `humantrace serve` subprocess, then the database,
the server's log and an export bundle are searched for the addresses the clients came from.

Two server processes share the database, one on 127.0.0.1 and one on ::1, and both call themselves
`localhost`, so no URL holds a client address: annotators reach them from 127.0.0.1 and from ::1
through the whole flow (pages, API, recorder websocket, Evaluate, rating), and either address turning up anywhere is a leak.
"""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
from sqlalchemy import inspect, text
from sqlmodel import Session

ADDRESSES = ("127.0.0.1", "::1", "::ffff:")


def _study(kit, engine) -> dict[str, tuple]:
    """Two annotators with one assignment each (lab-001, clean and intervention)."""
    maker = kit.CastMaker(engine, kit.make_study(engine))
    people = {"v4": maker.person("P"), "v6": maker.person("Q")}
    return {
        name: (person, maker.assignment(person, condition=condition)["assignment_id"])
        for (name, person), condition in zip(people.items(), ("clean", "intervention"))
    }


def _play_over_http(
    kit, engine, base_url: str, person, assignment_id: int, *, address: str | None = None
) -> str:
    """Play the assignment; returns the login link used."""
    annotator = kit.FlowAnnotator(base_url, address=address)
    link = kit.login_link(engine, person.code, base_url)
    try:
        annotator.login(link)
        played = annotator.play_assignment(assignment_id, events=12)
        assert [p.acked for p in played] == [11, 11]
    finally:
        annotator.close()
    return link


def _dump_tables(engine) -> str:
    """Every row of every table as text (what `pg_dump --data-only` or `.dump` would show)."""
    lines = []
    with engine.connect() as conn:
        for table in inspect(conn).get_table_names():
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                lines.append(f"{table}: " + " | ".join("" if value is None else str(value) for value in row))
    return "\n".join(lines)


def _export(kit, env: dict, out) -> str:
    """`humantrace export bundle OUT --format both`, read back as text (CSV as written, Parquet decoded)."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            kit.CLI_SCRIPT,
            "export",
            "bundle",
            str(out),
            "--format",
            "both",
            "--include-comments",
            "--include-rolled-back",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    parts = [done.stdout, done.stderr]
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert any(p.suffix == ".csv" for p in files) and any(p.suffix == ".parquet" for p in files), files
    for path in files:
        if path.suffix == ".parquet":
            parts.append(pd.read_parquet(path).astype(str).to_csv())
        else:
            parts.append(path.read_text(errors="replace"))
    return "\n".join(parts)


def _leaks(label: str, content: str, websites: tuple[str, ...] = ()) -> list[str]:
    # The website's own host name (the dashboard's `localhost` swapped, docs/deploy.md) is a URL the
    # server published, not a client's address: it is taken out before the search.
    for website in websites:
        content = content.replace(website, "<website host>")
    return [
        f"{label}: {address!r} in …{content[max(0, i - 80) : i + 40]!r}…"
        for address in ADDRESSES
        for i in [content.find(address)]
        if i >= 0
    ]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_no_client_address_in_database_logs_or_export(backend, kit, sqlite_template, tmp_path, request):
    from humantrace.core import migrate
    from humantrace.core.db import make_engine

    kit.register_lab()
    if backend == "sqlite":
        url = kit.copy_template(sqlite_template, tmp_path / "db")
    else:
        url = request.getfixturevalue("postgres_url")
        migrate.upgrade(url)
    engine = make_engine(url)
    people = _study(kit, engine)
    # One process on 127.0.0.1 and one on ::1, sharing the database: a client address of each family.
    port, port6 = kit.free_port(), kit.free_port()
    env = kit.serve_env(
        data_dir=tmp_path / "data", database_url=url, HUMANTRACE_PUBLIC_URL=f"http://localhost:{port}"
    )
    env6 = {**env, "HUMANTRACE_PUBLIC_URL": f"http://localhost:{port6}"}
    servers = [
        kit.ServeProcess(port=port, env=env).start(),
        kit.ServeProcess(port=port6, env=env6, host="::1").start(),
    ]
    try:
        # `localhost` resolves to 127.0.0.1 here; the second annotator reaches ::1 under the same name
        person, assignment_id = people["v4"]
        links = [_play_over_http(kit, engine, f"http://localhost:{port}", person, assignment_id)]
        person, assignment_id = people["v6"]
        links.append(
            _play_over_http(kit, engine, f"http://localhost:{port6}", person, assignment_id, address="::1")
        )
        # and a few refusals, whose error paths must not log the address either
        import httpx

        # Dashboard routes answer only under the dashboard's host name (the other name is the website's).
        for base, dashboard_host in (
            (servers[0].url, f"localhost:{port}"),
            (servers[1].url, f"localhost:{port6}"),
        ):
            control = httpx.get(base + "/assignments/1/control", headers={"Host": dashboard_host}, timeout=10)
            assert control.status_code == 303
            assert (
                httpx.get(base + "/control/tasks", headers={"Host": dashboard_host}, timeout=10).status_code
                == 401
            )
            assert httpx.post(base + "/recorder/events", content=b"{", timeout=10).status_code == 400
    finally:
        logs = [server.stop() for server in servers]
    for log in logs:
        assert (
            "humantrace.http" in log
            and "GET /assignments" in log
            and "/recorder/ws" in log
            or "POST /attempts" in log
        ), log[-2000:]
    # Each server names the address it listens on once at start-up: its own, not a client's.
    log = "".join(log.replace(server.url, "<own address>") for log, server in zip(logs, servers))

    # Nor the secrets in paths: a login link's token, an env session id, a website tab's ticket.
    from humantrace.dashboard.studies.models import Attempt

    with Session(engine) as db:
        session_ids = [attempt.env_session_id for attempt in db.query(Attempt).all()]
    assert len(session_ids) == 4 and "GET /login/{token} 200" in log and "GET /enter/{ticket} 303" in log, (
        log[-2000:]
    )
    secrets_in_log = [s for s in [link.rsplit("/", 1)[1] for link in links] + session_ids if s in log]
    assert not secrets_in_log, secrets_in_log

    websites = (f"//127.0.0.1:{port}/", f"//127.0.0.1:{port6}/")
    found = _leaks("server log", log, websites)
    found += _leaks("tables", _dump_tables(engine), websites)
    if backend == "sqlite":
        database_file = url.removeprefix("sqlite:///")
        for suffix in ("", "-wal", "-shm"):
            try:
                raw = open(database_file + suffix, "rb").read().decode("latin-1")
            except FileNotFoundError:
                continue
            found += _leaks("sqlite file" + suffix, raw, websites)
    found += _leaks("export", _export(kit, env, tmp_path / "bundle"), websites)
    engine.dispose()
    assert not found, "\n".join(found)
