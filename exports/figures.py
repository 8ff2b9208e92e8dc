"""Figures of the comparison report: horizontal bars that always carry their n and 95% interval.

Every figure is drawn on matplotlib's Agg canvas (no pyplot state), saved as PNG and SVG beside
the CSVs and inlined in report.html as SVG with real text, so a browser test can check it: each
bar is an SVG group `bar-<figure>-<i>` with a label `barlabel-<figure>-<i>` reading
"n=12 [40.0, 71.2]" (or "n=3, n too small" when the interval rests on fewer than five units), and
each legend is `legend-<figure>`, always outside the axes so it hides no bar or marker.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

from humantrace.exports.stats import MIN_N_FOR_CI, N_TOO_SMALL

matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text in the SVG (searchable, testable)
matplotlib.rcParams["svg.hashsalt"] = "humantrace"  # stable ids: the same data gives the same SVG
BAR_HEIGHT = 0.26
LABEL_SIZE = 6.5


def _finite(value: object) -> bool:
    return value is not None and isinstance(value, (int, float, np.floating)) and math.isfinite(float(value))


def interval_label(n: int, low: Any, high: Any, *, scale: float = 100.0, digits: int = 1) -> str:
    """'n=12 [40.0, 71.2]', or 'n=3, n too small' when the interval is withheld."""
    if n < MIN_N_FOR_CI or not (_finite(low) and _finite(high)):
        return f"n={n}, {N_TOO_SMALL}" if n < MIN_N_FOR_CI else f"n={n}, no interval"
    return f"n={n} [{low * scale:.{digits}f}, {high * scale:.{digits}f}]"


def new_figure(width: float, height: float) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height))
    ax = fig.add_subplot()
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=7.5)
    return fig, ax


def hbars(
    ax: Axes,
    figure_id: str,
    groups: list[str],
    series: Sequence[Mapping[str, Any]],
    *,
    scale: float = 100.0,
    digits: int = 1,
    value_max: float | None = None,
) -> None:
    """Grouped horizontal bars, one group per label in `groups` (top to bottom).

    `series`: [{"label", "colour", "values": [(value, low, high, n) | None per group]}]; a None
    entry draws nothing (the table next to the figure says why the cell is missing).
    """
    k = len(series)
    y = np.arange(len(groups))
    index = 0
    reach = 0.0
    pending: list[tuple[float, float, str, int]] = []  # labels, placed once the axis range is known
    for s_i, s in enumerate(series):
        offset = (s_i - (k - 1) / 2) * BAR_HEIGHT
        cells = [(g_i, cell) for g_i, cell in enumerate(s["values"]) if cell is not None]
        if not cells:
            continue
        # One bar call and one error-bar call per series (artists are what makes figures slow).
        pos = np.array([y[g_i] + offset for g_i, _ in cells])
        values = np.array([float(c[0]) if _finite(c[0]) else 0.0 for _, c in cells]) * scale
        bars = ax.barh(pos, values, BAR_HEIGHT, color=s["colour"], label=s["label"])
        with_ci = [
            i for i, (_, c) in enumerate(cells) if c[3] >= MIN_N_FOR_CI and _finite(c[1]) and _finite(c[2])
        ]
        if with_ci:
            lows = np.array([float(cells[i][1][1]) for i in with_ci]) * scale
            highs = np.array([float(cells[i][1][2]) for i in with_ci]) * scale
            ax.errorbar(
                values[with_ci],
                pos[with_ci],
                xerr=[values[with_ci] - lows, highs - values[with_ci]],
                fmt="none",
                ecolor="#222222",
                elinewidth=0.8,
                capsize=1.5,
            )
        for i, ((_, (_value, low, high, n)), patch) in enumerate(zip(cells, bars.patches, strict=True)):
            patch.set_gid(f"bar-{figure_id}-{index}")
            end = values[i]
            if i in with_ci:
                end = max(end, float(high) * scale)
            pending.append(
                (max(end, 0.0), pos[i], interval_label(n, low, high, scale=scale, digits=digits), index)
            )
            reach = max(reach, end, min(0.0, values[i]))
            index += 1
    ax.set_yticks(y, groups)
    ax.invert_yaxis()
    top = value_max if value_max is not None else max(reach, 1e-9)
    ax.set_xlim(min(0.0, ax.get_xlim()[0]), top * 1.42)
    gap = 0.012 * (ax.get_xlim()[1] - ax.get_xlim()[0])
    for x, y_pos, label, i in pending:
        text = ax.text(x + gap, y_pos, label, va="center", ha="left", fontsize=LABEL_SIZE, color="#333333")
        text.set_gid(f"barlabel-{figure_id}-{i}")
    ax.axvline(0, lw=0.6, color="#999999")


def legend_above(fig: Figure, ax: Axes, figure_id: str, ncols: int = 4) -> None:
    """A legend above the axes (never over a bar, a marker or the axis label)."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    legend = ax.legend(
        handles, labels, fontsize=7, frameon=False, ncols=ncols, loc="lower center", bbox_to_anchor=(0.5, 1.0)
    )
    legend.set_gid(f"legend-{figure_id}")


def legend_right(ax: Axes, figure_id: str, **kwargs: Any) -> None:
    """A legend right of the axes (never over a bar or marker)."""
    legend = ax.legend(fontsize=6.5, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0), **kwargs)
    legend.set_gid(f"legend-{figure_id}")


def save(fig: Figure, name: str, out_dir: Path | None) -> str:
    """Write `<name>.png` and `<name>.svg` into `out_dir` (when given); return the inline SVG."""
    buffer = io.BytesIO()
    FigureCanvasSVG(fig)
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    svg = buffer.getvalue().decode("utf-8")
    if out_dir is not None:
        (Path(out_dir) / f"{name}.svg").write_text(svg, encoding="utf-8")
        FigureCanvasAgg(fig)
        fig.savefig(Path(out_dir) / f"{name}.png", format="png", dpi=130, bbox_inches="tight")
    svg = svg[svg.index("<svg") :]
    # Inline SVG in HTML needs no namespace declarations or metadata (which name outside URLs).
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    # Fit the column: drop the fixed size, keep the viewBox, let CSS scale it down.
    svg = re.sub(r'<svg([^>]*?) width="[^"]+" height="[^"]+"', r'<svg\1 class="chart"', svg, count=1)
    return svg
