"""Seeded choice of the panel: k base tasks with a variant per (environment, difficulty) cell."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence

from humantrace.annotators.planning.errors import PlanInfeasible
from humantrace.annotators.planning.schemas import DIFFICULTIES, Difficulty, PanelCell, PlanTask


def seeded_rng(seed: int, *parts: str) -> random.Random:
    """An RNG that depends only on the seed and the labels, in any process and Python build.

    Each cell (and each annotator's queue) gets its own stream, so adding an environment does not
    change the choices made for the others.
    """
    digest = hashlib.sha256("\x1f".join([str(seed), *parts]).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def resolve_scope(
    *, tasks: Sequence[PlanTask], envs: Iterable[str] | None, difficulties: Iterable[str] | None
) -> tuple[tuple[str, ...], tuple[Difficulty, ...]]:
    """The sorted environments and the difficulties (in canonical order) the panel covers."""
    known_envs = sorted({task.env_id for task in tasks})
    if envs is None:
        scope_envs = tuple(known_envs)
    else:
        scope_envs = tuple(sorted(set(envs)))
        unknown = [env for env in scope_envs if env not in known_envs]
        if unknown:
            raise PlanInfeasible(
                "cell_size",
                f"env {', '.join(unknown)}: no tasks at all; known envs: {', '.join(known_envs) or 'none'}",
            )
    if not scope_envs:
        raise PlanInfeasible("cell_size", "no tasks were given, so there is no panel to plan")
    if difficulties is None:
        scope_difficulties = DIFFICULTIES
    else:
        wanted = set(difficulties)
        bad = sorted(wanted - set(DIFFICULTIES))
        if bad:
            raise PlanInfeasible(
                "invalid_request", f"unknown difficulty {', '.join(bad)}; use {', '.join(DIFFICULTIES)}"
            )
        scope_difficulties = tuple(d for d in DIFFICULTIES if d in wanted)
        if not scope_difficulties:
            raise PlanInfeasible("invalid_request", "the difficulties filter is empty")
    return scope_envs, scope_difficulties


def select_panel(
    *,
    tasks: Sequence[PlanTask],
    envs: Sequence[str],
    difficulties: Sequence[Difficulty],
    per_cell: int,
    seed: int,
) -> tuple[PanelCell, ...]:
    """Choose `per_cell` tasks with a variant in every cell; refuse a cell that has too few.

    Candidates are sorted by task_id before a per-cell seeded shuffle, so the input order never
    matters. Every short cell is named in one message, not just the first.
    """
    by_cell: dict[tuple[str, str], list[PlanTask]] = {}
    for task in tasks:
        by_cell.setdefault((task.env_id, task.difficulty), []).append(task)
    cells: list[PanelCell] = []
    short: list[str] = []
    for env_id in envs:
        for difficulty in difficulties:
            in_cell = by_cell.get((env_id, difficulty), [])
            candidates = sorted(task.task_id for task in in_cell if task.has_variant)
            if len(candidates) < per_cell:
                without = len(in_cell) - len(candidates)
                extra = f" ({without} more without a variant)" if without else ""
                have = f"{len(candidates)} task{'' if len(candidates) == 1 else 's'} with a variant"
                short.append(
                    f"cell ({env_id}, {difficulty}) has {have}{extra}; --per-cell {per_cell} needs {per_cell}"
                )
                continue
            seeded_rng(seed, "panel", env_id, difficulty).shuffle(candidates)
            cells.append(
                PanelCell(env_id=env_id, difficulty=difficulty, task_ids=tuple(sorted(candidates[:per_cell])))
            )
    if short:
        raise PlanInfeasible("cell_size", "; ".join(short))
    return tuple(cells)
