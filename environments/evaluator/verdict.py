"""Typed results of the canonical-diff evaluator: one check per clause, each with a diagnosis."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..event_conditions import ConditionResult


class PositiveCheck(BaseModel):
    """One create/update/delete entry: what it earned and why."""

    kind: Literal["create", "update", "delete"]
    index: int
    name: str = Field(description="desc, or the name a named invariant gave it")
    desc: str
    collection: str
    applicable: bool = True
    weight: float = Field(description="weight counted in the total (0 when not applicable)")
    credit: float = Field(description="fraction met: 1 or 0 for a singleton, |M|/slots for a bijection")
    earned: float
    passed: bool
    slots: int | None = None
    matched: int | None = None
    used: list[str] = Field(default_factory=list, description="diff entries this entry consumed")
    unmatched_slots: list[Any] = Field(default_factory=list)
    near_misses: list[str] = Field(default_factory=list)
    surplus: list[str] = Field(default_factory=list)
    eligible: int = Field(0, description="candidates that satisfied the entry for some slot")
    diagnosis: str


class NegativeCheck(BaseModel):
    """An invariant, constraint, collateral charge or create[i] surplus check."""

    kind: Literal["invariant", "constraint", "collateral", "surplus"]
    index: int | None = None
    name: str
    severity: Literal["critical", "high", "medium", "low"]
    passed: bool
    penalty: float = Field(description="subtracted from the score (0 when the check passed)")
    entries: list[str] = Field(default_factory=list, description="diff entries that broke it")
    diagnosis: str


class AlternativeResult(BaseModel):
    """How one ``oneof`` alternative scored."""

    index: int
    score: float
    passed: bool
    failures: int
    critical_ok: bool


class Verdict(BaseModel):
    """The evaluator's answer for one attempt; ``score`` and ``passed`` are the result."""

    score: float
    passed: bool
    raw_score: float
    penalty: float
    earned_weight: float
    total_weight: float
    positive_checks: list[PositiveCheck] = Field(default_factory=list)
    negative_checks: list[NegativeCheck] = Field(default_factory=list)
    alternative: int | None = Field(None, description="index of the winning oneof block")
    alternatives: list[AlternativeResult] = Field(default_factory=list)
    diff_size: int = 0
    benign: list[str] = Field(default_factory=list, description="benign read side effects seen")
    event_match_score: float | None = Field(
        None, description="WebPageBench Event-Match Score, reported beside score, not part of it"
    )
    event_checks: list[ConditionResult] | None = None

    @property
    def failures(self) -> int:
        """Checks that did not pass (positive short of full credit plus failed negative)."""
        return sum(not c.passed for c in self.positive_checks) + sum(
            not c.passed for c in self.negative_checks
        )

    def summary(self) -> str:
        """One line per failed check, for a lead reading an attempt."""
        lines = [f"score {self.score:.2f} ({'passed' if self.passed else 'failed'})"]
        lines += [f"- {c.diagnosis}" for c in self.positive_checks if not c.passed]
        lines += [
            f"- [{c.severity} -{c.penalty:.2f}] {c.diagnosis}" for c in self.negative_checks if not c.passed
        ]
        return "\n".join(lines)
