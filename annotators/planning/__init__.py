"""Panel planning and assignment rules (the Human-140 design, parameterised).

Pure functions over plain inputs: `plan_panel` chooses the panel and assigns every task-condition;
`check_plan` re-verifies any plan against every rule. See docs/planning.md.
"""

from humantrace.annotators.planning.check import RULES, check_plan
from humantrace.annotators.planning.errors import PlanInfeasible
from humantrace.annotators.planning.planner import plan_panel
from humantrace.annotators.planning.profiles import resolve_profiles
from humantrace.annotators.planning.schemas import (
    CONDITIONS,
    DEFAULT_PROFILE,
    DIFFICULTIES,
    AnnotatorLoad,
    PanelCell,
    Plan,
    PlanAnnotator,
    PlannedAssignment,
    PlanSummary,
    PlanTask,
    Violation,
)

__all__ = [
    "CONDITIONS",
    "DEFAULT_PROFILE",
    "DIFFICULTIES",
    "RULES",
    "AnnotatorLoad",
    "PanelCell",
    "Plan",
    "PlanAnnotator",
    "PlanInfeasible",
    "PlanSummary",
    "PlanTask",
    "PlannedAssignment",
    "Violation",
    "check_plan",
    "plan_panel",
    "resolve_profiles",
]
