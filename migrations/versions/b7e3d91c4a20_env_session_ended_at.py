"""env_session.ended_at: an ended attempt's env session refuses writes

Revision ID: b7e3d91c4a20
Revises: b7d41c2e9f60
Create Date: 2026-12-04 08:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "b7e3d91c4a20"
down_revision = "b7d41c2e9f60"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("env_session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("env_session", schema=None) as batch_op:
        batch_op.drop_column("ended_at")
