"""The order in which each annotator works through their assignments.

Each annotator's rows are grouped by difficulty, shuffled within a group by a stream seeded with
the plan seed and the annotator code, then interleaved so every difficulty is spread evenly over
the whole queue (item i of a group of n sits at fraction (i + 0.5) / n). Nobody ever holds a base
task twice (both conditions, or two UI profiles), so no run can prime another of the same task.
"""

from __future__ import annotations

from collections.abc import Iterable

from humantrace.annotators.planning.panel import seeded_rng
from humantrace.annotators.planning.schemas import DIFFICULTIES, PlannedAssignment
from humantrace.annotators.planning.solver import SolvedRow


def order_rows(rows: Iterable[SolvedRow], *, seed: int) -> tuple[PlannedAssignment, ...]:
    """Number each annotator's rows from 1 and return all rows sorted by (annotator, order)."""
    by_annotator: dict[str, list[SolvedRow]] = {}
    for row in rows:
        by_annotator.setdefault(row.annotator, []).append(row)
    out: list[PlannedAssignment] = []
    for code in sorted(by_annotator):
        rng = seeded_rng(seed, "order", code)
        # Which difficulty goes first when two land on the same fraction is itself seeded.
        rank = {difficulty: r for r, difficulty in enumerate(rng.sample(DIFFICULTIES, len(DIFFICULTIES)))}
        keyed: list[tuple[float, int, SolvedRow]] = []
        for difficulty in DIFFICULTIES:
            group = sorted(
                (r for r in by_annotator[code] if r.tc.difficulty == difficulty),
                key=lambda r: (r.tc.env_id, r.tc.task_id, r.tc.condition, r.tc.ui_profile),
            )
            rng.shuffle(group)
            keyed += [((i + 0.5) / len(group), rank[difficulty], row) for i, row in enumerate(group)]
        keyed.sort(key=lambda item: (item[0], item[1]))
        out += [
            PlannedAssignment(
                annotator=code,
                task_id=row.tc.task_id,
                env_id=row.tc.env_id,
                difficulty=row.tc.difficulty,
                condition=row.tc.condition,
                tier=row.tier,
                order=position,
                ui_profile=row.tc.ui_profile,
            )
            for position, (_, _, row) in enumerate(keyed, start=1)
        ]
    return tuple(out)
