"""One function per report figure; each returns the inline SVG (None when there is nothing to draw)
and saves `<name>.png` and `<name>.svg` into the output directory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from humantrace.exports.figures import hbars, interval_label, legend_above, legend_right, new_figure, save
from humantrace.exports.schema import PRIMITIVES
from humantrace.exports.stats import MIN_N_FOR_CI, wilson

CLEAN, INTERVENTION = "#4c72b0", "#dd8452"
MODELS_SHOWN = 12
_PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
# Every figure the report draws (saved as fig_<name>.png and fig_<name>.svg).
FIGURES = (
    "pass_rates",
    "primitives",
    "tasks",
    "failure_classes",
    "model_primitive",
    "env_primitive",
    "false_positive",
    "verification_gap",
    "time_ratio",
    "human_time",
    "duplicates",
)
CONDITION_COLOURS: dict[object, str] = {"clean": CLEAN, "intervention": INTERVENTION}
CLASS_COLOURS = {"belief": "#c44e52", "action": "#8172b3", "overreach": "#ccb974"}


def primitive_colour(primitive: str) -> str:
    """The same colour for a primitive in every chart."""
    order = list(PRIMITIVES)
    index = order.index(primitive) if primitive in order else len(order) + sum(map(ord, str(primitive)))
    return _PALETTE[index % len(_PALETTE)]


def _height(n_bars: int) -> float:
    return 0.9 + 0.24 * n_bars


Interval = tuple[float, float, float, int]
"""A bar's value, interval low and high, and n (as `exports.figures.hbars` draws them)."""


def _num(value: object) -> float:
    """A frame cell as a float (pandas types a cell as any scalar; the columns read hold numbers)."""
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    raise TypeError(f"not a number: {value!r}")


def _rate(k: float, n: int) -> Interval:
    est = wilson(int(round(k)), int(n))
    return (est.estimate, est.ci_low, est.ci_high, est.n)


def pass_rates(panel: pd.DataFrame, agents: pd.DataFrame, out: Path | None) -> str | None:
    """Pass rate clean vs intervention: humans cold/warm (attempts) and each model (runs), Wilson CIs."""
    groups: list[str] = []
    clean: list[Interval | None] = []
    inter: list[Interval | None] = []
    cells = panel.set_index(["condition", "phase"])
    for phase in ("cold", "warm"):
        groups.append(f"humans {phase}")
        for target, condition in ((clean, "clean"), (inter, "intervention")):
            if (condition, phase) in cells.index and _num(cells.loc[(condition, phase), "n_attempts"]) > 0:
                n_attempts = _num(cells.loc[(condition, phase), "n_attempts"])
                target.append(
                    _rate(_num(cells.loc[(condition, phase), "pass_rate"]) * n_attempts, int(n_attempts))
                )
            else:
                target.append(None)
    for agent in agents[agents["scope"] == "panel"].head(MODELS_SHOWN).itertuples():
        groups.append(str(agent.model))
        n_clean, n_inter = _num(agent.n_clean_runs), _num(agent.n_intervention_runs)
        clean.append(_rate(_num(agent.clean_pass_rate) * n_clean, int(n_clean)) if n_clean else None)
        inter.append(_rate(_num(agent.intervention_pass_rate) * n_inter, int(n_inter)) if n_inter else None)
    fig, ax = new_figure(6.4, _height(2 * len(groups)))
    hbars(
        ax,
        "pass_rates",
        groups,
        [
            {"label": "clean", "colour": CLEAN, "values": clean},
            {"label": "intervention", "colour": INTERVENTION, "values": inter},
        ],
        value_max=100,
    )
    ax.set_xlabel("pass rate (%), 95% Wilson interval over attempts / runs", fontsize=7.5)
    ax.set_xticks([0, 25, 50, 75, 100])
    legend_above(fig, ax, "pass_rates")
    return save(fig, "fig_pass_rates", out)


