"""People in studies: membership with a tier and designed environments, CSV import, deactivation.

Leads are deployment-wide and belong to no study. An annotator belongs to each study they have a
`Membership` in; the same person (one code, one login) may be in several studies with a different
tier and designed environments in each. Keyword-only functions, no HTTP; this package knows a
study only by its id.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from sqlmodel import Session, col, select

from humantrace.annotators.models import Annotator, LoginLink, LoginSession, Membership, Role, Tier
from humantrace.annotators.service import CODE_PATTERN, NAME_MAX_LENGTH, AccountError

CSV_COLUMNS = ("code", "role", "tier", "designed", "name")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class PersonRow(BaseModel):
    """One person to add: the columns of `annotators import FILE.csv` (designed: environments separated by `;`)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    code: str = Field(max_length=16)
    role: Role = Role.annotator
    tier: Tier = Tier.primary
    designed: list[str] = Field(default_factory=list)
    name: str = ""

    @field_validator("code", mode="before")
    @classmethod
    def _code(cls, value: str) -> str:
        code = str(value or "").strip().upper()
        if not CODE_PATTERN.match(code):
            raise ValueError(
                f"code {code!r} is not valid: use a letter then letters or digits, e.g. A1, D1, L1"
            )
        return code

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        control = _CONTROL.search(value)
        if control:
            # PostgreSQL cannot store a NUL in text, and no name needs a control character.
            raise ValueError(f"the name holds the control character U+{ord(control.group()):04X}; remove it")
        if len(value) > NAME_MAX_LENGTH:
            raise ValueError(f"the name is {len(value)} characters long; at most {NAME_MAX_LENGTH} fit")
        return value

    @field_validator("role", "tier", mode="before")
    @classmethod
    def _blank_is_default(cls, value, info):
        kind = Role if info.field_name == "role" else Tier
        if value is None or str(value).strip() == "":
            return next(iter(kind))
        text = str(value).strip().lower()
        if text not in {k.value for k in kind}:
            raise ValueError(
                f"unknown {info.field_name} {text!r}: expected one of {', '.join(k.value for k in kind)}"
            )
        return text

    @field_validator("designed", mode="before")
    @classmethod
    def _designed(cls, value) -> list[str]:
        if isinstance(value, str):
            value = value.replace(",", ";").split(";")
        return sorted({str(env).strip() for env in value or [] if str(env).strip()})


@dataclass(frozen=True)
class Member:
    """A person as a study sees them: the account and, for annotators, their membership."""

    person: Annotator
    membership: Membership | None

    @property
    def active(self) -> bool:
        return self.person.active and (self.membership is None or self.membership.active)


class ImportRefused(AccountError):
    """A CSV with at least one bad row: nothing was added; `errors` lists every row's problem."""

    def __init__(self, errors: list[str]):
        super().__init__("nothing was imported:\n" + "\n".join(errors))
        self.errors = errors


def stage_person(session: Session, *, row: PersonRow | dict, study_id: int | None) -> Annotator:
    """Add (without committing) the person of `row`, and their membership in `study_id`; raise `AccountError`."""
    try:
        row = row if isinstance(row, PersonRow) else PersonRow.model_validate(row)
    except ValidationError as exc:
        raise AccountError(_message(exc)) from None
    person = session.exec(select(Annotator).where(Annotator.code == row.code)).first()
    if person is not None and str(person.role) != row.role.value:
        raise AccountError(f"{row.code} already exists as {person.role}, not {row.role.value}.")
    if row.role == Role.lead or study_id is None:
        if person is not None:
            raise AccountError(f"an annotator with code {row.code} already exists.")
        person = Annotator(code=row.code, role=row.role, display_name=row.name or row.code)
        session.add(person)
        session.flush()
        return person
    if person is None:
        person = Annotator(code=row.code, role=row.role, display_name=row.name or row.code)
        session.add(person)
        session.flush()
    elif session.exec(
        select(Membership).where(Membership.study_id == study_id, Membership.annotator_id == person.id)
    ).first():
        raise AccountError(f"{row.code} is already in this study.")
    assert person.id is not None  # stored above (flushed) or read from the database
    session.add(
        Membership(study_id=study_id, annotator_id=person.id, tier=row.tier, designed=list(row.designed))
    )
    session.flush()
    return person


def _message(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'row'}: {e['msg'].removeprefix('Value error, ')}"
        for e in exc.errors()
    )


def parse_csv(text: str) -> tuple[list[PersonRow], list[str]]:
    """Rows of a people CSV (header `code,role,tier,designed,name`; only `code` is required) and the
    problems of every bad row, by line number."""
    parsed = _parse(text)
    return parsed.rows, parsed.errors


@dataclass
class _Parsed:
    rows: list[PersonRow]
    lines: dict[str, int]  # code -> the line its row is on
    errors: list[str]


