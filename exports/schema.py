"""The human reference bundle format: tables, columns, dtypes and the privacy guard.

One place defines every column of every bundle table, so the writer, the reader, the verifier
and `docs/exports.md` agree. List-valued fields (`primitives`, `source_seqs`) are stored as
';'-joined strings in both Parquet and CSV, so a bundle reads the same whichever format is used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa

SCHEMA_VERSION = "2.2"
# 2.0 added columns (attempts: seed, variant_id, event_match_score; events: stream, frame_xpath),
# the tables semantic_events, backend_audit and event_checks (a 1.0 bundle reads with the columns
# null and the tables empty) and neutralised spreadsheet formulas in CSV text cells (manifest
# `csv_formula_escape`, undone on reading). 2.1 added attempts.ui_profile (the site's UI profile the
# attempt ran on; an older bundle reads it as "default", the only interface there was). 2.2 added
# the lead's review decisions (attempts.review_decision; ratings.review_decision, review_note,
# reviewed_by, reviewed_at): attempts a lead excluded are exported, marked, instead of left out,
# so `compare` can exclude them and say how many; and attempts.away_s (time with no website tab
# present or visible). An older bundle reads all of them as null (not recorded, not measured).
SUPPORTED_SCHEMA_VERSIONS = frozenset({"1.0", "2.0", "2.1", SCHEMA_VERSION})
REVIEW_DECISIONS = ("keep", "exclude_attempt", "fix_task")
LIST_SEPARATOR = ";"

CONDITIONS = ("clean", "intervention")
PHASES = ("cold", "warm")
TIERS = ("primary", "duplicate")
OUTCOMES = ("evaluated", "abandoned", "timed_out")
DIFFICULTIES = ("easy", "medium", "hard", "expert", "frontier")
PRIMITIVES = (
    "grounding",
    "planning",
    "state_tracking",
    "backtracking",
    "patience",
    "exploration",
    "verification",
)
POSITIVE_KINDS = ("create", "update", "delete")
NEGATIVE_KINDS = ("invariant", "constraint", "collateral", "named_invariant")
SEVERITIES = ("critical", "high", "medium", "low")

_DTYPES: dict[str, pa.DataType] = {
    "int": pa.int64(),
    "float": pa.float64(),
    "str": pa.string(),
    "bool": pa.bool_(),
    "timestamp": pa.timestamp("ms", tz="UTC"),
}


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a bundle table."""

    name: str
    dtype: str  # one of: int, float, str, bool, timestamp
    description: str
    required: bool = False  # required columns must be present and never null
    allowed: tuple[str, ...] | None = None  # closed vocabulary, when the column has one

    @property
    def arrow_type(self) -> pa.DataType:
        return _DTYPES[self.dtype]


@dataclass(frozen=True)
class TableSpec:
    """One bundle table: its columns in file order."""

    name: str
    description: str
    columns: tuple[ColumnSpec, ...]

    def column_names(self, *, include_comments: bool) -> list[str]:
        return [c.name for c in self.columns if include_comments or c.name != "comments"]

    def arrow_schema(self, *, include_comments: bool) -> pa.Schema:
        keep = set(self.column_names(include_comments=include_comments))
        return pa.schema([pa.field(c.name, c.arrow_type) for c in self.columns if c.name in keep])

    def column(self, name: str) -> ColumnSpec:
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(name)


C = ColumnSpec

_RATING_COLUMNS = (
    C("clarity", "int", "Rating: the instruction was clear (1-5 Likert); null when no rating."),
    C("realism", "int", "Rating: the website behaved like a real one (1-5 Likert)."),
    C("intervention_naturalness", "int", "Rating: the intervention felt natural (1-5 Likert)."),
    C("fun_value", "int", "Rating: fun / demo value (1-5 Likert)."),
    C("suspected_bug", "bool", "Flag: the annotator suspects a bug."),
    C("ambiguous_instruction", "bool", "Flag: the instruction was ambiguous."),
    C("alternate_valid_strategy", "bool", "Flag: another valid strategy exists that may score as a fail."),
    C("comments", "str", "Free-text comments; present only in bundles written with include_comments."),
)

