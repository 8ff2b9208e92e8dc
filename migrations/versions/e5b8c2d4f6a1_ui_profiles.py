"""UI profiles: env_session.ui_profile and assignment.ui_profile

Revision ID: e5b8c2d4f6a1
Revises: d3f5a7c9e1b2
Create Date: 2026-12-06 01:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "e5b8c2d4f6a1"
down_revision = "d3f5a7c9e1b2"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("env_session", "assignment"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(
                sa.Column("ui_profile", sa.String(length=40), nullable=False, server_default="default")
            )


def downgrade() -> None:
    for table in ("env_session", "assignment"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("ui_profile")