def _parse(text: str) -> _Parsed:
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [h.strip().lower() for h in reader.fieldnames or []]
    if "code" not in header:
        return _Parsed(
            [],
            {},
            [
                f"line 1: the header must name the columns {','.join(CSV_COLUMNS)} (only code is required); got {','.join(header) or 'nothing'}"
            ],
        )
    unknown = [h for h in header if h not in CSV_COLUMNS]
    if unknown:
        return _Parsed(
            [], {}, [f"line 1: unknown column(s) {', '.join(unknown)}; allowed: {', '.join(CSV_COLUMNS)}"]
        )
    parsed = _Parsed([], {}, [])
    for raw in reader:
        line = reader.line_num
        values = {k.strip().lower(): (v or "") for k, v in raw.items() if k is not None}
        if not any(v.strip() for v in values.values()):
            continue
        try:
            row = PersonRow.model_validate(values)
        except ValidationError as exc:
            parsed.errors.append(f"line {line}: {_message(exc)}")
            continue
        if row.role == Role.lead:
            # A lead manages every study; a study's list of people cannot grant that.
            parsed.errors.append(
                f"line {line}: {row.code} is a lead; leads manage every study and are added one by one "
                f"(humantrace annotators add {row.code} --role lead, or Add a person on the People page)"
            )
            continue
        if row.code in parsed.lines:
            parsed.errors.append(f"line {line}: {row.code} is also on line {parsed.lines[row.code]}")
            continue
        parsed.lines[row.code] = line
        parsed.rows.append(row)
    if not parsed.rows and not parsed.errors:
        parsed.errors.append("the file has no people in it")
    return parsed


def import_people(
    session: Session, *, text: str, study_id: int, known_envs: set[str] | None = None
) -> list[Annotator]:
    """Add every annotator of a CSV to the study in one transaction: all of them, or none (raises
    `ImportRefused` listing the problem of every bad row, by line). Leads are refused: they are
    added one by one (`stage_person`)."""
    parsed = _parse(text)
    rows, lines, errors = parsed.rows, parsed.lines, parsed.errors
    for row in rows:
        unknown = [env for env in row.designed if known_envs is not None and env not in known_envs]
        if unknown:
            errors.append(f"line {lines[row.code]}: unknown environment(s) {', '.join(unknown)}")
    if errors:
        raise ImportRefused(sorted(errors, key=_line_number))
    added = []
    for row in rows:
        try:
            added.append(stage_person(session, row=row, study_id=study_id))
        except AccountError as exc:
            errors.append(f"line {lines[row.code]}: {exc}")
    if errors:
        session.rollback()
        raise ImportRefused(errors)
    session.commit()
    for person in added:
        session.refresh(person)
    return added


def _line_number(error: str) -> int:
    head = error.removeprefix("line ").split(":", 1)[0]
    return int(head) if head.isdigit() else 0


def members(session: Session, *, study_id: int, include_leads: bool = False) -> list[Member]:
    """Everybody in a study (annotators by membership), sorted by code; leads too when asked."""
    rows = session.exec(
        select(Annotator, Membership)
        .join(Membership, col(Membership.annotator_id) == col(Annotator.id))
        .where(Membership.study_id == study_id)
    ).all()
    found = [Member(person, membership) for person, membership in rows]
    if include_leads:
        found += [Member(p, None) for p in session.exec(select(Annotator).where(Annotator.role == Role.lead))]
    return sorted(found, key=lambda m: (m.person.is_lead, m.person.code))


def membership_of(session: Session, *, study_id: int, annotator_id: int) -> Membership | None:
    return session.exec(
        select(Membership).where(Membership.study_id == study_id, Membership.annotator_id == annotator_id)
    ).first()


def study_ids_of(session: Session, *, annotator_id: int) -> list[int]:
    """The studies an annotator is an active member of."""
    return list(
        session.exec(
            select(Membership.study_id)
            .where(Membership.annotator_id == annotator_id, Membership.active == True)  # noqa: E712 (SQL, not a truth test)
            .order_by(col(Membership.study_id))
        )
    )


def deactivate(session: Session, *, code: str, study_id: int | None) -> Annotator:
    """An annotator leaves the study (their recorded work stays; no new assignments); a lead's account
    is deactivated. Their open login links and sessions stop working in that study."""
    person = session.exec(select(Annotator).where(Annotator.code == code.strip().upper())).first()
    if person is None:
        raise AccountError(f"no annotator with code {code.strip().upper()}.")
    if person.is_lead or study_id is None:
        person.active = False
        session.add(person)
    else:
        assert person.id is not None  # read from the database
        member = membership_of(session, study_id=study_id, annotator_id=person.id)
        if member is None:
            raise AccountError(f"{person.code} is not in this study.")
        member.active = False
        session.add(member)
    session.commit()
    session.refresh(person)
    return person


def last_sign_in(session: Session, *, annotator_ids: list[int]) -> dict[int, datetime]:
    """When each person last signed in (the newest login session), for the people page."""
    found: dict[int, datetime] = {}
    if not annotator_ids:
        return found
    for annotator_id, created_at in session.exec(
        select(LoginSession.annotator_id, LoginSession.created_at).where(
            col(LoginSession.annotator_id).in_(annotator_ids)
        )
    ):
        if annotator_id not in found or created_at > found[annotator_id]:
            found[annotator_id] = created_at
    return found


def pending_links(session: Session, *, annotator_ids: list[int]) -> set[int]:
    """People holding a login link nobody has used yet."""
    if not annotator_ids:
        return set()
    return set(
        session.exec(
            select(LoginLink.annotator_id).where(
                col(LoginLink.annotator_id).in_(annotator_ids), col(LoginLink.used_at).is_(None)
            )
        )
    )
