"""Studies: create, find, change settings and move through draft → open → closed → archived.

Keyword-only functions over a SQLModel session, no HTTP. The CLI (`humantrace study ...`), the lead's
pages and `serve --demo` all go through here, so a setting is validated the same way everywhere and
every change made once the study has data lands in its audit trail (`StudyChange`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from sqlalchemy import func
from sqlmodel import Session, col, select

from humantrace.dashboard.studies.models import (
    Assignment,
    Attempt,
    Study,
    StudyChange,
    StudyStatus,
)
from humantrace.dashboard.studies.schemas import (
    FIELD_KEYS,
    LOCKED_ONCE_RECORDED,
    SETTING_KEYS,
    StudyFields,
    StudySettings,
    show,
)

# Which status each lifecycle command may leave from.
TRANSITIONS: dict[StudyStatus, tuple[StudyStatus, ...]] = {
    StudyStatus.open: (StudyStatus.draft, StudyStatus.closed),
    StudyStatus.closed: (StudyStatus.open,),
    StudyStatus.archived: (StudyStatus.draft, StudyStatus.open, StudyStatus.closed),
}


def stored_id(study: Study) -> int:
    """A stored study's id (SQLModel types `id` as optional because it is unset before insert)."""
    if study.id is None:
        raise StudyError("the study is not stored yet")
    return study.id


class StudyError(ValueError):
    """A request about studies that cannot be carried out; the message says why and what to do."""


