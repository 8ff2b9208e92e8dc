"""The study settings a lead may change, with their allowed values: one pydantic model.

`StudySettings` validates `study set KEY=VALUE`, the settings form and `study create --setting`;
`settings_help()` prints its keys and ranges (CLI `--help`, the settings page).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = ["FIELD_KEYS", "SETTING_KEYS", "StudyFields", "StudySettings", "ValidationError", "settings_help"]


class StudySettings(BaseModel):
    """Per-study settings of the study flow and the recorder."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    show_score_to_annotators: bool = Field(
        False, description="show pass/fail to the annotator after each attempt"
    )
    rollback_grace_seconds: int = Field(
        10, ge=3, le=600, description="seconds a closed tab may stay gone before the assignment rolls back"
    )
    hard_time_limit_seconds: int = Field(
        1800, ge=60, le=14400, description="an attempt still running after this many seconds times out"
    )
    reading_countdown_seconds: int = Field(
        20, ge=0, le=600, description="reading time before the cold attempt (Start now skips it)"
    )
    mask_all_text: bool = Field(
        False, description="mask every typed value in the recording (passwords always are)"
    )
    mousemove_sample_ms: int = Field(
        100, ge=0, le=5000, description="minimum milliseconds between recorded mouse moves (0: every move)"
    )
    require_rating: bool = Field(
        False, description="the rating form after the warm attempt cannot be skipped"
    )
    mask_selectors: list[str] = Field(
        default_factory=list,
        description="CSS selectors of fields whose typed text the recorder masks in this study, besides each site's own "
        "(separated by ; or one per line; e.g. #dob; .record-number)",
    )

    @field_validator("mask_selectors", mode="before")
    @classmethod
    def _selectors(cls, value: Any) -> list[str]:
        """`"#dob; .record-no"` or a list → a clean list (`;` never occurs in a CSS selector outside quotes)."""
        from humantrace.recorder.service import check_mask_selectors

        if value is None:
            return []
        if isinstance(value, str):
            value = [part for line in value.splitlines() for part in line.split(";")]
        if not isinstance(value, list | tuple):
            raise ValueError("a list of CSS selectors separated by ;")
        return check_mask_selectors([str(v).strip() for v in value if str(v).strip()])


class StudyFields(BaseModel):
    """The study's own fields that `study set` also takes. Seed and environments are fixed once an attempt exists."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200, description="unique name (what --study takes)")
    description: str = Field("", max_length=4000, description="shown to annotators on their dashboard")
    seed: int = Field(
        42, ge=0, le=2**31 - 1, description="every env session's seed (fixed once an attempt exists)"
    )
    envs: list[str] = Field(
        default_factory=list,
        description="comma-separated environments the panel draws from; empty: all (fixed once an attempt exists)",
    )


SETTING_KEYS: tuple[str, ...] = tuple(StudySettings.model_fields)
FIELD_KEYS: tuple[str, ...] = tuple(StudyFields.model_fields)
LOCKED_ONCE_RECORDED = ("seed", "envs")


def _range(key: str, info) -> str:
    if info.annotation is bool:
        return "true|false"
    if info.annotation is int:
        low = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
        high = next((m.le for m in info.metadata if hasattr(m, "le")), None)
        return f"{low}..{high}" if low is not None and high is not None else "integer"
    if info.annotation is str:
        return "text"
    return "selectors separated by ;" if key == "mask_selectors" else "comma-separated list"


def settings_help() -> str:
    """One line per key: name, allowed values, default, meaning (for `--help` and the settings page)."""
    lines = []
    for model in (StudySettings, StudyFields):
        for key, info in model.model_fields.items():
            default = (
                ""
                if info.is_required()
                else f", default {_default(info.get_default(call_default_factory=True), key)}"
            )
            lines.append(f"{key} ({_range(key, info)}{default}): {info.description}")
    return "\n".join(lines)


def _show(value: Any, key: str = "") -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        if key == "mask_selectors":
            return "; ".join(value) or "(none)"
        return ",".join(value) or "(all)"
    return str(value)


def _default(value: Any, key: str = "") -> str:
    return '""' if value == "" else _show(value, key)


def show(value: Any, key: str = "") -> str:
    """A setting's value as the CLI and the audit trail print it (`key` picks how a list is joined)."""
    return _show(value, key)
