"""Render the comparison tables as one self-contained HTML report.

Figures come from `exports.charts` (inline SVG with real text; PNG and SVG files beside the CSVs);
the CSS is inline; the page loads nothing from the network.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, cast

import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape

from humantrace.exports import charts as ch
from humantrace.exports.stats import MIN_N_FOR_CI, N_TOO_SMALL
from humantrace.exports.table_meta import TABLES

TEMPLATES = Path(__file__).parent / "templates"
CLASS_ORDER = (
    "belief",
    "action",
    "overreach",
    "abandon",
    "time_out",
    "unclassified",
    "abandoned_run",
    "no_features",
)


def _pct(value: float | None) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value * 100:.1f}%"


def _pp(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    points = round(value * 100, 1)
    return "0.0" if points == 0 else f"{points:+.1f}"  # never "-0.0" from rounding noise


def _num(value: object, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "–"
    return f"{value:,.{digits}f}"


def _ci(
    low: float | None, high: float | None, scale: float = 100.0, digits: int = 1, n: float | None = None
) -> str:
    """'[l, h]'; 'n too small' when n < MIN_N_FOR_CI; '' when there is no interval."""
    if n is not None and n == n and int(n) < MIN_N_FOR_CI:
        return N_TOO_SMALL
    if low is None or high is None or any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        return ""
    return f"[{low * scale:.{digits}f}, {high * scale:.{digits}f}]"


def _records(frame: pd.DataFrame | None) -> list[dict[str, Any]]:
    if frame is None:
        return []
    records = frame.astype(object).where(frame.notna(), None).to_dict("records")
    return cast(list[dict[str, Any]], records)  # every column name here is a str


def _annotator_pivot(annotators: pd.DataFrame) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per annotator, one cell record (pass rate, interval, n) per condition x phase."""
    if annotators.empty:
        return [], []
    cells = annotators.assign(cell=annotators["condition"] + " " + annotators["phase"])
    names = list(dict.fromkeys(f"{c} {p}" for c in ("clean", "intervention") for p in ("cold", "warm")))
    names = [n for n in names if n in set(cells["cell"])]
    rows = []
    for annotator, part in cells.groupby("annotator", sort=True):
        by_cell = {r["cell"]: r for r in _records(part)}
        rows.append({"annotator": annotator, **{n: by_cell.get(n) for n in names}})
    return rows, names


def _scope_text(name: str, n_tasks: int) -> str:
    """The scope sentence of a table's caption (exports.table_meta)."""
    meta = TABLES.get(name)
    if meta is None:
        return ""
    if meta.scope == "all":
        return "Scope: every imported agent run, tasks outside the panel included."
    unit = f" n counts {meta.unit}." if meta.n else ""
    return f"Scope: the panel's {n_tasks} base tasks (human attempts and agent runs on them).{unit}"


def _failure_pivot(modes: pd.DataFrame) -> tuple[list[dict[str, Any]], list[str]]:
    """Intervention failures: one row per population, counts and shares per failure class."""
    inter = modes[modes["condition"] == "intervention"]
    if inter.empty:
        return [], []
    present = set(inter["mode_class"].dropna())
    classes = [c for c in CLASS_ORDER if c in present] + sorted(present - set(CLASS_ORDER))
    rows = []
    keys = inter[["source", "population", "phase"]].drop_duplicates()
    for key in keys.itertuples(index=False):
        part = inter[
            (inter["source"] == key.source)
            & (inter["population"] == key.population)
            & (inter["phase"] == key.phase)
        ]
        by_class = part.groupby("mode_class", sort=False).agg(count=("count", "sum"), share=("share", "sum"))
        counts = by_class["count"].to_dict()
        shares_known = part.groupby("mode_class", sort=False)["share"].apply(lambda v: v.notna().any())
        label = f"humans {key.phase}" if key.source == "human" else key.population
        row: dict[str, Any] = {"population": label, "n_failed": int(part["n_failed"].to_numpy()[0])}
        for cls in classes:
            count = int(counts[cls]) if cls in counts else 0
            share = (
                by_class.loc[cls, "share"] if cls in by_class.index and shares_known.get(cls, False) else None
            )
            row[cls] = {"count": count, "share": share}
        rows.append(row)
    return rows, classes