def model_primitive(table: pd.DataFrame, out: Path | None) -> str | None:
    """Paired pass drop per primitive, one bar per population (Figure 4(a), Table 2)."""
    rows = table[(table["primitive"] != "all") & (table["n_tasks"] > 0)]
    if rows.empty:
        return None
    populations = list(dict.fromkeys(rows["population"]))[: MODELS_SHOWN + 2]
    primitives = list(dict.fromkeys(rows["primitive"]))
    series = []
    for i, population in enumerate(populations):
        mine = rows[rows["population"] == population].set_index("primitive")
        values = [
            (
                mine.at[p, "pass_drop"],
                mine.at[p, "pass_drop_ci_low"],
                mine.at[p, "pass_drop_ci_high"],
                int(mine.at[p, "n_tasks"]),
            )
            if p in mine.index
            else None
            for p in primitives
        ]
        series.append({"label": population, "colour": _PALETTE[i % len(_PALETTE)], "values": values})
    fig, ax = new_figure(6.4, _height(len(primitives) * len(populations)))
    hbars(ax, "model_primitive", primitives, series, value_max=100)
    ax.set_xlabel(
        "paired pass drop, clean − intervention (pp), 95% bootstrap CI over base tasks", fontsize=7.5
    )
    legend_above(fig, ax, "model_primitive")
    return save(fig, "fig_model_primitive", out)


