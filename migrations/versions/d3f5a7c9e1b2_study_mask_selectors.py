"""study.mask_selectors: CSS selectors a study masks in its recordings, besides each site's own

Revision ID: d3f5a7c9e1b2
Revises: c4a81f2e9d57
Create Date: 2026-12-04 16:20:00
"""

import sqlalchemy as sa
from alembic import op

revision = "d3f5a7c9e1b2"
down_revision = "c4a81f2e9d57"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Existing studies mask nothing beyond their sites' own selectors: an empty list.
    with op.batch_alter_table("study", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("mask_selectors", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
        )
    with op.batch_alter_table("study", schema=None) as batch_op:
        batch_op.alter_column("mask_selectors", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("study", schema=None) as batch_op:
        batch_op.drop_column("mask_selectors")