ATTEMPTS = TableSpec(
    "attempts",
    "One row per attempt (cold or warm). Rating columns repeat the assignment's rating on both "
    "of its attempts (null when the annotator gave none).",
    (
        C("attempt_id", "int", "Attempt id, unique in the bundle.", required=True),
        C("annotator", "str", "Coded annotator id (e.g. A1, D2); never a name or e-mail.", required=True),
        C("env_id", "str", "Environment (website) id.", required=True),
        C("task_id", "str", "Base task id.", required=True),
        C("difficulty", "str", "Task difficulty.", required=True, allowed=DIFFICULTIES),
        C("primitives", "str", "The task's primary primitives, ';'-joined (e.g. 'grounding;planning')."),
        C(
            "target_primitive",
            "str",
            "The variant's target primitive on intervention rows (null on clean rows); results are "
            "grouped by it.",
        ),
        C("condition", "str", "clean or intervention.", required=True, allowed=CONDITIONS),
        C(
            "seed",
            "int",
            "The env seed the attempt's website was built from: the study's seed, the same for both "
            "conditions, cold and warm, the duplicate and every agent run (schema 2.0).",
        ),
        C("variant_id", "str", "The variant applied on intervention rows (null on clean rows) (schema 2.0)."),
        C(
            "ui_profile",
            "str",
            "The site's UI profile the attempt ran on (docs/ui-variants.md); 'default' is the site as "
            "built without one (schema 2.1; an older bundle reads as 'default').",
        ),
        C("phase", "str", "cold (first try) or warm (immediate repeat).", required=True, allowed=PHASES),
        C("tier", "str", "primary or duplicate (duplicate audit).", required=True, allowed=TIERS),
        C("assignment_id", "int", "Assignment owning this attempt.", required=True),
        C("viewport_w", "int", "Viewport width in CSS pixels."),
        C("viewport_h", "int", "Viewport height in CSS pixels."),
        C("user_agent", "str", "Browser user-agent string."),
        C("started_at", "timestamp", "Attempt start (UTC)."),
        C("ended_at", "timestamp", "Attempt end (UTC)."),
        C(
            "wall_clock_s",
            "float",
            "Wall-clock seconds from the attempt's first recorded event after the website started to "
            "its end (Evaluate, Abandon or time-out), as the paper defines it; time away included.",
            required=True,
        ),
        C(
            "away_s",
            "float",
            "Seconds of the wall clock with no website tab present or visible (closed, or hidden behind "
            "another tab or window), from the presence channel and the recorder's visibility events "
            "(docs/study.md); null when not measured (schema 2.2; older bundles read as null).",
        ),
        C("raw_events", "int", "Number of raw DOM events recorded.", required=True),
        C("clean_steps", "int", "Number of cleaned events (the cleaned step count)."),
        C("score", "float", "Evaluator score in [0, 1] of the final state.", required=True),
        C("passed", "bool", "Evaluator pass: every obligation met, no negative check failed.", required=True),
        C("outcome", "str", "How the attempt ended.", required=True, allowed=OUTCOMES),
        C("rolled_back", "bool", "Part of a rolled-back assignment (excluded from analyses).", required=True),
        C(
            "event_match_score",
            "float",
            "WebPageBench Event-Match Score of the attempt's semantic event log: 1 when every event condition "
            "of the task holds, else 0; null when the task declares no event conditions (2.0).",
        ),
        *_RATING_COLUMNS,
        C(
            "review_decision",
            "str",
            "The lead's review decision on the assignment's rating: keep, exclude_attempt (the attempt "
            "leaves the analyses: `compare` excludes it and counts it) or fix_task; null when no lead "
            "reviewed it (2.2).",
            allowed=REVIEW_DECISIONS,
        ),
    ),
)