def _errors(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "value"
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = f"unknown setting; allowed: {', '.join(SETTING_KEYS + FIELD_KEYS)}"
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def _split_envs(value: Any) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    return sorted({str(v).strip() for v in value or [] if str(v).strip()})


def _check_envs(envs: list[str]) -> None:
    from humantrace.environments import registry

    known = {env.env_id for env in registry.all_environments()}
    unknown = [env for env in envs if env not in known]
    if unknown:
        raise StudyError(
            f"unknown environment(s) {', '.join(unknown)}; registered: {', '.join(sorted(known)) or 'none'}."
        )


def current_settings(study: Study) -> StudySettings:
    return StudySettings(**{key: getattr(study, key) for key in SETTING_KEYS})


def parse_assignments(pairs: list[str]) -> dict[str, str]:
    """`["KEY=VALUE", ...]` → dict; a pair without `=` is an error naming it."""
    result: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise StudyError(f"{pair!r} is not KEY=VALUE (e.g. rollback_grace_seconds=15).")
        result[key.strip()] = value.strip()
    return result


def has_attempts(db: Session, *, study: Study) -> bool:
    """Whether anybody has started an attempt in the study (settings changes are audited from then on)."""
    found = db.exec(
        select(func.count())
        .select_from(Attempt)
        .join(Assignment, col(Assignment.id) == col(Attempt.assignment_id))
        .where(Assignment.study_id == study.id)
    ).one()
    return found > 0


def create_study(
    db: Session,
    *,
    name: str,
    description: str = "",
    envs: str | list[str] | None = None,
    seed: int = 42,
    settings: Mapping[str, Any] | None = None,
    status: StudyStatus = StudyStatus.draft,
) -> Study:
    """A new study (draft unless told otherwise). Refuses a taken name, an unknown environment or setting."""
    try:
        fields = StudyFields(
            name=name.strip(), description=description.strip(), seed=seed, envs=_split_envs(envs)
        )
        chosen = StudySettings(**dict(settings or {}))
    except ValidationError as exc:
        raise StudyError(_errors(exc)) from None
    _check_envs(fields.envs)
    if db.exec(select(Study).where(Study.name == fields.name)).first() is not None:
        raise StudyError(f"a study named {fields.name!r} already exists; choose another name.")
    study = Study(**fields.model_dump(), **chosen.model_dump(), status=StudyStatus(status))
    db.add(study)
    db.commit()
    db.refresh(study)
    return study


def list_studies(db: Session, *, include_archived: bool = True) -> list[Study]:
    query = select(Study).order_by(col(Study.id))
    if not include_archived:
        query = query.where(Study.status != StudyStatus.archived)
    return list(db.exec(query))


def get_study(db: Session, *, ref: str | int) -> Study:
    """The study with this id or name."""
    text = str(ref).strip()
    study = db.exec(select(Study).where(Study.name == text)).first()
    if study is None and text.isdigit():
        study = db.get(Study, int(text))
    if study is None:
        names = ", ".join(s.name for s in list_studies(db)) or "none yet"
        raise StudyError(f"no study {text!r} (studies: {names}).")
    return study


def resolve_study(db: Session, *, ref: str | int | None) -> Study:
    """The study a command acts on: `ref` when given, else the only study that is not archived.

    With several candidates it refuses and lists them, so nobody changes the wrong study by accident."""
    if ref not in (None, ""):
        return get_study(db, ref=ref)
    candidates = list_studies(db, include_archived=False)
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise StudyError(
            "there is no study yet: run `humantrace study create NAME` (or `humantrace serve --demo`)."
        )
    listing = ", ".join(f"{s.name!r} ({s.status})" for s in candidates)
    raise StudyError(f"there are {len(candidates)} studies; say which with --study NAME: {listing}.")


def update_study(db: Session, *, study: Study, changes: Mapping[str, Any], actor: str) -> list[StudyChange]:
    """Validate every change, then apply them together; once the study has attempts, record each in
    the audit trail. Seed and environments are refused once an attempt exists (the data would mix
    two instances). Returns the recorded changes (empty before the first attempt)."""
    unknown = [key for key in changes if key not in SETTING_KEYS + FIELD_KEYS]
    if unknown:
        raise StudyError(
            f"unknown setting {', '.join(unknown)}; allowed: {', '.join(SETTING_KEYS + FIELD_KEYS)}."
        )
    settings_in = {k: v for k, v in changes.items() if k in SETTING_KEYS}
    fields_in = {k: v for k, v in changes.items() if k in FIELD_KEYS}
    if "envs" in fields_in:
        fields_in["envs"] = _split_envs(fields_in["envs"])
    try:
        settings = StudySettings.model_validate({**current_settings(study).model_dump(), **settings_in})
        fields = StudyFields.model_validate(
            {
                "name": study.name,
                "description": study.description,
                "seed": study.seed,
                "envs": list(study.envs),
                **fields_in,
            }
        )
    except ValidationError as exc:
        raise StudyError(_errors(exc)) from None
    new_values = {
        **{k: getattr(fields, k) for k in fields_in},
        **{k: getattr(settings, k) for k in settings_in},
    }
    new_values = {k: v for k, v in new_values.items() if getattr(study, k) != v}
    if "name" in new_values:
        fields = fields.model_copy(update={"name": fields.name.strip()})
        new_values["name"] = fields.name
        clash = db.exec(select(Study).where(Study.name == fields.name, Study.id != study.id)).first()
        if clash is not None:
            raise StudyError(f"a study named {fields.name!r} already exists; choose another name.")
    if "envs" in new_values:
        _check_envs(new_values["envs"])
    recorded = has_attempts(db, study=study)
    locked = [k for k in LOCKED_ONCE_RECORDED if k in new_values]
    if recorded and locked:
        raise StudyError(
            f"{' and '.join(locked)} cannot change once attempts are recorded (both conditions and every agent must share one instance); create a new study instead."
        )
    changes_made = []
    for key, value in new_values.items():
        if recorded:
            changes_made.append(
                StudyChange(
                    study_id=stored_id(study),
                    actor=actor,
                    key=key,
                    old=show(getattr(study, key), key),
                    new=show(value, key),
                )
            )
        setattr(study, key, list(value) if isinstance(value, list) else value)
    db.add(study)
    db.add_all(changes_made)
    db.commit()
    db.refresh(study)
    return changes_made


def set_status(db: Session, *, study: Study, to: StudyStatus, actor: str) -> Study:
    """Move the study through its lifecycle (open, close, reopen, archive); the move is audited once data exists."""
    to = StudyStatus(to)
    current = StudyStatus(study.status)
    if current == to:
        return study
    if current not in TRANSITIONS[to]:
        raise StudyError(
            f"study {study.name!r} is {current.value}; it cannot become {to.value} (from {', '.join(s.value for s in TRANSITIONS[to])} only)."
        )
    if has_attempts(db, study=study):
        db.add(StudyChange(study_id=stored_id(study), actor=actor, key="status", old=current, new=to))
    study.status = to
    db.add(study)
    db.commit()
    db.refresh(study)
    return study


def audit_trail(db: Session, *, study: Study) -> list[StudyChange]:
    return list(
        db.exec(select(StudyChange).where(StudyChange.study_id == study.id).order_by(col(StudyChange.id)))
    )


def describe(study: Study) -> dict[str, str]:
    """Every field and setting of a study as printable text (`study show`)."""
    keys = ("name", "status", "description", "seed", "envs") + SETTING_KEYS
    return {"id": str(study.id), **{key: show(getattr(study, key), key) for key in keys}}
