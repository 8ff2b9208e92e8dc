"""assignment.website_entries: single-use tickets into the website tab

Revision ID: c4a81f2e9d57
Revises: b7e3d91c4a20
Create Date: 2026-12-04 08:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "c4a81f2e9d57"
down_revision = "b7e3d91c4a20"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("assignment", schema=None) as batch_op:
        batch_op.add_column(sa.Column("website_entries", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("assignment", schema=None) as batch_op:
        batch_op.alter_column("website_entries", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("assignment", schema=None) as batch_op:
        batch_op.drop_column("website_entries")
