"""Fuzzing: schemathesis against the OpenAPI schema of the environment API and the dashboard's JSON
endpoints (no 500, responses match their schema), and Hypothesis-made recorder frames (random JSON,
random bytes, huge payloads, valid batches out of order) that never break the socket or store
anything but a contiguous run of valid events.
"""

from __future__ import annotations

import json
import math

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from sqlmodel import Session

# Per operation: ~130 operations stay under two minutes on a busy machine.
API_EXAMPLES = 2
NEGATIVE_EXAMPLES = 1
# No shrinking: a failure is reported as found (shrinking many operations would take minutes).
FUZZ = settings(
    max_examples=API_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(scope="module")
def schemathesis():
    return pytest.importorskip(
        "schemathesis", reason="schemathesis is not installed (pip install schemathesis)"
    )


def _checks():
    from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance

    return [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture(scope="module")
def fuzz_world(kit, sqlite_template, tmp_path_factory):
    """An app with one live env session per website and an annotator with an active attempt."""
    from humantrace.dashboard.app import create_app
    from humantrace.environments import catalog, registry, sessions

    directory = tmp_path_factory.mktemp("fuzz")
    url = kit.copy_template(sqlite_template, directory)
    kit.register_lab()
    app = create_app(kit.settings(url, directory / "data"))
    with TestClient(app) as client:
        maker = kit.CastMaker(app.state.engine, kit.make_study(app.state.engine))
        person = maker.person("A")
        ids = maker.assignment(person, state="cold_active")
        env_sessions = {}
        with Session(app.state.engine) as db:
            for env in registry.all_environments():
                tasks = sorted(
                    t.task_id for t in catalog.load_catalog().tasks.values() if t.env_id == env.env_id
                )
                for task_id in tasks[:1]:
                    env_sessions[env.env_id] = sessions.create(db, task_id=task_id, condition="clean", seed=5)
            db.commit()
        app.state.cast_maker = maker  # tests that change an attempt make their own
        yield app, client, person, ids, env_sessions


def _run_operations(
    schema,
    *,
    headers: dict,
    cookies: dict | None = None,
    path_parameters: dict | None = None,
    statuses: list[int] | None = None,
) -> list[str]:
    """Every operation of `schema`, positive and negative data; the failures, described (statuses seen go to `statuses`)."""
    from schemathesis import GenerationMode
    from schemathesis.core.failures import FailureGroup

    failures: dict[str, None] = {}  # ordered and without the replay's duplicate
    operations = [result.ok() for result in schema.get_all_operations()]
    # A site's logout ends its session for every later call: fuzz it last.
    for operation in sorted(operations, key=lambda op: "logout" in op.path):
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            params = {k: v for k, v in (path_parameters or {}).items() if "{" + k + "}" in operation.path}
            strategy = operation.as_strategy(
                generation_mode=mode, headers=headers, cookies=cookies, path_parameters=params or None
            )

            @settings(
                FUZZ, max_examples=API_EXAMPLES if mode == GenerationMode.POSITIVE else NEGATIVE_EXAMPLES
            )
            @given(case=strategy)
            def run(case) -> None:
                response = case.call(allow_redirects=False)
                if statuses is not None:
                    statuses.append(response.status_code)
                try:
                    case.validate_response(response, checks=_checks())
                except FailureGroup as failure:
                    described = (
                        f"{case.method} {case.formatted_path} ({mode.value}) -> {response.status_code} "
                        f"{str(failure).splitlines()[2:6]} [{case.as_curl_command()}]"
                    )
                    failures[described] = None
                    raise

            try:
                run()
            except FailureGroup:
                pass  # recorded above
            except Unsatisfiable:
                pass  # nothing left to vary (e.g. negative data for an operation whose every input is fixed)
    return list(failures)


def test_environment_api_has_no_500_and_keeps_its_schema(fuzz_world, schemathesis):
    app, _client, _person, _ids, env_sessions = fuzz_world
    assert {"lab", "shop"} <= set(env_sessions)
    failures = []
    whole = schemathesis.openapi.from_asgi("/openapi.json", app)
    for env_id, session_id in sorted(env_sessions.items()):
        schema = whole.include(path_regex=f"^/api/env/{env_id}/")
        assert len(list(schema.get_all_operations())) >= 3, env_id
        statuses: list[int] = []
        failures += _run_operations(schema, headers={"X-Env-Session": session_id}, statuses=statuses)
        # the session header works: the handlers themselves ran (a site's own logout may then answer 401)
        assert sum(200 <= status < 300 for status in statuses) >= len(statuses) // 10, (
            env_id,
            sorted(set(statuses)),
        )
    assert not failures, "\n".join(failures)


def test_every_site_answer_is_described_by_a_model():
    """The response conformance above is only as strict as the schema: every site operation names a
    closed response model for its success and the shared refusal shape for its errors."""
    from fastapi import FastAPI

    from humantrace.environments.mount import mount_environments
    from humantrace.environments.sites import SITES

    app = FastAPI()
    mount_environments(app)
    document = app.openapi()
    components = document["components"]["schemas"]

    def closed(schema: dict) -> bool:
        if "anyOf" in schema:
            return all(closed(option) for option in schema["anyOf"])
        target = components[schema["$ref"].rsplit("/", 1)[1]]
        return (
            target["type"] == "object"
            and target.get("additionalProperties") is False
            and bool(target["properties"])
        )

    operations = 0
    for path, methods in document["paths"].items():
        if not path.startswith(tuple(f"/api/env/{site}/" for site in SITES)):
            continue
        for method, operation in methods.items():
            operations += 1
            success = [status for status in operation["responses"] if status.startswith("2")]
            assert len(success) == 1, (method, path, success)
            schema = operation["responses"][success[0]]["content"]["application/json"]["schema"]
            assert closed(schema), (method, path, schema)
            for status in ("401", "404", "422"):
                refusal = operation["responses"][status]["content"]["application/json"]["schema"]
                assert refusal == {"$ref": "#/components/schemas/Refusal"}, (method, path, status, refusal)
    assert operations >= 90, operations  # shop, mail and booking: 91 operations


def test_dashboard_json_endpoints_have_no_500(fuzz_world, schemathesis):
    app, _client, person, ids, _ = fuzz_world
    schema = schemathesis.openapi.from_asgi("/openapi.json", app).include(
        path_regex=r"^/(attempts/\{attempt_id\}/(begin|end)|assignments/\{assignment_id\}/warm)$"
    )
    assert len(list(schema.get_all_operations())) == 3
    headers = {"X-CSRF-Token": person.csrf, "Accept": "application/json"}
    failures = _run_operations(schema, headers=headers, cookies=person.cookies)
    # and once more aimed at the person's own live attempt and assignment, not random ids
    statuses: list[int] = []
    failures += _run_operations(
        schema,
        headers=headers,
        cookies=person.cookies,
        statuses=statuses,
        path_parameters={"attempt_id": ids["attempt_id"], "assignment_id": ids["assignment_id"]},
    )
    assert 200 in statuses and 401 not in statuses and 403 not in statuses, sorted(set(statuses))
    assert not failures, "\n".join(failures)


# --------------------------------------------------------------------------- recorder frames

TEXT = st.text(max_size=40)
FLOAT = st.floats(allow_nan=False, allow_infinity=False, width=64)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | FLOAT | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def _fields(kind: str):
    from humantrace.recorder.schemas import MAX_COUNT, MAX_PIXELS, NAV_KINDS

    count, pixels = st.integers(0, MAX_COUNT), st.integers(0, MAX_PIXELS)
    table = {
        "keydown": {"key": st.text(max_size=64)},
        "scroll": {"scroll_x": FLOAT, "scroll_y": FLOAT, "dx": FLOAT, "dy": FLOAT},
        "navigation": {"nav": st.sampled_from(NAV_KINDS)},
        "visibility": {"state": st.sampled_from(["visible", "hidden"])},
        "resize": {"width": pixels, "height": pixels},
        "dom_change": {"added": count, "removed": count, "attributes": count},
    }
    if kind in ("click", "dblclick", "contextmenu", "mousemove", "mousedown", "mouseup", "dragstart", "drop"):
        return {"x": FLOAT, "y": FLOAT}
    if kind in ("input", "change", "select"):
        return {"value": st.none() | st.text(max_size=300)}
    return table.get(kind, {})


@st.composite
def valid_event(draw, seq: int) -> dict:
    from humantrace.recorder.schemas import EVENT_TYPES

    kind = draw(st.sampled_from(EVENT_TYPES))
    event = {"seq": seq, "t_ms": draw(st.integers(0, 2**53)), "type": kind}
    for name, strategy in _fields(kind).items():
        event[name] = draw(strategy)
    if draw(st.booleans()):
        event["xpath"] = draw(st.text(max_size=200))
    if draw(st.booleans()):
        event["url"] = draw(st.text(max_size=200))
    if draw(st.booleans()):
        event["frame_xpath"] = draw(st.text(max_size=200))
    return event


@st.composite
def frames(draw) -> tuple[str, object]:
    """("batch", (offset, events)) relative to the current ack, or ("raw", text or bytes)."""
    kind = draw(st.sampled_from(["batch", "batch", "json", "bytes", "huge", "meta"]))
    if kind == "batch":
        offset = draw(st.sampled_from([1, 1, 1, 0, -2, 2, 7]))  # 1 continues; others repeat or leave a gap
        size = draw(st.integers(1, 6))
        return "batch", (offset, [draw(valid_event(i)) for i in range(size)])
    if kind == "json":
        return "raw", json.dumps(draw(JSON))
    if kind == "bytes":
        return "raw", draw(st.binary(max_size=300))
    if kind == "meta":
        return "raw", json.dumps(
            {
                "type": "meta",
                "user_agent": draw(TEXT),
                "viewport_w": draw(st.integers(-5, 200_000)),
                "viewport_h": 1,
                "screen_w": 1,
                "screen_h": 1,
            }
        )
    from humantrace.recorder.schemas import MAX_FRAME_BYTES

    return "raw", "x" * (MAX_FRAME_BYTES + draw(st.integers(1, 2000)))


def _same(stored, sent) -> bool:
    if isinstance(sent, str):
        sent = sent.replace(
            "\x00", "\ufffd"
        )  # NUL cannot be stored on PostgreSQL: the recorder stores U+FFFD
    if isinstance(sent, float) or isinstance(stored, float):
        return (
            stored is not None
            and sent is not None
            and math.isclose(float(stored), float(sent), rel_tol=1e-12, abs_tol=1e-300)
        )
    return stored == sent


def test_recorder_websocket_survives_any_frame_and_stores_only_valid_events(fuzz_world):
    from humantrace.recorder import service as recorder
    from humantrace.recorder.models import RawEvent

    app, client, _person, _ids, _ = fuzz_world
    maker = app.state.cast_maker
    ids = maker.assignment(
        maker.person("W"), state="cold_active"
    )  # its own attempt: independent of the other tests
    token = recorder.issue_token(secret_key=app.state.settings.secret_key, recording_id=ids["recording_id"])
    accepted: dict[int, dict] = {}
    with client.websocket_connect(f"/recorder/ws?token={token}") as socket:
        model = {"acked": json.loads(socket.receive_text())["seq"]}
        assert model["acked"] == -1

        @settings(max_examples=250, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(frame=frames())
        def send_one(frame) -> None:
            kind, payload = frame
            start = None
            if kind == "batch":
                offset, events = payload
                start = max(0, model["acked"] + offset)
                events = [{**event, "seq": start + i} for i, event in enumerate(events)]
                text = json.dumps({"type": "batch", "events": events})
                socket.send_text(text) if start % 2 else socket.send_bytes(text.encode())  # both frame kinds
            elif isinstance(payload, bytes):
                socket.send_bytes(payload)
            else:
                socket.send_text(payload)
            reply = json.loads(socket.receive_text())  # exactly one reply, and the socket stays open
            assert reply["type"] in ("ack", "error"), reply
            if reply["type"] == "ack":
                assert reply["seq"] >= model["acked"], "the ack never goes back"
            if kind == "batch" and start <= model["acked"] + 1:
                assert reply == {"type": "ack", "seq": max(model["acked"], events[-1]["seq"])}, (
                    reply,
                    start,
                    model,
                )
                for event in events:
                    accepted.setdefault(event["seq"], event)  # a resent seq keeps its first version
                model["acked"] = reply["seq"]
            elif kind == "batch":
                assert reply["type"] == "error" and reply["code"] == "gap", reply
            elif reply["type"] == "ack":
                assert reply["seq"] == model["acked"], "a frame that is not a batch stores no event"

        send_one()
        socket.send_text("still there?")
        assert json.loads(socket.receive_text())["type"] == "error"
    with Session(app.state.engine) as db:
        from sqlmodel import select

        rows = db.exec(
            select(RawEvent).where(RawEvent.recording_id == ids["recording_id"]).order_by(RawEvent.seq)
        ).all()
        recording = recorder.get_recording(db, recording_id=ids["recording_id"])
    assert [row.seq for row in rows] == list(range(model["acked"] + 1)) == sorted(accepted)
    assert recording.acked_seq == model["acked"]
    assert model["acked"] >= 20, "the fuzzer should have stored a fair number of events"
    for row in rows:
        sent = accepted[row.seq]
        for name, value in sent.items():
            assert _same(getattr(row, name), value), (row.seq, name, getattr(row, name), value)


def test_nul_in_typed_text_is_stored_on_every_backend(kit, migrated_url, tmp_path):
    """A NUL in a value or URL must not make a batch unstorable (PostgreSQL text refuses NUL)."""
    from humantrace.dashboard.app import create_app
    from humantrace.recorder import service as recorder
    from humantrace.recorder.models import RawEvent

    kit.register_lab()
    app = create_app(kit.settings(migrated_url, tmp_path / "data"))
    with TestClient(app) as client:
        maker = kit.CastMaker(app.state.engine, kit.make_study(app.state.engine))
        ids = maker.assignment(maker.person("A"), state="cold_active")
        token = recorder.issue_token(secret_key=kit.SECRET_KEY, recording_id=ids["recording_id"])
        events = [
            {"seq": 0, "t_ms": 1, "type": "input", "value": "a\u0000b", "url": "http://x/\u0000"},
            {"seq": 1, "t_ms": 2, "type": "keydown", "key": "\u0000"},
        ]
        with client.websocket_connect(f"/recorder/ws?token={token}") as socket:
            socket.receive_text()
            socket.send_text(json.dumps({"type": "batch", "events": events}))
            assert json.loads(socket.receive_text()) == {"type": "ack", "seq": 1}
        with Session(app.state.engine) as db:
            from sqlmodel import select

            rows = db.exec(
                select(RawEvent).where(RawEvent.recording_id == ids["recording_id"]).order_by(RawEvent.seq)
            ).all()
    assert [(r.value, r.url, r.key) for r in rows] == [
        ("a\ufffdb", "http://x/\ufffd", None),
        (None, None, "\ufffd"),
    ]
