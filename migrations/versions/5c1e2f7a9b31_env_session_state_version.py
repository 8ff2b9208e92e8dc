"""env_session.state_version: lets a process reuse a session's typed state between API calls

Revision ID: 5c1e2f7a9b31
Revises: 87d80bb25ed2
Create Date: 2026-12-03 09:50:00
"""

import sqlalchemy as sa
from alembic import op

revision = "5c1e2f7a9b31"
down_revision = "87d80bb25ed2"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("env_session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("state_version", sa.Integer(), nullable=False, server_default="0"))
    # The default only fills existing rows; the model sets the value on every insert.
    with op.batch_alter_table("env_session", schema=None) as batch_op:
        batch_op.alter_column("state_version", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("env_session", schema=None) as batch_op:
        batch_op.drop_column("state_version")
