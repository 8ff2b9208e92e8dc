"""Pass rate, time and steps by interaction class (UI profiles, docs/ui-variants.md), for humans
and agents side by side.

A unit is a task-condition at a seed on a UI profile: (task_id, condition, seed, ui_profile). An
agent run is matched to the human attempts of its unit; a missing seed on either side (agent files
without one, bundles before schema 2.0) matches any seed. A unit on profile p counts toward every
interaction class that p changes, so one unit can be in several rows; units on the default profile
form the `baseline` row, and units on a profile whose classes are unknown form `unclassified`.

Which classes a profile changes is the site's declaration (`environments.ui.classes_of`); `exports`
does not import `environments`, so the caller passes it in as `classes_of(env_id, profile)`.

Humans: primary-tier cold attempts (a first try, as an agent's episode is); time is
`wall_clock_s`, steps are `clean_steps`. Agents: `elapsed_s` and `steps` (actions). Pass rates carry
a 95% Wilson score interval over attempts (episodes); medians a 95% percentile bootstrap interval
over attempts (episodes), seeded per estimate, left blank below MIN_N_FOR_CI.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from humantrace.exports.agent_bundle import DEFAULT_UI_PROFILE
from humantrace.exports.stats import MIN_N_FOR_CI, bootstrap, wilson

ClassesOf = Callable[[str, str], tuple[str, ...]]
BASELINE = "baseline"
UNCLASSIFIED = "unclassified"
_UNIT = ["task_id", "condition", "ui_profile"]
# (column stem, human column, agent column)
_MEDIANS = (("time_s", "wall_clock_s", "elapsed_s"), ("steps", "clean_steps", "steps"))


def with_profile(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with a `ui_profile` column: absent or blank (older bundles) is the default profile."""
    if "ui_profile" not in frame.columns:
        return frame.assign(ui_profile=DEFAULT_UI_PROFILE)
    profile = frame["ui_profile"].astype(object)
    blank = profile.isna() | (profile.astype(str).str.strip() == "")
    return frame.assign(ui_profile=profile.where(~blank, DEFAULT_UI_PROFILE).astype(str))


def profile_classes(
    pairs: pd.DataFrame, classes_of: ClassesOf | None
) -> tuple[dict[tuple[str, str], tuple[str, ...]], list[str]]:
    """(env_id, profile) -> the rows it counts toward, and a note per profile whose classes are unknown."""
    found: dict[tuple[str, str], tuple[str, ...]] = {}
    notes: list[str] = []
    for env_id, profile in sorted(set(zip(pairs["env_id"], pairs["ui_profile"], strict=True))):
        if profile == DEFAULT_UI_PROFILE:
            found[(env_id, profile)] = (BASELINE,)
            continue
        classes: tuple[str, ...] = ()
        if classes_of is not None:
            try:
                classes = tuple(classes_of(env_id, profile))
            except LookupError as exc:
                notes.append(f"UI profile {env_id}/{profile}: {exc}; counted as {UNCLASSIFIED}")
        elif not notes:
            notes.append(f"no interaction classes were given for UI profiles; they count as {UNCLASSIFIED}")
        found[(env_id, profile)] = classes or (UNCLASSIFIED,)
    return found, notes


def _seed_match(humans: pd.DataFrame, agents: pd.DataFrame) -> pd.DataFrame:
    """(task_id, condition, ui_profile, human seed, agent seed) of every unit both sides ran."""
    h = humans[[*_UNIT, "seed"]].drop_duplicates().rename(columns={"seed": "seed_h"})
    a = agents[[*_UNIT, "seed"]].drop_duplicates().rename(columns={"seed": "seed_a"})
    both = h.merge(a, on=_UNIT)
    same = both["seed_h"].isna() | both["seed_a"].isna() | (both["seed_h"] == both["seed_a"])
    return both[same]


def _keys(frame: pd.DataFrame, seed: str) -> list[tuple[object, ...]]:
    seeds = [None if pd.isna(v) else float(v) for v in frame[seed]]
    return list(zip(*(frame[c] for c in _UNIT), seeds, strict=True))


