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

from exports.schema import PRIMITIVES

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
CLASS_ORDER = ("belief", "action", "overreach", "abandon", "time_out", "unclassified", "abandoned_run", "no_features")
_PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd")


def _primitive_colour(primitive: str) -> str:
    """The same colour for a primitive in every chart."""
    order = list(PRIMITIVES)
    index = order.index(primitive) if primitive in order else len(order) + sum(map(ord, str(primitive)))
    return _PALETTE[index % len(_PALETTE)]


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
    for row, xi, yi in zip(prims.itertuples(), x, y, strict=True):
        xerr = [[xi - row.human_warm_ci_low * 100], [row.human_warm_ci_high * 100 - xi]]
        yerr = [[yi - row.agent_pass_ci_low * 100], [row.agent_pass_ci_high * 100 - yi]]
        colour = _primitive_colour(row.primitive)
        ax.errorbar([xi], [yi], xerr=xerr, yerr=yerr, fmt="o", color=colour, ecolor=colour, alpha=0.9,
                    elinewidth=0.8, capsize=0, ms=5, label=f"{row.primitive} (n={row.n_tasks})")
    lo = min(-10.0, float(np.nanmin(np.concatenate([x, y]))) - 5)
    hi = max(60.0, float(np.nanmax(np.concatenate([x, y]))) + 5)
    ax.plot([lo, hi], [lo, hi], ls="--", lw=1, color="#888888", label="1:1 diagonal")
    ax.axhline(0, lw=0.5, color="#cccccc")
    ax.axvline(0, lw=0.5, color="#cccccc")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("warm human pass drop (pp)", fontsize=8)
    ax.set_ylabel("mean agent pass drop (pp)", fontsize=8)
    ax.legend(fontsize=6.5, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _png(fig)


def task_chart(tasks: pd.DataFrame) -> str | None:
    """Per task: warm log-time ratio vs mean agent score drop (Figure 11)."""
    tasks = tasks.dropna(subset=["log_time_ratio", "agent_score_drop"])
    if tasks.empty:
        return None
    fig, ax = _figure(4.2, 3.4)
    for primitive, part in tasks.groupby(tasks["primitive"].fillna("unknown")):
        ax.scatter(part["log_time_ratio"], part["agent_score_drop"], s=14, alpha=0.8, label=primitive,
                   color=_primitive_colour(primitive))
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


def _annotator_pivot(annotators: pd.DataFrame) -> tuple[list[dict], list[str]]:
    if annotators.empty:
        return [], []
    cells = annotators.assign(cell=annotators["condition"] + " " + annotators["phase"])
    wide = cells.pivot_table(index="annotator", columns="cell", values="pass_rate", aggfunc="first").reset_index()
    return _records(wide), [c for c in wide.columns if c != "annotator"]


def _failure_pivot(modes: pd.DataFrame) -> tuple[list[dict], list[str]]:
    """Intervention failures: one row per population, counts and shares per failure class."""
    inter = modes[modes["condition"] == "intervention"]
    if inter.empty:
        return [], []
    present = set(inter["mode_class"].dropna())
    classes = [c for c in CLASS_ORDER if c in present] + sorted(present - set(CLASS_ORDER))
    rows = []
    keys = inter[["source", "population", "phase"]].drop_duplicates()
    for key in keys.itertuples(index=False):
        part = inter[(inter["source"] == key.source) & (inter["population"] == key.population) & (inter["phase"] == key.phase)]
        by_class = part.groupby("mode_class", sort=False).agg(count=("count", "sum"), share=("share", "sum"))
        shares_known = part.groupby("mode_class", sort=False)["share"].apply(lambda v: v.notna().any())
        label = f"humans {key.phase}" if key.source == "human" else key.population
        row = {"population": label, "n_failed": int(part["n_failed"].iloc[0])}
        for cls in classes:
            count = int(by_class.loc[cls, "count"]) if cls in by_class.index else 0
            share = by_class.loc[cls, "share"] if cls in by_class.index and shares_known.get(cls, False) else None
            row[cls] = {"count": count, "share": share}
        rows.append(row)
    return rows, classes


def _group_pivot(groups: pd.DataFrame) -> tuple[list[dict], list[str]]:
    """Panel-scope drops per group: one row per group, one column per population."""
    panel = groups[groups["scope"] == "panel"]
    populations = list(dict.fromkeys(panel["population"]))
    rows = []
    for group in dict.fromkeys(panel["group"]):
        part = panel[panel["group"] == group].set_index("population")
        row = {"group": group}
        for pop in populations:
            row[pop] = _records(part.loc[[pop]])[0] if pop in part.index else None
        rows.append(row)
    return rows, populations


def render_report(tables: dict[str, pd.DataFrame], *, warnings: list[str], context: dict, figure_dir: Path | None = None) -> str:
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
    data = {name: _records(frame) for name, frame in tables.items() if name != "agent_runs"}
    data["annotator_wide"], data["annotator_cells"] = _annotator_pivot(tables["annotators"])
    data["failure_classes"], data["failure_class_names"] = _failure_pivot(tables["failure_modes"])
    data["failure_rows"] = _records(tables["failure_modes"][tables["failure_modes"]["count"] > 0])
    for name in ("by_environment", "by_difficulty"):
        data[name + "_wide"], data[name + "_populations"] = _group_pivot(tables[name])
    data["task_count"] = len(tables["task_time_vs_agent_drop"])
    return env.get_template("report.html.j2").render(
        tables=data, charts=charts, warnings=warnings, ctx=context, has_full="full_benchmark" in tables
    )
