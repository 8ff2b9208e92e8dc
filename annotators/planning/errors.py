"""The one error planning raises when a request cannot be met."""

from __future__ import annotations


class PlanInfeasible(ValueError):
    """A plan request no plan can satisfy.

    `constraint` is the stable code of the rule that cannot be met (the same codes `check_plan`
    uses, plus `invalid_request` for malformed arguments and `no_primary_annotators`); the message
    is a sentence a lead can act on.
    """

    def __init__(self, constraint: str, message: str) -> None:
        super().__init__(message)
        self.constraint = constraint
        self.message = message
