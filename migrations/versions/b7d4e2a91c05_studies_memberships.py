"""studies: status, description, environments, settings audit; people join studies by membership

Every existing annotator (not lead) becomes a member of each study they have assignments in, and
of the newest active study when they have none, keeping their tier and designed environments. An
active study becomes `open`, an inactive one `archived`. Duplicate study names get their id
appended, since names become unique (the CLI's `--study` takes a name).

Revision ID: b7d4e2a91c05
Revises: 5c1e2f7a9b31
Create Date: 2026-12-04 07:40:00
"""

import json

import sqlalchemy as sa
import sqlmodel
import sqlmodel.sql.sqltypes
from alembic import op

revision = "b7d4e2a91c05"
down_revision = "5c1e2f7a9b31"
branch_labels = None
depends_on = None


def _designed(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else json.loads(value)


def upgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table("study", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "description",
                sqlmodel.sql.sqltypes.AutoString(length=4000),
                nullable=False,
                server_default="",
            )
        )
        batch_op.add_column(sa.Column("envs", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("status", sa.String(length=16), nullable=False, server_default="open"))
        batch_op.add_column(
            sa.Column("require_rating", sa.Boolean(), nullable=False, server_default=sa.false())
        )

    study = sa.table(
        "study",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("active", sa.Boolean),
        sa.column("status", sa.String),
        sa.column("envs", sa.JSON),
    )
    rows = bind.execute(sa.select(study.c.id, study.c.name, study.c.active).order_by(study.c.id)).all()
    seen: set[str] = set()
    for study_id, name, active in rows:
        values: dict[str, object] = {"status": "open" if active else "archived", "envs": []}
        if name in seen:
            name = values["name"] = f"{name[:190]} ({study_id})"
        seen.add(name)
        bind.execute(study.update().where(study.c.id == study_id).values(**values))

    with op.batch_alter_table("study", schema=None) as batch_op:
        batch_op.alter_column("description", server_default=None)
        batch_op.alter_column("status", server_default=None)
        batch_op.alter_column("require_rating", server_default=None)
        batch_op.alter_column("envs", existing_type=sa.JSON(), nullable=False)
        batch_op.drop_column("active")
        batch_op.create_unique_constraint(batch_op.f("uq_study_name"), ["name"])
        batch_op.create_index(batch_op.f("ix_study_status"), ["status"], unique=False)

    op.create_table(
        "membership",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("designed", sa.JSON(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["annotator_id"], ["annotator.id"], name=op.f("fk_membership_annotator_id_annotator")
        ),
        sa.ForeignKeyConstraint(["study_id"], ["study.id"], name=op.f("fk_membership_study_id_study")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_membership")),
        sa.UniqueConstraint("study_id", "annotator_id", name=op.f("uq_membership_study_id_annotator_id")),
    )
    with op.batch_alter_table("membership", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_membership_annotator_id"), ["annotator_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_membership_study_id"), ["study_id"], unique=False)

    op.create_table(
        "studychange",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("old", sqlmodel.sql.sqltypes.AutoString(length=4000), nullable=False),
        sa.Column("new", sqlmodel.sql.sqltypes.AutoString(length=4000), nullable=False),
        sa.ForeignKeyConstraint(["study_id"], ["study.id"], name=op.f("fk_studychange_study_id_study")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_studychange")),
    )
    with op.batch_alter_table("studychange", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_studychange_study_id"), ["study_id"], unique=False)

    # Existing people into their studies, keeping tier and designed environments.
    annotator = sa.table(
        "annotator",
        sa.column("id", sa.Integer),
        sa.column("role", sa.String),
        sa.column("tier", sa.String),
        sa.column("designed", sa.JSON),
        sa.column("created_at", sa.DateTime),
    )
    assignment = sa.table(
        "assignment", sa.column("study_id", sa.Integer), sa.column("annotator_id", sa.Integer)
    )
    membership = sa.table(
        "membership",
        sa.column("study_id", sa.Integer),
        sa.column("annotator_id", sa.Integer),
        sa.column("tier", sa.String),
        sa.column("designed", sa.JSON),
        sa.column("active", sa.Boolean),
        sa.column("created_at", sa.DateTime),
    )
    open_ids = [study_id for study_id, _name, active in rows if active]
    newest_open = open_ids[-1] if open_ids else None
    worked: dict[int, set[int]] = {}
    for study_id, annotator_id in bind.execute(
        sa.select(assignment.c.study_id, assignment.c.annotator_id).distinct()
    ).all():
        worked.setdefault(annotator_id, set()).add(study_id)
    people = bind.execute(
        sa.select(
            annotator.c.id, annotator.c.role, annotator.c.tier, annotator.c.designed, annotator.c.created_at
        )
    ).all()
    for person_id, role, tier, designed, created_at in people:
        if role == "lead":
            continue
        studies = worked.get(person_id) or ({newest_open} if newest_open is not None else set())
        for study_id in sorted(studies):
            bind.execute(
                membership.insert().values(
                    study_id=study_id,
                    annotator_id=person_id,
                    tier=tier or "primary",
                    designed=_designed(designed),
                    active=True,
                    created_at=created_at,
                )
            )

    with op.batch_alter_table("annotator", schema=None) as batch_op:
        batch_op.drop_column("tier")
        batch_op.drop_column("designed")

    with op.batch_alter_table("loginsession", schema=None) as batch_op:
        batch_op.add_column(sa.Column("study_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_loginsession_study_id_study"), "study", ["study_id"], ["id"]
        )


def downgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table("loginsession", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_loginsession_study_id_study"), type_="foreignkey")
        batch_op.drop_column("study_id")

    with op.batch_alter_table("annotator", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tier", sa.String(length=16), nullable=False, server_default="primary"))
        batch_op.add_column(sa.Column("designed", sa.JSON(), nullable=True))
    annotator = sa.table(
        "annotator", sa.column("id", sa.Integer), sa.column("tier", sa.String), sa.column("designed", sa.JSON)
    )
    membership = sa.table(
        "membership",
        sa.column("id", sa.Integer),
        sa.column("annotator_id", sa.Integer),
        sa.column("tier", sa.String),
        sa.column("designed", sa.JSON),
    )
    # One person had one tier before studies: keep their earliest membership's.
    first: dict[int, tuple] = {}
    for _id, annotator_id, tier, designed in bind.execute(
        sa.select(membership).order_by(membership.c.id)
    ).all():
        first.setdefault(annotator_id, (tier, _designed(designed)))
    for (person_id,) in bind.execute(sa.select(annotator.c.id)).all():
        tier, designed = first.get(person_id, ("primary", []))
        bind.execute(
            annotator.update().where(annotator.c.id == person_id).values(tier=tier, designed=designed)
        )
    with op.batch_alter_table("annotator", schema=None) as batch_op:
        batch_op.alter_column("tier", server_default=None)
        batch_op.alter_column("designed", existing_type=sa.JSON(), nullable=False)

    with op.batch_alter_table("studychange", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_studychange_study_id"))
    op.drop_table("studychange")
    with op.batch_alter_table("membership", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_membership_study_id"))
        batch_op.drop_index(batch_op.f("ix_membership_annotator_id"))
    op.drop_table("membership")

    with op.batch_alter_table("study", schema=None) as batch_op:
        batch_op.add_column(sa.Column("active", sa.Boolean(), nullable=False, server_default=sa.true()))
    study = sa.table("study", sa.column("status", sa.String), sa.column("active", sa.Boolean))
    bind.execute(study.update().values(active=study.c.status != "archived"))
    with op.batch_alter_table("study", schema=None) as batch_op:
        batch_op.alter_column("active", server_default=None)
        batch_op.drop_index(batch_op.f("ix_study_status"))
        batch_op.drop_constraint(batch_op.f("uq_study_name"), type_="unique")
        batch_op.drop_column("require_rating")
        batch_op.drop_column("status")
        batch_op.drop_column("envs")
        batch_op.drop_column("description")
