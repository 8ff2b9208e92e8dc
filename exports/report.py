"""Render the comparison tables as one self-contained HTML report.

Charts are drawn with matplotlib's Agg canvas (no pyplot global state, no display) and inlined
as base64 PNG; the CSS is inline; the page loads nothing from the network.
"""

from __future__ import annotations

import base64
import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

TEMPLATES = Path(__file__).parent / "templates"
CLEAN, INTERVENTION = "#4c72b0", "#dd8452"
CLASS_COLOURS = {
    "belief": "#c44e52",
    "action": "#8172b3",
    "overreach": "#ccb974",
    "abandon": "#64b5cd",
    "time_out": "#55a868",
    "unclassified": "#bbbbbb",
}
MODELS_SHOWN = 12


def _png(fig: Figure) -> str:
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _figure(width: float, height: float) -> tuple[Figure, object]:
    fig = Figure(figsize=(width, height))
    ax = fig.add_subplot()
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=8)
    return fig, ax


def pass_rate_chart(panel: pd.DataFrame, agents: pd.DataFrame) -> str | None:
    """Grouped bars: clean vs intervention pass rate for humans (cold, warm) and each model."""
    labels, clean, inter = [], [], []
    for phase in ("cold", "warm"):
        cells = panel.set_index(["condition", "phase"])["pass_rate"]
        labels.append(f"humans {phase}")
        clean.append(cells.get(("clean", phase), np.nan))
        inter.append(cells.get(("intervention", phase), np.nan))
    for row in agents[agents["scope"] == "panel"].head(MODELS_SHOWN).itertuples():
        labels.append(row.model)
        clean.append(row.clean_pass_rate)
        inter.append(row.intervention_pass_rate)
    fig, ax = _figure(5.6, 2.5)
    x = np.arange(len(labels))
    ax.bar(x - 0.19, np.array(clean) * 100, 0.38, label="clean", color=CLEAN)
    ax.bar(x + 0.19, np.array(inter) * 100, 0.38, label="intervention", color=INTERVENTION)
    ax.set_xticks(x, labels, rotation=20, ha="right")
    ax.set_ylabel("pass rate (%)", fontsize=8)
    ax.set_ylim(0, 105)
    ax.legend(fontsize=7, frameon=False, ncols=2, loc="upper right")
    return _png(fig)


def primitive_chart(prims: pd.DataFrame) -> str | None:
    """Human warm drop vs agent drop per primitive, with the 1:1 diagonal (Figure 6(b))."""
    prims = prims.dropna(subset=["human_warm_drop", "agent_pass_drop"])
    if prims.empty:
        return None
    fig, ax = _figure(4.2, 3.4)
    x, y = prims["human_warm_drop"] * 100, prims["agent_pass_drop"] * 100
    xerr = [x - prims["human_warm_ci_low"] * 100, prims["human_warm_ci_high"] * 100 - x]
    yerr = [y - prims["agent_pass_ci_low"] * 100, prims["agent_pass_ci_high"] * 100 - y]
    ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", color="#333333", ecolor="#bbbbbb", elinewidth=1, ms=5)
    for row, xi, yi in zip(prims.itertuples(), x, y, strict=True):
        ax.annotate(f"{row.primitive} (n={row.n_tasks})", (xi, yi), xytext=(4, 4), textcoords="offset points", fontsize=7)
    lo = min(-10.0, float(np.nanmin(np.concatenate([x, y]))) - 5)
    hi = max(60.0, float(np.nanmax(np.concatenate([x, y]))) + 5)
    ax.plot([lo, hi], [lo, hi], ls="--", lw=1, color="#888888", label="1:1")
    ax.axhline(0, lw=0.5, color="#cccccc")
    ax.axvline(0, lw=0.5, color="#cccccc")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("warm human pass drop (pp)", fontsize=8)
    ax.set_ylabel("mean agent pass drop (pp)", fontsize=8)
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    return _png(fig)