_RAW_COLUMNS = (
    C("attempt_id", "int", "Attempt the event belongs to.", required=True),
    C(
        "stream",
        "int",
        "Page instance (browser tab) of the attempt the event comes from, from 0; null in 1.0 bundles (one stream).",
    ),
    C("seq", "int", "Sequence number, contiguous per attempt and stream from 0.", required=True),
    C("t_ms", "int", "Event time, epoch milliseconds.", required=True),
    C("type", "str", "Event type (click, keydown, input, scroll, ...).", required=True),
    C(
        "xpath",
        "str",
        "Absolute XPath of the target (scroll: the scrolled container), in its frame's document.",
    ),
    C(
        "frame_xpath",
        "str",
        "Chain of iframe XPaths from the top document (' >> '-joined); empty at the top.",
    ),
    C("url", "str", "Page URL."),
    C("x", "float", "Pointer x (click, dblclick, contextmenu, mousemove)."),
    C("y", "float", "Pointer y."),
    C("key", "str", "Key (keydown)."),
    C(
        "value",
        "str",
        "Element value after the event, masked by policy (input, change); selected text (select).",
    ),
    C("scroll_x", "float", "Scroll position x (scroll)."),
    C("scroll_y", "float", "Scroll position y (scroll)."),
    C("dx", "float", "Scroll delta x (scroll)."),
    C("dy", "float", "Scroll delta y (scroll)."),
    C("nav", "str", "Navigation kind: load, push, replace, popstate, hashchange, unload."),
    C("added", "int", "dom_change: nodes added."),
    C("removed", "int", "dom_change: nodes removed."),
    C("attributes", "int", "dom_change: attribute mutations."),
    C("width", "int", "resize: new viewport width."),
    C("height", "int", "resize: new viewport height."),
    C("state", "str", "visibility: visible or hidden."),
)

EVENTS_RAW = TableSpec("events_raw", "One row per raw DOM event (the recorder's flat table).", _RAW_COLUMNS)

EVENTS_CLEAN = TableSpec(
    "events_clean",
    "One row per cleaned event: the raw columns, then its step number and the raw seqs it came from.",
    (
        *_RAW_COLUMNS,
        C("step", "int", "Position in the cleaned trace, from 0.", required=True),
        C("source_seqs", "str", "Raw seqs merged into this event, ';'-joined (e.g. '4;5;6').", required=True),
    ),
)

VERDICTS = TableSpec(
    "verdicts",
    "One row per evaluator check of an attempt's verdict.",
    (
        C("attempt_id", "int", "Attempt the verdict scores.", required=True),
        C("kind", "str", "Check kind.", required=True, allowed=POSITIVE_KINDS + NEGATIVE_KINDS),
        C(
            "polarity",
            "str",
            "positive (an obligation: create/update/delete) or negative (invariant, constraint, sweep).",
            required=True,
            allowed=("positive", "negative"),
        ),
        C("index", "int", "Position of the entry in its list of the canonical diff.", required=True),
        C("name", "str", "Check name."),
        C("desc", "str", "Check description."),
        C("passed", "bool", "Whether the check passed.", required=True),
        C("credit", "float", "Positive checks: credit earned in [0, 1]."),
        C("weight", "float", "Positive checks: weight."),
        C("severity", "str", "Negative checks: severity.", allowed=SEVERITIES),
        C("penalty", "float", "Negative checks: penalty subtracted when failed."),
        C("diagnosis", "str", "Evaluator diagnosis text."),
    ),
)

RATINGS = TableSpec(
    "ratings",
    "One row per submitted rating form (after the warm attempt).",
    (
        C("assignment_id", "int", "Assignment rated.", required=True),
        C("annotator", "str", "Coded annotator id.", required=True),
        C("task_id", "str", "Base task id.", required=True),
        C("condition", "str", "clean or intervention.", required=True, allowed=CONDITIONS),
        *_RATING_COLUMNS,
        C(
            "review_decision",
            "str",
            "The lead's decision on a flagged rating: keep, exclude_attempt or fix_task; null when "
            "not reviewed (2.2).",
            allowed=REVIEW_DECISIONS,
        ),
        C("review_note", "str", "The lead's note on the decision (2.2)."),
        C("reviewed_by", "str", "Coded id of the lead who decided (e.g. L1); never a name or e-mail (2.2)."),
        C("reviewed_at", "timestamp", "When the lead decided (UTC) (2.2)."),
    ),
)

SEMANTIC_EVENTS = TableSpec(
    "semantic_events",
    "One row per typed semantic event the website emitted during an attempt (its env session's event "
    "log: `cart_add {product_id, quantity}`, ...) (2.0).",
    (
        C("attempt_id", "int", "Attempt whose env session emitted the event.", required=True),
        C("seq", "int", "Position in the session's event log, from 0.", required=True),
        C("t_ms", "int", "When the event was emitted, epoch milliseconds.", required=True),
        C("event", "str", "Event type (e.g. cart_add).", required=True),
        C("params", "str", "The event's parameters as a JSON object (keys sorted).", required=True),
    ),
)

