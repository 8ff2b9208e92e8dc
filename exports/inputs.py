"""Loading the inputs of a comparison: several human bundles as one study set, and `--filter`.

Several bundles (several studies) are read one by one; each keeps its own attempt ids while
its features are computed, then attempts are renumbered so ids stay unique, and with more than
one bundle every coded annotator id is prefixed by its bundle's label (A1 of one study is not
A1 of another).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from humantrace.exports.bundle import BundleError, read_bundle, verify_bundle
from humantrace.exports.failure_modes import classify_failures
from humantrace.exports.features import extract_features
from humantrace.exports.ui_tables import with_profile

# --filter key -> (human attempts column, agent runs column)
FILTER_KEYS = {
    "env": ("env_id", "env"),
    "difficulty": ("difficulty", "difficulty"),
    "task": ("task_id", "task"),
    "condition": ("condition", "condition"),
    "profile": ("ui_profile", "ui_profile"),  # absent or blank (older bundles): default
}
_TABLES = ["attempts", "verdicts", "events_clean", "backend_audit"]


@dataclass
class HumanInput:
    """Every human bundle's attempts and verdicts, with each attempt's Appendix I features."""

    attempts: pd.DataFrame
    verdicts: pd.DataFrame
    features: pd.DataFrame
    manifests: list[dict[str, Any]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def parse_filters(specs: Iterable[str] | str | None) -> dict[str, set[str]]:
    """'env=shop,difficulty=easy' (or several such strings) -> {'env': {'shop'}, 'difficulty': {'easy'}}.

    A key given twice keeps either value (env=shop,env=mail); different keys must all hold.
    """
    if specs is None:
        return {}
    if isinstance(specs, str):
        specs = [specs]
    out: dict[str, set[str]] = {}
    for spec in specs:
        for part in (p.strip() for p in spec.split(",")):
            if not part:
                continue
            key, sep, value = part.partition("=")
            key, value = key.strip().lower(), value.strip()
            if not sep or not value:
                raise ValueError(f"filter {part!r} is not key=value (e.g. env=shop,difficulty=easy)")
            if key not in FILTER_KEYS:
                raise ValueError(f"unknown filter key {key!r}; use one of {', '.join(FILTER_KEYS)}")
            out.setdefault(key, set()).add(value)
    return out


def apply_filters(frame: pd.DataFrame, filters: dict[str, set[str]], *, side: str) -> pd.DataFrame:
    """Rows of human attempts (`side="human"`) or agent runs (`side="agent"`) that match every key."""
    keep = pd.Series(True, index=frame.index)
    for key, values in filters.items():
        column = FILTER_KEYS[key][0 if side == "human" else 1]
        if column == "ui_profile":
            keep &= with_profile(frame)[column].isin(values)
            continue
        keep &= frame[column].astype(str).isin(values)
    return frame[keep]


def _labels(dirs: list[Path]) -> list[str]:
    labels: list[str] = []
    seen: dict[str, int] = {}
    for path in dirs:
        name = path.resolve().name or str(path)
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return labels


def load_humans(dirs: Iterable[str | Path] | str | Path, *, verify: bool = True) -> HumanInput:
    """Read every human bundle, compute each attempt's features from its own bundle, and stack them."""
    paths = [Path(dirs)] if isinstance(dirs, (str, Path)) else [Path(d) for d in dirs]
    if not paths:
        raise BundleError("no human bundle given")
    labels = _labels(paths)
    attempts: list[pd.DataFrame] = []
    verdicts: list[pd.DataFrame] = []
    features: list[pd.DataFrame] = []
    manifests: list[dict[str, Any]] = []
    warnings: list[str] = []
    offset = 0
    for label, path in zip(labels, paths, strict=True):
        problems = verify_bundle(path)
        if problems and verify:
            raise BundleError(f"{path} does not verify: " + "; ".join(problems))
        warnings += [f"bundle {label}: {p}" for p in problems]
        bundle = read_bundle(path, tables=_TABLES)
        manifests.append(bundle.manifest)
        a = bundle.table("attempts")
        bundle_verdicts = bundle.table("verdicts")
        feats = extract_features(
            a[["attempt_id", "outcome"]].assign(steps=a["clean_steps"]),
            events_clean=bundle.events_clean,
            backend_audit=bundle.backend_audit,
            verdicts=bundle_verdicts,
        )
        feats = feats.merge(a[["attempt_id", "passed", "score"]], on="attempt_id", how="left")
        feats["failure_mode"] = classify_failures(feats.assign(passed=feats["passed"].astype(bool)))
        ids = {old: offset + i for i, old in enumerate(a["attempt_id"].tolist(), start=1)}
        offset += len(ids)
        a = a.assign(source_attempt_id=a["attempt_id"], attempt_id=a["attempt_id"].map(ids), study=label)
        if len(paths) > 1:
            a["annotator"] = label + "/" + a["annotator"].astype(str)
            a["assignment_id"] = a["assignment_id"].astype(str).radd(label + "/")
        v = bundle_verdicts.assign(attempt_id=bundle_verdicts["attempt_id"].map(ids))
        feats = feats.drop(columns=["passed", "score"]).assign(attempt_id=feats["attempt_id"].map(ids))
        attempts.append(a)
        verdicts.append(v.dropna(subset=["attempt_id"]))
        features.append(feats)
    return HumanInput(
        attempts=pd.concat(attempts, ignore_index=True),
        verdicts=pd.concat(verdicts, ignore_index=True),
        features=pd.concat(features, ignore_index=True),
        manifests=manifests,
        labels=labels,
        warnings=warnings,
    )
