"""The canonical-diff evaluator: state diff, predicate grammar, bijection matching and scoring.

Pure functions, no database or web imports: ``compute_diff`` turns two states into Create/Update/
Delete records, ``match`` scores those records against a task's ``canonical_diff`` (steps 1-11 of
docs/evaluator.md, "Scoring, step by step") and ``evaluate`` does both for a task and an env
session, reporting the WebPageBench event match beside the score.
"""

from .diff import Create, Delete, DiffEntry, StateShapeError, Update, compute_diff
from .predicates import VERBS, CanonicalDiffError, Scope, check, values_equal
from .sandbox import UnsafeExpression, compile_expr
from .scoring import evaluate, match
from .spec import SEVERITY_PENALTY, parse_canonical_diff
from .verdict import AlternativeResult, NegativeCheck, PositiveCheck, Verdict

__all__ = [
    "VERBS",
    "SEVERITY_PENALTY",
    "AlternativeResult",
    "CanonicalDiffError",
    "Create",
    "Delete",
    "DiffEntry",
    "NegativeCheck",
    "PositiveCheck",
    "Scope",
    "StateShapeError",
    "UnsafeExpression",
    "Update",
    "Verdict",
    "check",
    "compile_expr",
    "compute_diff",
    "evaluate",
    "match",
    "parse_canonical_diff",
    "values_equal",
]