def _group_pivot(groups: pd.DataFrame) -> tuple[list[dict[str, Any]], list[str]]:
    """Panel-scope drops per group: one row per group, one column per population."""
    panel = groups[groups["scope"] == "panel"]
    populations = list(dict.fromkeys(panel["population"]))
    rows = []
    for group in dict.fromkeys(panel["group"]):
        part = panel[panel["group"] == group].set_index("population")
        row: dict[str, Any] = {"group": group}
        for pop in populations:
            row[pop] = _records(part.loc[[pop]])[0] if pop in part.index else None
        rows.append(row)
    return rows, populations


def _wide(frame: pd.DataFrame, row: str, col: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows keyed by `row`, one cell record per `col` value (None where the row has no such cell)."""
    if frame.empty:
        return [], []
    cols = list(dict.fromkeys(frame[col]))
    rows = []
    for key in dict.fromkeys(frame[row]):
        part = frame[frame[row] == key].set_index(col)
        rows.append(
            {
                "key": key,
                "cells": {c: (_records(part.loc[[c]])[0] if c in part.index else None) for c in cols},
            }
        )
    return rows, cols


def render_report(
    tables: dict[str, pd.DataFrame],
    *,
    warnings: list[str],
    context: dict[str, Any],
    figure_dir: Path | None = None,
) -> str:
    """The report HTML for the tables computed by `exports.compare.compare`."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
    env.filters.update(pct=_pct, pp=_pp, num=_num)
    env.globals["ci"] = _ci
    env.globals["scope"] = lambda name: _scope_text(name, int(context.get("n_tasks", 0)))
    out = figure_dir
    charts = {
        "pass_rates": ch.pass_rates(tables["panel_summary"], tables["agents_by_model"], out),
        "primitives": ch.primitive_scatter(tables["primitive_drops"], out),
        "tasks": ch.task_scatter(tables["task_time_vs_agent_drop"], out),
        "failures": ch.failure_classes(tables["failure_classes"], out),
        "model_primitive": ch.model_primitive(tables["model_primitive"], out),
        "env_primitive": ch.env_primitive(tables["env_primitive"], out),
        "false_positive": ch.false_positive(tables["false_positive_completion"], out),
        "verification_gap": ch.verification_gap(tables["verification_gap"], out),
        "time_ratio": ch.time_ratio(tables["time_ratio"], out),
        "human_time": ch.human_time(tables["human_time"], out),
        "duplicates": ch.duplicate_statistics(tables["duplicate_audit_statistics"], out),
    }
    data: dict[str, Any] = {
        name: _records(frame)
        for name, frame in tables.items()
        if name not in ("agent_runs", "event_match", "failure_features")
    }
    data["annotator_wide"], data["annotator_cells"] = _annotator_pivot(tables["annotators"])
    data["failure_class_pivot"], data["failure_class_names"] = _failure_pivot(tables["failure_modes"])
    data["failure_rows"] = _records(tables["failure_modes"][tables["failure_modes"]["count"] > 0])
    for name in ("by_environment", "by_difficulty"):
        data[name + "_wide"], data[name + "_populations"] = _group_pivot(tables[name])
    data["model_primitive_wide"], data["model_primitive_cols"] = _wide(
        tables["model_primitive"], "population", "primitive"
    )
    data["task_count"] = len(tables["task_time_vs_agent_drop"])
    return env.get_template("report.html.j2").render(
        tables=data, charts=charts, warnings=warnings, ctx=context, has_full="full_benchmark" in tables
    )
