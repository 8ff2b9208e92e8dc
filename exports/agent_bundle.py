"""The agent bundle: what `humantrace agents run` writes and `humantrace compare --agents DIR` reads.

A directory of CSV tables plus `manifest.json` (`"kind": "agent_bundle"`). One row per episode in
`episodes` (the human attempts table's column names where they mean the same); the episode's
traces, verdicts, semantic events, backend audit log and event checks use the human bundle's
schema (2.0) with `attempt_id` holding the episode id, so a person's and an agent's traces compare column for column.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from humantrace.exports.bundle import _to_arrow_column
from humantrace.exports.schema import (
    BACKEND_AUDIT,
    CONDITIONS,
    DIFFICULTIES,
    EVENT_CHECKS,
    EVENTS_CLEAN,
    EVENTS_RAW,
    SEMANTIC_EVENTS,
    VERDICTS,
    ColumnSpec,
    TableSpec,
)

AGENT_BUNDLE_KIND = "agent_bundle"
AGENT_SCHEMA_VERSION = "1.3"
# 1.1 added episodes.ui_profile; a 1.0 bundle's episodes read as the default profile.
# 1.2 added the end protocol (manifest `protocol`, episodes.protocol, passed_midway,
# passed_midway_step); bundles before it stopped every episode at its first pass: `first_pass`.
# 1.3 added episodes.task_seed (the seed passed to reset); older bundles read it as null.
SUPPORTED_AGENT_SCHEMA_VERSIONS = frozenset({"1.0", "1.1", "1.2", AGENT_SCHEMA_VERSION})
DEFAULT_UI_PROFILE = "default"  # environments.ui.DEFAULT_PROFILE (exports does not import environments)
MANIFEST = "manifest.json"
ENDED_BY = ("pass", "message", "infeasible", "step_limit", "error")
# How an episode ends (agentruns.protocol): `final_state`, the humans' (the agent declares it
# finished, reports it infeasible, reaches the step limit or hits an error; the final state is
# scored), or `first_pass` (a training option: it stops the moment the live state passes).
FINAL_STATE = "final_state"
FIRST_PASS = "first_pass"
PROTOCOLS = (FINAL_STATE, FIRST_PASS)
LEGACY_PROTOCOL = FIRST_PASS  # the protocol of every bundle before schema 1.2

C = ColumnSpec

EPISODES = TableSpec(
    "episodes",
    "One row per agent episode (a task-condition run once by one agent).",
    (
        C(
            "attempt_id",
            "int",
            "Episode id, unique in the bundle (stable for task, condition, seed).",
            required=True,
        ),
        C(
            "run_id",
            "str",
            "Readable episode key: model/task_id.condition.seed (model/task_id.condition.ui_profile.seed "
            "off the default profile).",
            required=True,
        ),
        C(
            "model",
            "str",
            "The agent: `agents run --model`, else its `name` or `model_name` attribute, else the "
            "--agent string (built-in name, module:factory, or a file's agent.py:factory).",
            required=True,
        ),
        C("env_id", "str", "Environment (website) id.", required=True),
        C("task_id", "str", "Base task id.", required=True),
        C("difficulty", "str", "Task difficulty.", required=True, allowed=DIFFICULTIES),
        C("primitives", "str", "The task's primary primitives, ';'-joined."),
        C("target_primitive", "str", "The variant's target primitive on intervention rows."),
        C("condition", "str", "clean or intervention.", required=True, allowed=CONDITIONS),
        C("source_variant", "str", "The variant applied (intervention rows)."),
        C("seed", "int", "Env seed (the study seed the humans had).", required=True),
        C(
            "task_seed",
            "int",
            "The seed the framework passed to the env's reset (BrowserGym's/AgentLab's task seed): it "
            "seeds only the task's own RNG, never the instance, which is `seed`'s; since 1.3 (null before).",
        ),
        C(
            "ui_profile",
            "str",
            "The site's UI profile the episode ran on (blank, and 1.0 bundles: default, today's "
            "interface); since 1.1.",
        ),
        C("viewport_w", "int", "Viewport width in CSS pixels."),
        C("viewport_h", "int", "Viewport height in CSS pixels."),
        C("user_agent", "str", "Browser user-agent string."),
        C("started_at", "timestamp", "Episode start (UTC)."),
        C("ended_at", "timestamp", "Episode end (UTC)."),
        C("elapsed_s", "float", "Wall-clock seconds from the start page to the end.", required=True),
        C("steps", "int", "Agent actions taken.", required=True),
        C("raw_events", "int", "Number of raw DOM events recorded.", required=True),
        C("clean_steps", "int", "Number of cleaned events."),
        C("score", "float", "Evaluator score in [0, 1] of the final state.", required=True),
        C("passed", "bool", "Evaluator pass of the final state.", required=True),
        C(
            "ended_by",
            "str",
            "message (the agent declared it finished: send_msg_to_user or a done alias), infeasible "
            "(report_infeasible), step_limit, error, or pass (first_pass protocol only: the live "
            "state passed).",
            required=True,
            allowed=ENDED_BY,
        ),
        C(
            "protocol",
            "str",
            "How the episode ended: final_state (the humans' protocol) or first_pass (stopped at the "
            "first pass, a training option); blank, and bundles before 1.2: the manifest's, else "
            "first_pass; since 1.2.",
            allowed=PROTOCOLS,
        ),
        C(
            "passed_midway",
            "bool",
            "The live state passed after an action before the one the episode ended on (null: "
            "bundles before 1.2); since 1.2.",
        ),
        C(
            "passed_midway_step",
            "int",
            "The first such action (`actions.step`, from 0); null when it never passed before the end.",
        ),
        C(
            "event_match_score",
            "float",
            "WebPageBench Event-Match Score (null: the task has no event conditions).",
        ),
        C("terminal_verb", "str", "Appendix I: the last action's verb."),
        C("max_repeat_run", "int", "Appendix I: longest run of identical consecutive actions."),
        C("action_error_count", "int", "Appendix I: actions whose result reported a failure."),
        C("failed_positive_checks", "int", "Appendix I: failed obligations of the verdict."),
        C("failed_negative_checks", "int", "Appendix I: failed negative checks of the verdict."),
        C(
            "final_thought",
            "str",
            "Appendix I: the agent's last message to the user (its done message, or the reason "
            "given to report_infeasible).",
        ),
        C("error", "str", "What stopped the episode when ended_by is error."),
        C("replayed_attempt_id", "int", "Replay agent: the human attempt whose cleaned trace was replayed."),
        C(
            "replay_failure",
            "str",
            "Replay agent, failed episodes: why the trace did not reproduce a pass.",
            allowed=(
                "xpath_unresolved",
                "element_not_visible",
                "masked_value",
                "unreplayable_event",
                "state_differs",
            ),
        ),
    ),
)

ACTIONS = TableSpec(
    "actions",
    "One row per agent action, in order.",
    (
        C("attempt_id", "int", "Episode the action belongs to.", required=True),
        C("step", "int", "Position from 0.", required=True),
        C("action", "str", "The action as the agent sent it.", required=True),
        C("verb", "str", "The action's function name (click, fill, send_msg_to_user, ...)."),
        C("target", "str", "Its first argument (a bid, or an XPath for the replay agent)."),
        C("error", "str", "BrowserGym's last_action_error after it (null: it succeeded)."),
        C("url", "str", "Page URL after the action."),
        C("reward", "float", "Score after the action."),
    ),
)

AGENT_TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in (
        EPISODES,
        ACTIONS,
        EVENTS_RAW,
        EVENTS_CLEAN,
        VERDICTS,
        SEMANTIC_EVENTS,
        BACKEND_AUDIT,
        EVENT_CHECKS,
    )
}


class AgentBundleError(ValueError):
    """An agent bundle (or a table for one) does not follow the format."""


def episode_attempt_id(
    model: str, task_id: str, condition: str, seed: int, ui_profile: str = DEFAULT_UI_PROFILE
) -> int:
    """A stable positive id for an episode (same inputs, same id, in any process). The default
    profile is left out of the key, so episodes of bundles before profiles keep their ids."""
    key = f"{model}\x00{task_id}\x00{condition}\x00{seed}"
    if ui_profile != DEFAULT_UI_PROFILE:
        key += f"\x00{ui_profile}"
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:6], "big")


def to_table(name: str, frame: pd.DataFrame) -> pa.Table:
    """`frame` checked against the table's schema (unknown or missing required columns, nulls,
    closed vocabularies) and converted; raises AgentBundleError naming the problem."""
    spec = AGENT_TABLES[name]
    unknown = [c for c in frame.columns if c not in spec.column_names(include_comments=True)]
    if unknown:
        raise AgentBundleError(f"{name}: unknown columns {unknown}")
    arrays, fields = [], []
    for col in spec.columns:
        if col.name not in frame.columns:
            if col.required:
                raise AgentBundleError(f"{name}: required column {col.name!r} is missing")
            arr = pa.nulls(len(frame), type=col.arrow_type)
        else:
            series = frame[col.name]
            if col.dtype == "timestamp":
                # Bundle timestamps have millisecond resolution.
                series = pd.to_datetime(series, utc=True, format="ISO8601").dt.floor("ms")
            try:
                arr = _to_arrow_column(col, series, name)
            except Exception as exc:
                raise AgentBundleError(f"{name}.{col.name}: {exc}") from exc
            if col.required and arr.null_count:
                raise AgentBundleError(
                    f"{name}.{col.name}: {arr.null_count} null value(s) in a required column"
                )
            if col.allowed is not None:
                bad = sorted({v for v in arr.to_pylist() if v is not None and v not in col.allowed})
                if bad:
                    raise AgentBundleError(f"{name}.{col.name}: values {bad} not in {list(col.allowed)}")
        arrays.append(arr)
        fields.append(pa.field(col.name, col.arrow_type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def write_table(path: Path, name: str, frame: pd.DataFrame) -> int:
    """Validate `frame` and write it as CSV at `path`; returns the row count."""
    table = to_table(name, frame)
    pacsv.write_csv(table, str(path))
    return int(table.num_rows)


def read_table(path: Path, name: str) -> pd.DataFrame:
    """One table's CSV read back with the schema's types."""
    spec = AGENT_TABLES[name]
    header = pacsv.open_csv(str(path)).schema.names
    types = {c.name: c.arrow_type for c in spec.columns if c.name in header}
    convert = pacsv.ConvertOptions(
        column_types=types, strings_can_be_null=True, quoted_strings_can_be_null=False
    )
    frame: pd.DataFrame = pacsv.read_csv(str(path), convert_options=convert).to_pandas(
        types_mapper=pd.ArrowDtype
    )
    return _plain(frame)


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    out: dict[str, Any] = {}
    for name in frame.columns:
        s = frame[name]
        kind = str(s.dtype)
        if "int" in kind:
            out[name] = s.astype("Int64")
        elif "bool" in kind:
            out[name] = s.astype("boolean")
        elif "double" in kind or "float" in kind:
            out[name] = s.astype("float64")
        elif "timestamp" in kind:
            out[name] = s.astype("datetime64[ms, UTC]")
        else:
            out[name] = s.astype(object).where(s.notna(), None)
    return pd.DataFrame(out, index=frame.index)


def write_manifest(
    out_dir: Path, *, row_counts: dict[str, int], settings: dict[str, Any], protocol: str = FINAL_STATE
) -> Path:
    """`manifest.json` with the kind, schema version, end protocol, counts, run settings and
    sha256 of every file."""
    if protocol not in PROTOCOLS:
        raise AgentBundleError(f"unknown protocol {protocol!r} (use {' or '.join(PROTOCOLS)})")
    files = {}
    for name in AGENT_TABLES:
        path = out_dir / f"{name}.csv"
        if path.is_file():
            files[path.name] = {
                "table": name,
                "rows": row_counts.get(name, 0),
                "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            }
    manifest = {
        "kind": AGENT_BUNDLE_KIND,
        "schema_version": AGENT_SCHEMA_VERSION,
        "protocol": protocol,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "settings": settings,
        "row_counts": row_counts,
        "tables": {n: [c.name for c in s.columns] for n, s in AGENT_TABLES.items()},
        "files": files,
    }
    path = out_dir / MANIFEST
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
    return path


def is_agent_bundle(path: str | Path) -> bool:
    """Whether `path` is a directory whose manifest says it is an agent bundle."""
    manifest = Path(path) / MANIFEST
    if not manifest.is_file():
        return False
    try:
        return bool(json.loads(manifest.read_text(encoding="utf-8")).get("kind") == AGENT_BUNDLE_KIND)
    except (json.JSONDecodeError, OSError):
        return False


def _manifest(root: Path) -> dict[str, Any]:
    if not is_agent_bundle(root):
        raise AgentBundleError(
            f"{root} is not an agent bundle (no manifest.json of kind {AGENT_BUNDLE_KIND!r})"
        )
    manifest: dict[str, Any] = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    version = str(manifest.get("schema_version"))
    if version not in SUPPORTED_AGENT_SCHEMA_VERSIONS:
        raise AgentBundleError(
            f"{root}: unknown agent bundle schema version {version!r} "
            f"(supported: {', '.join(sorted(SUPPORTED_AGENT_SCHEMA_VERSIONS))})"
        )
    return manifest


def manifest_protocol(manifest: dict[str, Any]) -> str:
    """The end protocol a manifest states; a bundle before schema 1.2 is `first_pass`."""
    protocol = manifest.get("protocol") or LEGACY_PROTOCOL
    if protocol not in PROTOCOLS:
        raise AgentBundleError(f"manifest protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}")
    return str(protocol)


def bundle_protocol(path: str | Path) -> str:
    """The end protocol of the agent bundle at `path` (`final_state` or `first_pass`)."""
    return manifest_protocol(_manifest(Path(path)))


def read_agent_bundle(path: str | Path, *, tables: list[str] | None = None) -> dict[str, pd.DataFrame]:
    """The bundle's tables (all, or `tables`), each checked against its manifest's sha256.

    Older bundles read in today's columns: a 1.0 episode's `ui_profile` is the default, a blank
    `protocol` is the manifest's (before 1.2: `first_pass`), and `passed_midway` (before 1.2) and
    `task_seed` (before 1.3) are null when the bundle did not record them.
    """
    root = Path(path)
    manifest = _manifest(root)
    out: dict[str, pd.DataFrame] = {}
    for name in tables or list(AGENT_TABLES):
        file = root / f"{name}.csv"
        entry = manifest["files"].get(file.name)
        if entry is None or not file.is_file():
            raise AgentBundleError(f"{root}: table {name!r} is missing")
        if hashlib.sha256(file.read_bytes()).hexdigest() != entry["sha256"]:
            raise AgentBundleError(
                f"{file}: sha256 differs from the manifest (the file changed after the run)"
            )
        out[name] = read_table(file, name)
    if "episodes" in out:
        # A 1.0 bundle (before UI profiles), or a blank profile: today's interface.
        episodes = out["episodes"]
        profile = episodes["ui_profile"] if "ui_profile" in episodes.columns else None
        episodes["ui_profile"] = (
            DEFAULT_UI_PROFILE if profile is None else profile.where(profile.notna(), DEFAULT_UI_PROFILE)
        )
        stated = manifest_protocol(manifest)
        protocol = episodes["protocol"] if "protocol" in episodes.columns else None
        episodes["protocol"] = stated if protocol is None else protocol.where(protocol.notna(), stated)
        if "task_seed" not in episodes.columns:
            episodes["task_seed"] = pd.Series(pd.NA, index=episodes.index, dtype="Int64")
        if "passed_midway" not in episodes.columns:
            episodes["passed_midway"] = pd.Series(pd.NA, index=episodes.index, dtype="boolean")
            episodes["passed_midway_step"] = pd.Series(pd.NA, index=episodes.index, dtype="Int64")
    return out


def verdict_rows(attempt_id: int, verdict: dict[str, Any]) -> list[dict[str, Any]]:
    """The evaluator's Verdict (as JSON) as rows of the bundle's `verdicts` table."""
    rows = []
    for check in verdict.get("positive_checks", []):
        rows.append(
            {
                "attempt_id": attempt_id,
                "kind": check["kind"],
                "polarity": "positive",
                "index": check["index"],
                "name": check.get("name"),
                "desc": check.get("desc"),
                "passed": check["passed"],
                "credit": check.get("credit"),
                "weight": check.get("weight"),
                "diagnosis": check.get("diagnosis"),
            }
        )
    for check in verdict.get("negative_checks", []):
        kind = check["kind"] if check["kind"] != "surplus" else "named_invariant"
        rows.append(
            {
                "attempt_id": attempt_id,
                "kind": kind,
                "polarity": "negative",
                "index": check.get("index") if check.get("index") is not None else -1,
                "name": check.get("name"),
                "passed": check["passed"],
                "severity": check.get("severity"),
                "penalty": check.get("penalty"),
                "diagnosis": check.get("diagnosis"),
            }
        )
    return rows