BACKEND_AUDIT = TableSpec(
    "backend_audit",
    "One row per environment API call of an attempt (its env session's audit log) (2.0).",
    (
        C("attempt_id", "int", "Attempt whose env session answered the call.", required=True),
        C("seq", "int", "Position in the attempt's audit log, oldest first, from 0.", required=True),
        C("t", "timestamp", "When the call was answered (UTC).", required=True),
        C("method", "str", "HTTP method.", required=True),
        C("path", "str", "Request path under /api/env/<env_id>/ (no query string).", required=True),
        C(
            "status",
            "int",
            "HTTP status answered (an intervention's synthesized status included).",
            required=True,
        ),
        C("intervention", "str", "The network intervention that fired on this call (null: none did)."),
        C(
            "intervention_fired",
            "bool",
            "True when a network intervention fired on this call.",
            required=True,
        ),
        C("duration_ms", "int", "Time the server took to answer, milliseconds (an injected delay included)."),
    ),
)

EVENT_CHECKS = TableSpec(
    "event_checks",
    "One row per event condition of the task (WebPageBench event-level verification) for every attempt "
    "whose task declares event conditions; `verdicts` holds the canonical-diff checks (2.0).",
    (
        C("attempt_id", "int", "Attempt verified.", required=True),
        C("index", "int", "Position of the condition in the task's event_conditions.", required=True),
        C("event", "str", "Event the condition asks for; null for an any_of group."),
        C(
            "params",
            "str",
            "Required params as a JSON object; for an any_of group, its members' events ';'-joined.",
        ),
        C("match", "str", "last or any (null: the default rule).", allowed=("last", "any")),
        C("passed", "bool", "Whether the condition held.", required=True),
        C("matched_event", "int", "seq of the semantic event that satisfied it (null when none did)."),
        C("diagnosis", "str", "The verifier's explanation."),
    ),
)

TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in (
        ATTEMPTS,
        EVENTS_RAW,
        EVENTS_CLEAN,
        VERDICTS,
        RATINGS,
        SEMANTIC_EVENTS,
        BACKEND_AUDIT,
        EVENT_CHECKS,
    )
}
# Tables a bundle of each schema version holds; a 1.0 bundle reads with the 2.0 tables empty.
TABLES_BY_VERSION: dict[str, tuple[str, ...]] = {
    "1.0": ("attempts", "events_raw", "events_clean", "verdicts", "ratings"),
    "2.0": tuple(TABLES),
    "2.1": tuple(TABLES),
    "2.2": tuple(TABLES),
}
# Columns added after 1.0, per table: absent from a 1.0 bundle, read back as null.
ADDED_IN_2_0: dict[str, tuple[str, ...]] = {"attempts": ("seed", "variant_id", "event_match_score")}
# Columns added after 2.0, per table, with the value an older bundle reads back as.
ADDED_IN_2_1: dict[str, dict[str, str]] = {"attempts": {"ui_profile": "default"}}

# Names that must never reach a bundle: network addresses, credentials, session handles.
_FORBIDDEN = re.compile(
    r"(^|_)(ip|ipv4|ipv6|ip_addr|ip_address|client_addr|client_address|remote_addr|client_host"
    r"|forwarded|x_forwarded_for|addr)(_|$)"
    r"|token|session_id|sessionid|password|passwd|secret|cookie|credential",
)


def forbidden_reason(column: str, *, include_comments: bool) -> str | None:
    """Why a column may not be written to a bundle, or None when it may."""
    name = column.strip().lower().replace("-", "_").replace(" ", "_")
    if _FORBIDDEN.search(name):
        return f"column {column!r} looks like an address, token, session id or credential"
    if name == "comments" and not include_comments:
        return "free-text comments are withheld unless the bundle is written with include_comments=True"
    return None


def join_list(values: Iterable[object] | str | None) -> str | None:
    """['a', 'b'] -> 'a;b' (None stays None; strings pass through)."""
    if values is None:
        return None
    if isinstance(values, str):
        return values
    return LIST_SEPARATOR.join(str(v) for v in values)


def split_list(value: object) -> list[str]:
    """'a;b' -> ['a', 'b']; null or '' -> []."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value) or value == "":
        return []
    return [part for part in str(value).split(LIST_SEPARATOR) if part != ""]