def matched_units(humans: pd.DataFrame, agents: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The human attempts and agent runs of the units both sides ran."""
    both = _seed_match(humans, agents)
    human_keys = set(_keys(both, "seed_h"))
    agent_keys = set(_keys(both, "seed_a"))
    h = humans[[k in human_keys for k in _keys(humans, "seed")]]
    a = agents[[k in agent_keys for k in _keys(agents, "seed")]]
    return h, a


def _median(values: pd.Series, *, n_boot: int, seed: int, key: str) -> tuple[float, float, float]:
    array = pd.to_numeric(values, errors="coerce").dropna().to_numpy(dtype=float)
    est = bootstrap(
        array, np.median, n_boot=n_boot, seed=seed, key=key, batched=lambda a: np.median(a, axis=1)
    )
    if est.n < MIN_N_FOR_CI:
        return est.estimate, float("nan"), float("nan")
    return est.estimate, est.ci_low, est.ci_high


def _side(frame: pd.DataFrame, side: str, *, n_boot: int, seed: int, key: str) -> dict[str, object]:
    """n, pass rate (Wilson interval) and medians (bootstrap intervals) of one side of one row."""
    passed = frame["passed"].astype(float).dropna()
    rate = wilson(int(passed.sum()), len(passed))
    out: dict[str, object] = {
        f"{side}_n": len(frame),
        f"{side}_pass_rate": rate.estimate,
        f"{side}_pass_ci_low": rate.ci_low,
        f"{side}_pass_ci_high": rate.ci_high,
    }
    for stem, human_col, agent_col in _MEDIANS:
        column = human_col if side == "human" else agent_col
        values = frame[column] if column in frame.columns else pd.Series(dtype=float)
        est, low, high = _median(values, n_boot=n_boot, seed=seed, key=f"{key}/{side}/{stem}")
        out.update(
            {f"{side}_median_{stem}": est, f"{side}_{stem}_ci_low": low, f"{side}_{stem}_ci_high": high}
        )
    return out


COLUMNS = [
    "model",
    "matched",
    "interaction_class",
    "profiles",
    "task_conditions",
    *(
        f"{side}_{name}"
        for side in ("human", "agent")
        for name in (
            "n",
            "pass_rate",
            "pass_ci_low",
            "pass_ci_high",
            "median_time_s",
            "time_s_ci_low",
            "time_s_ci_high",
            "median_steps",
            "steps_ci_low",
            "steps_ci_high",
        )
    ),
]


def _by_class(frame: pd.DataFrame, classes: dict[tuple[str, str], tuple[str, ...]]) -> pd.DataFrame:
    """One row per row of `frame` and interaction class it counts toward (column `classes`)."""
    keys = zip(frame["env_id"], frame["ui_profile"], strict=True)
    labels = pd.Series([classes[k] for k in keys], index=frame.index, dtype=object)
    return frame.assign(classes=labels).explode("classes")


def _rows(
    humans: pd.DataFrame,
    agents: pd.DataFrame | None,
    classes: dict[tuple[str, str], tuple[str, ...]],
    *,
    model: str,
    n_boot: int,
    seed: int,
) -> list[dict[str, object]]:
    """One row per interaction class the units of `humans` (and `agents`) reach."""
    exploded = _by_class(humans, classes)
    agent_label = _by_class(agents, classes) if agents is not None else None
    order = [BASELINE, *sorted(set(exploded["classes"]) - {BASELINE, UNCLASSIFIED}), UNCLASSIFIED]
    rows: list[dict[str, object]] = []
    for cls in order:
        part = exploded[exploded["classes"] == cls]
        if part.empty:
            continue
        key = f"by_interaction_class/{model}/{cls}"
        row: dict[str, object] = {
            "model": model,
            "matched": agents is not None,
            "interaction_class": cls,
            "profiles": ";".join(sorted(set(part["ui_profile"]))),
            "task_conditions": len(part[_UNIT].drop_duplicates()),
        }
        row.update(_side(part, "human", n_boot=n_boot, seed=seed, key=key))
        if agent_label is not None:
            row.update(
                _side(agent_label[agent_label["classes"] == cls], "agent", n_boot=n_boot, seed=seed, key=key)
            )
        rows.append(row)
    return rows


def by_interaction_class(
    attempts: pd.DataFrame,
    runs: pd.DataFrame,
    *,
    classes_of: ClassesOf | None,
    n_boot: int = 2000,
    seed: int = 0,
) -> tuple[pd.DataFrame, list[str]]:
    """The `by_interaction_class` table and notes for the reader.

    `attempts`: the analysed human attempts (primary tier; cold attempts are used here). `runs`:
    the imported agent runs (`task`, `env`, `condition`, `seed`, `ui_profile`, `passed`,
    `elapsed_s`, `steps`, `model`). First come the rows of every human cold attempt (`model` blank,
    `matched` false); then, per model, the rows of the units that model and the humans both ran
    (`matched` true), the human side restricted to those units.
    """
    humans = with_profile(attempts[attempts["phase"] == "cold"])
    if "seed" not in humans.columns:
        humans = humans.assign(seed=np.nan)
    humans = humans.assign(seed=pd.to_numeric(humans["seed"], errors="coerce"))
    agents = with_profile(runs.rename(columns={"task": "task_id", "env": "env_id"}))
    agents = agents.assign(seed=pd.to_numeric(agents["seed"], errors="coerce"))
    both = pd.concat([humans[["env_id", "ui_profile"]], agents[["env_id", "ui_profile"]]])
    classes, notes = profile_classes(both, classes_of)
    rows = _rows(humans, None, classes, model="", n_boot=n_boot, seed=seed) if not humans.empty else []
    for model, theirs in agents.groupby("model", sort=True):
        h, a = matched_units(humans, theirs)
        unmatched = len(theirs) - len(a)
        if unmatched:
            notes.append(
                f"{model}: {unmatched} of {len(theirs)} run(s) match no human cold attempt on "
                "(task, condition, seed, UI profile) and are left out of by_interaction_class"
            )
        if not h.empty:
            rows += _rows(h, a, classes, model=str(model), n_boot=n_boot, seed=seed)
    table = pd.DataFrame(rows, columns=COLUMNS)
    return table.astype({"human_n": "Int64", "agent_n": "Int64", "task_conditions": "Int64"}), notes
