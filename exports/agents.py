"""Import agent run bundles (CSV, Parquet or JSONL) and validate them row by row.

Every bad row is reported with its file, its line (1-based as a person counts lines in the
file; the CSV header is line 1; Parquet has no lines, so its rows are numbered from 1) and the
reason; good rows are kept. Tasks and task-conditions the human study lacks are listed, never
silently dropped.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import pyarrow.parquet as pq
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, ValidationInfo

from humantrace.exports.agent_bundle import DEFAULT_UI_PROFILE, FINAL_STATE, FIRST_PASS, PROTOCOLS
from humantrace.exports.failure_modes import (
    DONE_VERBS,
    FEATURE_COLUMNS,
    MODE_CLASS,
    classify_failures,
    run_failed,
)
from humantrace.exports.schema import CONDITIONS, DIFFICULTIES

REQUIRED_COLUMNS = (
    "model",
    "task",
    "env",
    "difficulty",
    "condition",
    "score",
    "steps",
    "elapsed_s",
    "source_variant",
)
# event_match_score: WebPageBench EMS of the episode; completed: the agent declared the run finished
# (else derived from terminal_verb); target_primitive: the variant's primitive (else the human bundle's).
# ui_profile: the site's UI profile the run was on (blank or absent: "default", today's interface).
# protocol: how the run ended (final_state, the humans'; first_pass, stopped at the first pass);
# an agent bundle directory always states it, a file may leave it blank (not stated).
# passed_midway(_step): the live state passed before the run's end (and after which action).
EXTRA_COLUMNS = (
    "event_match_score",
    "completed",
    "target_primitive",
    "ui_profile",
    "protocol",
    "passed_midway",
    "passed_midway_step",
)
OPTIONAL_COLUMNS = ("run_id", "passed", "seed", *FEATURE_COLUMNS, *EXTRA_COLUMNS)
_COUNT_FEATURES = ("max_repeat_run", "action_error_count", "failed_positive_checks", "failed_negative_checks")
_PROFILE_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
_TRUE = {"true", "1", "yes", "t", "y"}
_FALSE = {"false", "0", "no", "f", "n"}


@dataclass(frozen=True)
class ImportIssue:
    """One problem in an agent bundle. `line` is None for a file-level problem."""

    file: str
    line: int | None
    reason: str
    unit: str = "line"  # "line" (CSV, JSONL), "row" (Parquet) or "file" (a file-level problem)

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.unit} {self.line}"
        return f"{where}: {self.reason}"


@dataclass
class AgentImport:
    """Validated agent runs, the problems found, and what the human study does not cover."""

    runs: pd.DataFrame
    errors: list[ImportIssue] = field(default_factory=list)
    unmatched_tasks: list[str] = field(default_factory=list)
    unmatched_task_conditions: list[tuple[str, str]] = field(default_factory=list)
    ignored_columns: list[str] = field(default_factory=list)


def _blank(value: Any) -> bool:
    if isinstance(value, str):
        return not value.strip()
    return value is None or (isinstance(value, float) and math.isnan(value))


def _number(value: Any) -> float | None:
    """float(value), or None when it is not a finite number."""
    if isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return True if text in _TRUE else False if text in _FALSE else None


def _raw_text(value: Any) -> str | None:
    return None if _blank(value) else str(value)


def _records(path: Path) -> tuple[list[str], Iterator[tuple[int, dict[str, Any]]], str]:
    """(column names, (line, record) pairs, unit of the line numbers)."""
    if path.is_dir():
        return _agent_bundle_records(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        fh = path.open(newline="", encoding="utf-8-sig")
        reader = csv.reader(fh)
        header = next(reader, None) or []
        header = [h.strip() for h in header]

        def rows() -> Iterator[tuple[int, dict[str, Any]]]:
            with fh:
                while True:
                    start = reader.line_num + 1  # first physical line of the next record
                    try:
                        values = next(reader)
                    except StopIteration:
                        return
                    if not values or all(not v.strip() for v in values):
                        continue
                    if len(values) != len(header):
                        yield start, {"__error__": f"{len(values)} fields, the header has {len(header)}"}
                        continue
                    yield start, dict(zip(header, values, strict=True))

        return header, rows(), "line"
    if suffix == ".parquet":
        table = pq.read_table(path)
        names = table.column_names
        return names, ((i + 1, rec) for i, rec in enumerate(table.to_pylist())), "row"
    if suffix in (".jsonl", ".ndjson"):
        parsed: list[tuple[int, dict[str, Any]]] = []
        with path.open(encoding="utf-8") as fh:
            for number, text in enumerate(fh, start=1):
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except json.JSONDecodeError as exc:
                    parsed.append((number, {"__error__": f"not valid JSON ({exc.msg})"}))
                    continue
                if not isinstance(record, dict):
                    record = {"__error__": "a JSONL line must hold one JSON object"}
                parsed.append((number, record))
        # The union of keys plays the header's part: a column no line has is a file-level error.
        keys = list(dict.fromkeys(k for _, rec in parsed if "__error__" not in rec for k in rec))
        return keys, iter(parsed), "line"
    raise ValueError(f"{path}: unsupported agent bundle format {suffix!r} (use .csv, .parquet or .jsonl)")


def _agent_bundle_records(path: Path) -> tuple[list[str], Iterator[tuple[int, dict[str, Any]]], str]:
    """An agent bundle directory (`humantrace agents run`): its episodes, with the run columns'
    names (`task_id` is `task`, `env_id` is `env`); rows are numbered from 1."""
    from humantrace.exports.agent_bundle import AgentBundleError, read_agent_bundle

    try:
        episodes = read_agent_bundle(path, tables=["episodes"])["episodes"]
    except AgentBundleError as exc:
        raise ValueError(str(exc)) from exc
    episodes = episodes.rename(columns={"task_id": "task", "env_id": "env"})
    keep = [c for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if c in episodes.columns]
    records = episodes[keep].astype(object).where(episodes[keep].notna(), None).to_dict(orient="records")
    return keep, ((i + 1, {str(k): v for k, v in rec.items()}) for i, rec in enumerate(records)), "row"


def _text(value: Any, info: ValidationInfo) -> str:
    if _blank(value):
        raise ValueError(f"{info.field_name} is empty")
    return str(value).strip()


def _optional_text(value: Any) -> str | None:
    return None if _blank(value) else str(value).strip()


def _choice(allowed: tuple[str, ...], expected: str) -> Callable[[Any, ValidationInfo], str]:
    def check(value: Any, info: ValidationInfo) -> str:
        text = str(value or "").strip().lower()
        if text not in allowed:
            raise ValueError(f"unknown {info.field_name} {value!r} (expected {expected})")
        return text

    return check


def _score(value: Any) -> float:
    if _blank(value):
        raise ValueError("score is empty")
    if (number := _number(value)) is None:
        raise ValueError(f"score {value!r} is not a number")
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"score {number:g} is outside [0, 1]")
    return number


def _count(value: Any, info: ValidationInfo) -> int | None:
    """A non-negative integer; True/False (or yes/no) count as 1/0 for the failure features."""
    if _blank(value):
        return None
    flag_words = (_TRUE | _FALSE) - {"0", "1"}
    if info.field_name in _COUNT_FEATURES and (
        isinstance(value, bool) or str(value).strip().lower() in flag_words
    ):
        return int(value if isinstance(value, bool) else bool(_bool(value)))
    number = _number(value)
    if number is None or number < 0 or number != int(number):
        raise ValueError(f"{info.field_name} {value!r} is not a non-negative integer")
    return int(number)


def _duration(value: Any, info: ValidationInfo) -> float | None:
    if _blank(value):
        return None
    number = _number(value)
    if number is None or number < 0:
        raise ValueError(f"{info.field_name} {value!r} is not a non-negative number")
    return number


def _seed(value: Any) -> int | None:
    if _blank(value):
        return None
    number = _number(value)
    if number is None or number != int(number):
        raise ValueError(f"seed {value!r} is not an integer")
    return int(number)


def _profile(value: Any) -> str:
    """A UI profile name; blank (rows and bundles from before profiles) is the default profile."""
    if _blank(value):
        return DEFAULT_UI_PROFILE
    text = str(value).strip()
    if not _PROFILE_NAME.match(text):
        raise ValueError(f"ui_profile {value!r} is not a profile name (lower-case letters, digits and '-')")
    return text


def _protocol(value: Any) -> str | None:
    if _blank(value):
        return None
    text = str(value).strip().lower()
    if text not in PROTOCOLS:
        raise ValueError(f"unknown protocol {value!r} (expected {' or '.join(PROTOCOLS)})")
    return text


def _flag(value: Any, info: ValidationInfo) -> bool | None:
    if _blank(value):
        return None
    if (flag := _bool(value)) is None:
        raise ValueError(f"{info.field_name} {value!r} is not a boolean")
    return flag


def _share(value: Any) -> float | None:
    if _blank(value):
        return None
    if (number := _number(value)) is None or not 0.0 <= number <= 1.0:
        raise ValueError(f"event_match_score {value!r} is not a number in [0, 1]")
    return number


Text = Annotated[str, BeforeValidator(_text)]
OptionalText = Annotated[str | None, BeforeValidator(_optional_text)]
Count = Annotated[int | None, BeforeValidator(_count)]
Flag = Annotated[bool | None, BeforeValidator(_flag)]


class AgentRunRow(BaseModel):
    """One agent run as a bundle row gives it. Each field's check names the field and the value it
    refuses, in the words the import reports (`score 'abc' is not a number`); blank optional fields
    are None. Columns the platform does not know are ignored (and listed by the import)."""

    model_config = ConfigDict(extra="ignore")

    model: Text
    task: Text
    env: Text
    difficulty: Annotated[str, BeforeValidator(_choice(DIFFICULTIES, "one of " + ", ".join(DIFFICULTIES)))]
    condition: Annotated[str, BeforeValidator(_choice(CONDITIONS, "clean or intervention"))]
    score: Annotated[float, BeforeValidator(_score)]
    steps: Count = None
    elapsed_s: Annotated[float | None, BeforeValidator(_duration)] = None
    source_variant: OptionalText = None
    run_id: OptionalText = None
    # The env seed the run's website was built from: compare warns when it is not the human study's.
    seed: Annotated[int | None, BeforeValidator(_seed)] = None
    passed: Flag = None
    max_repeat_run: Count = None
    action_error_count: Count = None
    failed_positive_checks: Count = None
    failed_negative_checks: Count = None
    terminal_verb: Annotated[str | None, BeforeValidator(_raw_text)] = None
    final_thought: Annotated[str | None, BeforeValidator(_raw_text)] = None
    target_primitive: Annotated[str | None, BeforeValidator(_raw_text)] = None
    event_match_score: Annotated[float | None, BeforeValidator(_share)] = None
    completed: Flag = None
    ui_profile: Annotated[str, BeforeValidator(_profile)] = DEFAULT_UI_PROFILE
    protocol: Annotated[str | None, BeforeValidator(_protocol)] = None
    passed_midway: Flag = None
    passed_midway_step: Count = None


def _validate(record: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """The normalised run, or None with the reasons it is rejected (every field's, in column order)."""
    if "__error__" in record:
        return None, [record["__error__"]]
    reasons: list[str] = []
    run: dict[str, Any] | None = None
    try:
        run = AgentRunRow.model_validate(record).model_dump()
    except ValidationError as exc:
        reasons = [str(error.get("ctx", {}).get("error", error["msg"])) for error in exc.errors()]
    condition = str(record.get("condition") or "").strip().lower()
    if condition == "intervention" and _blank(record.get("source_variant")):
        reasons.append("source_variant is empty on an intervention run")
    return (None, reasons) if reasons else (run, [])


def _human_index(
    human_tasks: Iterable[str | tuple[str, str]],
) -> tuple[set[str], set[tuple[str, str]] | None]:
    tasks: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for item in human_tasks:
        if isinstance(item, tuple):
            tasks.add(item[0])
            pairs.add((item[0], item[1]))
        else:
            tasks.add(item)
    return tasks, (pairs or None)


def import_agent_runs(
    paths: Iterable[str | Path] | str | Path, *, human_tasks: Iterable[str | tuple[str, str]] | None = None
) -> AgentImport:
    """Read and validate agent run bundles.

    `human_tasks`: task ids, or (task_id, condition) pairs, that the human study has; runs on
    others are kept and listed in `unmatched_tasks` / `unmatched_task_conditions`.
    The runs DataFrame gains `passed` (given, else score == 1), `failure_mode` and `mode_class`.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    errors: list[ImportIssue] = []
    ignored: set[str] = set()
    runs: list[dict[str, Any]] = []
    seen_ids: dict[str, str] = {}
    for raw_path in paths:
        path = Path(raw_path)
        if not path.is_file() and not path.is_dir():
            errors.append(ImportIssue(str(path), None, "file not found", "file"))
            continue
        try:
            header, records, unit = _records(path)
        except (ValueError, OSError) as exc:
            errors.append(ImportIssue(str(path), None, str(exc), "file"))
            continue
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        for column in missing:
            errors.append(ImportIssue(path.name, None, f"missing required column {column!r}", "file"))
        if missing:
            continue
        ignored.update(c for c in header if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS)
        for line, record in records:
            if "__error__" not in record:
                absent = [c for c in REQUIRED_COLUMNS if c not in record]
                if absent:
                    errors.append(ImportIssue(path.name, line, f"missing field(s) {', '.join(absent)}", unit))
                    continue
            run, reasons = _validate(record)
            run_id = (
                run["run_id"]
                if run
                else (None if _blank(record.get("run_id")) else str(record.get("run_id")).strip())
            )
            if run_id is not None:
                if run_id in seen_ids:
                    reasons.append(f"duplicate run_id {run_id!r} (first at {seen_ids[run_id]})")
                    run = None
                else:
                    seen_ids[run_id] = f"{path.name}:{unit} {line}"
            for reason in reasons:
                errors.append(ImportIssue(path.name, line, reason, unit))
            if run is not None and not reasons:
                run["source_file"] = path.name
                run["source_line"] = line
                runs.append(run)
    frame = _runs_frame(runs)
    result = AgentImport(runs=frame, errors=errors, ignored_columns=sorted(ignored))
    if human_tasks is not None and not frame.empty:
        tasks, pairs = _human_index(human_tasks)
        result.unmatched_tasks = sorted(set(frame["task"]) - tasks)
        if pairs is not None:
            present = set(zip(frame["task"], frame["condition"], strict=True))
            result.unmatched_task_conditions = sorted(p for p in present - pairs if p[0] in tasks)
    return result


def _runs_frame(runs: list[dict[str, Any]]) -> pd.DataFrame:
    columns = [
        "run_id",
        *REQUIRED_COLUMNS,
        "passed",
        "seed",
        *FEATURE_COLUMNS,
        *EXTRA_COLUMNS,
        "source_file",
        "source_line",
    ]
    frame = pd.DataFrame(runs, columns=columns)
    if frame.empty:
        frame["failure_mode"] = pd.Series(dtype=object)
        frame["mode_class"] = pd.Series(dtype=object)
        return frame
    frame["score"] = frame["score"].astype(float)
    given = frame["passed"].astype(object)
    derived = ~run_failed(frame.drop(columns=["passed"]))
    frame["passed"] = given.where(given.notna(), derived).astype(bool)
    frame["event_match_score"] = pd.to_numeric(frame["event_match_score"], errors="coerce")
    verbs = frame["terminal_verb"].astype(object)
    declared = pd.Series(
        [None if _blank(v) else str(v).lower().split("(")[0].strip() in DONE_VERBS for v in verbs],
        index=frame.index,
        dtype=object,
    )
    given_done = frame["completed"].astype(object)
    frame["completed"] = given_done.where(given_done.notna(), declared).astype(object)
    frame["failure_mode"] = classify_failures(frame)
    frame["mode_class"] = frame["failure_mode"].map(lambda m: MODE_CLASS.get(m) if m else None).astype(object)
    return frame


class ProtocolMixError(ValueError):
    """Agent runs of both end protocols were to be compared side by side without being allowed."""


_PROTOCOL_WORDS = {
    FINAL_STATE: "final_state (the humans' protocol)",
    FIRST_PASS: "first_pass (stopped at the first pass)",
}


def check_protocols(runs: pd.DataFrame, *, allow_mix: bool = False) -> list[str]:
    """Notes on the runs' end protocols; raises ProtocolMixError (one line, saying why) when runs of
    both protocols are present and `allow_mix` is false.

    A first_pass run that reached the goal and then undid it is a pass, a final_state run of the
    same actions a failure, so their pass rates do not measure the same thing. Runs whose file
    states no protocol are not judged.
    """
    if runs.empty or "protocol" not in runs.columns:
        return []
    stated = runs.dropna(subset=["protocol"])
    files: dict[str, list[str]] = {
        str(protocol): sorted(set(group["source_file"].astype(str)))
        for protocol, group in stated.groupby("protocol", sort=True)
    }
    notes: list[str] = []
    if len(files) > 1:
        where = " and ".join(f"{', '.join(f)} {_PROTOCOL_WORDS[p]}" for p, f in files.items())
        if not allow_mix:
            raise ProtocolMixError(
                f"agent bundles of two end protocols: {where}; a first_pass run that reached the goal "
                "and then undid it counts as a pass, so their pass rates are not comparable; add "
                "--mix-protocols to compare them anyway"
            )
        notes.append(f"agent runs of both end protocols are compared (--mix-protocols): {where}")
    if FIRST_PASS in files:
        n = int((stated["protocol"] == FIRST_PASS).sum())
        notes.append(
            f"{n} agent run(s) in {', '.join(files[FIRST_PASS])} stopped at the first pass (first_pass "
            "protocol): a state that passed at any step counts there, while a person's attempt is "
            "scored on its final state"
        )
    return notes