def task_chart(tasks: pd.DataFrame) -> str | None:
    """Per task: warm log-time ratio vs mean agent score drop (Figure 11)."""
    tasks = tasks.dropna(subset=["log_time_ratio", "agent_score_drop"])
    if tasks.empty:
        return None
    fig, ax = _figure(4.2, 3.4)
    for primitive, part in tasks.groupby(tasks["primitive"].fillna("unknown")):
        ax.scatter(part["log_time_ratio"], part["agent_score_drop"], s=14, alpha=0.8, label=primitive)
    ax.axvline(0, lw=0.8, ls="--", color="#888888")
    ax.axhline(0, lw=0.5, color="#cccccc")
    ax.set_xlabel("warm human log-time ratio  ln(t_int / t_clean)", fontsize=8)
    ax.set_ylabel("mean agent score drop", fontsize=8)
    ax.legend(fontsize=6.5, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="primitive", title_fontsize=7)
    return _png(fig)


def failure_chart(modes: pd.DataFrame) -> str | None:
    """Stacked shares of failure classes among failed intervention attempts/runs."""
    inter = modes[(modes["condition"] == "intervention") & modes["share"].notna()]
    if inter.empty:
        return None
    inter = inter.assign(label=np.where(inter["source"] == "human", "humans " + inter["phase"], inter["population"]))
    shares = inter.groupby(["label", "mode_class"], sort=False)["share"].sum().unstack(fill_value=0.0)
    order = [lbl for lbl in dict.fromkeys(inter["label"])][: MODELS_SHOWN + 2]
    shares = shares.loc[order]
    fig, ax = _figure(5.6, 0.45 * len(order) + 1.0)
    left = np.zeros(len(order))
    for mode_class, colour in CLASS_COLOURS.items():
        if mode_class in shares:
            values = shares[mode_class].to_numpy(dtype=float) * 100
            ax.barh(order, values, left=left, color=colour, label=mode_class.replace("_", "-"))
            left += values
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of failed intervention attempts / runs (%)", fontsize=8)
    fig.legend(fontsize=7, frameon=False, ncols=6, loc="lower center", bbox_to_anchor=(0.5, -0.02))
    fig.subplots_adjust(bottom=0.55 / (0.45 * len(order) + 1.0) + 0.12)
    return _png(fig)


def _pct(value) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value * 100:.1f}%"


def _pp(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    points = round(value * 100, 1)
    return "0.0" if points == 0 else f"{points:+.1f}"  # never "-0.0" from rounding noise


def _num(value, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "–"
    return f"{value:,.{digits}f}"


def _ci(low, high, scale: float = 100.0, digits: int = 1) -> str:
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return ""
    return f"[{low * scale:.{digits}f}, {high * scale:.{digits}f}]"


def _records(frame: pd.DataFrame | None) -> list[dict]:
    if frame is None:
        return []
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def render_report(tables: dict[str, pd.DataFrame], *, warnings: list[str], context: dict) -> str:
    """The report HTML for the tables computed by `exports.compare.compare`."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
    env.filters.update(pct=_pct, pp=_pp, num=_num)
    env.globals["ci"] = _ci
    charts = {
        "pass_rates": pass_rate_chart(tables["panel_summary"], tables["agents_by_model"]),
        "primitives": primitive_chart(tables["primitive_drops"]),
        "tasks": task_chart(tables["task_time_vs_agent_drop"]),
        "failures": failure_chart(tables["failure_modes"]),
    }
    modes = tables["failure_modes"]
    failure_rows = modes[(modes["count"] > 0)]
    annotators = tables["annotators"]
    annotator_wide = (
        annotators.assign(cell=annotators["condition"] + " " + annotators["phase"])
        .pivot_table(index="annotator", columns="cell", values="pass_rate", aggfunc="first")
        .reset_index()
    )
    data = {name: _records(frame) for name, frame in tables.items() if name not in ("agent_runs",)}
    data["annotator_wide"] = _records(annotator_wide)
    data["annotator_cells"] = [c for c in annotator_wide.columns if c != "annotator"]
    data["failure_rows"] = _records(failure_rows)
    data["task_count"] = len(tables["task_time_vs_agent_drop"])
    return env.get_template("report.html.j2").render(
        tables=data, charts=charts, warnings=warnings, ctx=context, has_full="full_benchmark" in tables
    )
