"""attempt.away_s and website_absence: time with no website tab present or visible

Revision ID: f2a6c8e4b7d3
Revises: e5b8c2d4f6a1
Create Date: 2026-12-07 01:00:00
"""

import sqlalchemy as sa
import sqlmodel
import sqlmodel.sql.sqltypes
from alembic import op

revision = "f2a6c8e4b7d3"
down_revision = "e5b8c2d4f6a1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Attempts that ended before this revision have no away_s (null: not measured).
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.add_column(sa.Column("away_s", sa.Float(), nullable=True))
    op.create_table(
        "website_absence",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("gone_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("back_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["assignment_id"], ["assignment.id"], name=op.f("fk_website_absence_assignment_id_assignment")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_website_absence")),
    )
    with op.batch_alter_table("website_absence", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_website_absence_assignment_id"), ["assignment_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("website_absence", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_website_absence_assignment_id"))
    op.drop_table("website_absence")
    with op.batch_alter_table("attempt", schema=None) as batch_op:
        batch_op.drop_column("away_s")