def env_primitive(table: pd.DataFrame, out: Path | None) -> str | None:
    """Heatmaps of the mean paired score drop per environment x primitive (Figure 14, Table 27);
    cells no task covers are grey and say "no variants"; a cell under the minimum n is italic and starred."""
    wanted = [p for p in ("humans warm", "agents (mean over models)") if p in set(table["population"])]
    if table.empty or not wanted:
        return None
    envs = sorted(table["env"].unique())
    primitives = list(dict.fromkeys(table["primitive"]))
    fig = __import__("matplotlib.figure", fromlist=["Figure"]).Figure(
        figsize=(2.6 * len(wanted) + 0.6, 0.36 * len(envs) + 1.2)
    )
    for k, population in enumerate(wanted):
        ax = fig.add_subplot(1, len(wanted), k + 1)
        mine = table[table["population"] == population].set_index(["env", "primitive"])
        grid = np.full((len(envs), len(primitives)), np.nan)
        for i, env in enumerate(envs):
            for j, prim in enumerate(primitives):
                cell = mine.loc[(env, prim)]
                if pd.notna(cell["mean_score_drop"]):
                    grid[i, j] = cell["mean_score_drop"]
                text = (
                    f"{cell['mean_score_drop']:+.2f}\nn={int(cell['n_tasks'])}"
                    if pd.notna(cell["mean_score_drop"])
                    else str(cell["note"]).replace(" ", "\n", 1)
                )
                # the paper italicises a cell over too few tasks for an interval
                small = pd.notna(cell["mean_score_drop"]) and int(cell["n_tasks"]) < MIN_N_FOR_CI
                ax.text(
                    j,
                    i,
                    text + ("*" if small else ""),
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="#222222",
                    fontstyle="italic" if small else "normal",
                    gid=f"cell-{population}-{env}-{prim}-{'small' if small else 'ok'}",
                )
        ax.imshow(np.ones_like(grid), cmap="Greys", vmin=0, vmax=4, aspect="auto")  # grey under empty cells
        ax.imshow(np.ma.masked_invalid(grid), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
        ax.set_xticks(
            range(len(primitives)),
            [p.replace("_", " ") for p in primitives],
            rotation=30,
            ha="right",
            fontsize=7,
        )
        ax.set_yticks(range(len(envs)), envs if k == 0 else [""] * len(envs), fontsize=7)
        ax.set_title(population, fontsize=8)
    return save(fig, "fig_env_primitive", out)


def _rate_bars(
    frame: pd.DataFrame,
    groups_col: str,
    rate: str,
    low: str,
    high: str,
    n: str,
    name: str,
    xlabel: str,
    out: Path | None,
    *,
    colour_by: str | None = None,
) -> str | None:
    if frame.empty:
        return None
    groups = list(dict.fromkeys(frame[groups_col]))
    keys = list(dict.fromkeys(frame[colour_by])) if colour_by else [None]
    series = []
    for i, key in enumerate(keys):
        part = frame if key is None else frame[frame[colour_by] == key]
        part = part.set_index(groups_col)
        values = [
            (part.at[g, rate], part.at[g, low], part.at[g, high], int(_num(part.at[g, n])))
            if g in part.index and pd.notna(part.at[g, rate])
            else None
            for g in groups
        ]
        colour = CONDITION_COLOURS.get(key, _PALETTE[i % len(_PALETTE)])
        series.append({"label": key or rate, "colour": colour, "values": values})
    fig, ax = new_figure(6.4, _height(len(groups) * len(keys)))
    hbars(ax, name, groups, series, value_max=100)
    ax.set_xlabel(xlabel, fontsize=7.5)
    ax.set_xticks([0, 25, 50, 75, 100])
    if colour_by:
        legend_above(fig, ax, name)
    return save(fig, f"fig_{name}", out)


def false_positive(table: pd.DataFrame, out: Path | None) -> str | None:
    """FPR per population and condition (Table 4, Figure 5(b))."""
    rows = table[table["n_claimed"] > 0]
    return _rate_bars(
        rows,
        "population",
        "fpr",
        "fpr_ci_low",
        "fpr_ci_high",
        "n_claimed",
        "false_positive",
        "failed among claimed completions (%), 95% Wilson interval",
        out,
        colour_by="condition",
    )


def verification_gap(table: pd.DataFrame, out: Path | None) -> str | None:
    """Outcome pass vs Event-Match Score per population (intervention and clean pooled per row)."""
    if table.empty:
        return None
    long = []
    for r in table.itertuples():
        label = f"{r.population} · {r.condition}"
        long.append(
            {
                "group": label,
                "measure": "outcome pass",
                "rate": r.pass_rate,
                "low": r.pass_ci_low,
                "high": r.pass_ci_high,
                "n": r.n,
            }
        )
        long.append(
            {
                "group": label,
                "measure": "event match",
                "rate": r.ems_rate,
                "low": r.ems_ci_low,
                "high": r.ems_ci_high,
                "n": r.n,
            }
        )
    return _rate_bars(
        pd.DataFrame(long),
        "group",
        "rate",
        "low",
        "high",
        "n",
        "verification_gap",
        "share of episodes (%), 95% Wilson interval",
        out,
        colour_by="measure",
    )


def failure_classes(labelled_shares: pd.DataFrame, out: Path | None) -> str | None:
    """Share of belief / action / overreach among classified failed intervention episodes, per population."""
    if labelled_shares.empty:
        return None
    return _rate_bars(
        labelled_shares,
        "population",
        "share",
        "ci_low",
        "ci_high",
        "n",
        "failure_classes",
        "share of classified failed intervention episodes (%), 95% Wilson interval",
        out,
        colour_by="mode_class",
    )


def time_ratio(table: pd.DataFrame, out: Path | None) -> str | None:
    """Agent / human median time on task-conditions both passed (Figure 6(a))."""
    rows = table[(table["condition"] == "all") & (table["n_pairs"] > 0)]
    if rows.empty:
        return None
    groups = [f"{r.model} vs humans {r.human_phase}" for r in rows.itertuples()]
    values = [(r.ratio, r.ratio_ci_low, r.ratio_ci_high, int(_num(r.n_pairs))) for r in rows.itertuples()]
    fig, ax = new_figure(6.4, _height(len(groups)))
    hbars(
        ax,
        "time_ratio",
        groups,
        [{"label": "agent / human", "colour": "#55a868", "values": values}],
        scale=1.0,
        digits=2,
    )
    ax.axvline(1.0, lw=0.8, ls="--", color="#888888")
    ax.set_xlabel("median agent time / median human time (1 = as fast), 95% bootstrap CI", fontsize=7.5)
    return save(fig, "fig_time_ratio", out)


def human_time(table: pd.DataFrame, out: Path | None) -> str | None:
    """Median human time per condition x phase, bootstrap CI over attempts."""
    if table.empty:
        return None
    groups = list(dict.fromkeys(table["phase"]))
    series = []
    for condition, colour in (("clean", CLEAN), ("intervention", INTERVENTION)):
        part = table[table["condition"] == condition].set_index("phase")
        series.append(
            {
                "label": condition,
                "colour": colour,
                "values": [
                    (
                        part.at[g, "median_s"],
                        part.at[g, "ci_low"],
                        part.at[g, "ci_high"],
                        int(_num(part.at[g, "n_attempts"])),
                    )
                    if g in part.index
                    else None
                    for g in groups
                ],
            }
        )
    fig, ax = new_figure(6.4, _height(2 * len(groups)))
    hbars(ax, "human_time", [f"humans {g}" for g in groups], series, scale=1.0, digits=0)
    ax.set_xlabel("median wall-clock seconds, 95% bootstrap CI over attempts", fontsize=7.5)
    legend_above(fig, ax, "human_time")
    return save(fig, "fig_human_time", out)


def primitive_scatter(prims: pd.DataFrame, out: Path | None) -> str | None:
    """Human warm drop vs agent drop per primitive, with the 1:1 diagonal (Figure 6(b))."""
    prims = prims.dropna(subset=["human_warm_drop", "agent_pass_drop"])
    if prims.empty:
        return None
    fig, ax = new_figure(4.2, 3.4)
    x, y = prims["human_warm_drop"] * 100, prims["agent_pass_drop"] * 100
    for i, (row, xi, yi) in enumerate(zip(prims.itertuples(), x, y, strict=True)):
        small = _num(row.n_tasks) < 5
        xerr = (
            None
            if small
            else [[xi - _num(row.human_warm_ci_low) * 100], [_num(row.human_warm_ci_high) * 100 - xi]]
        )
        yerr = (
            None
            if small
            else [[yi - _num(row.agent_pass_ci_low) * 100], [_num(row.agent_pass_ci_high) * 100 - yi]]
        )
        colour = primitive_colour(str(row.primitive))
        label = f"{row.primitive} (n={row.n_tasks}{', n too small for a CI' if small else ''})"
        bars = ax.errorbar(
            [xi],
            [yi],
            xerr=xerr,
            yerr=yerr,
            fmt="o",
            color=colour,
            ecolor=colour,
            alpha=0.9,
            elinewidth=0.8,
            capsize=0,
            ms=5,
            label=label,
        )
        bars.lines[0].set_gid(f"marker-primitives-{i}")
    lo = min(-10.0, float(np.nanmin(np.concatenate([x, y]))) - 5)
    hi = max(60.0, float(np.nanmax(np.concatenate([x, y]))) + 5)
    ax.plot([lo, hi], [lo, hi], ls="--", lw=1, color="#888888", label="1:1 diagonal")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("warm human pass drop (pp)", fontsize=8)
    ax.set_ylabel("mean agent pass drop (pp)", fontsize=8)
    legend_right(ax, "primitives")
    return save(fig, "fig_primitives", out)


def task_scatter(tasks: pd.DataFrame, out: Path | None) -> str | None:
    """Per task: warm log-time ratio vs mean agent score drop (Figure 11)."""
    tasks = tasks.dropna(subset=["log_time_ratio", "agent_score_drop"])
    if tasks.empty:
        return None
    fig, ax = new_figure(4.2, 3.4)
    for i, (primitive, part) in enumerate(tasks.groupby(tasks["primitive"].fillna("unknown"))):
        points = ax.scatter(
            part["log_time_ratio"],
            part["agent_score_drop"],
            s=14,
            alpha=0.8,
            label=f"{primitive} (n={len(part)})",
            color=primitive_colour(primitive),
        )
        points.set_gid(f"marker-tasks-{i}")
    ax.axvline(0, lw=0.8, ls="--", color="#888888")
    ax.set_xlabel("warm human log-time ratio  ln(t_int / t_clean)", fontsize=8)
    ax.set_ylabel("mean agent score drop", fontsize=8)
    legend_right(ax, "tasks", title="primitive", title_fontsize=7)
    return save(fig, "fig_tasks", out)


def duplicate_statistics(table: pd.DataFrame, out: Path | None) -> str | None:
    """The duplicate-audit statistics as bars with their intervals (Table 31)."""
    rows = table[table["estimate"].notna()]
    if rows.empty:
        return None
    groups = [str(r.statistic).replace("_", " ") for r in rows.itertuples()]
    values = [(r.estimate, r.ci_low, r.ci_high, int(_num(r.n))) for r in rows.itertuples()]
    fig, ax = new_figure(6.4, _height(len(groups)))
    hbars(
        ax,
        "duplicates",
        groups,
        [{"label": "estimate", "colour": "#8172b3", "values": values}],
        scale=1.0,
        digits=2,
    )
    ax.set_xlabel(
        "estimate (agreement share, kappa and ICC in [−1, 1]; ratios: 1 = equal), 95% CI", fontsize=7.5
    )
    return save(fig, "fig_duplicates", out)


__all__ = ["interval_label"]
