"""Recorder streams (one per page instance of a recording), frame_xpath, and mask selectors

Existing events become stream 0 of their recording, and each recording's ack becomes its stream
0's ack. raw_event's unique key becomes (recording_id, stream, seq).

Revision ID: b7d41c2e9f60
Revises: b7d4e2a91c05
Create Date: 2026-12-04 08:20:00
"""

import sqlalchemy as sa
from alembic import op

revision = "b7d41c2e9f60"
down_revision = "b7d4e2a91c05"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("recording", schema=None) as batch_op:
        batch_op.add_column(sa.Column("mask_selectors", sa.String(), nullable=True))
    op.create_table(
        "recording_stream",
        sa.Column("recording_id", sa.Integer(), nullable=False),
        sa.Column("stream", sa.Integer(), nullable=False),
        sa.Column("tab", sa.String(length=64), nullable=True),
        sa.Column("acked_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["recording_id"], ["recording.id"], name=op.f("fk_recording_stream_recording_id_recording")
        ),
        sa.PrimaryKeyConstraint("recording_id", "stream", name=op.f("pk_recording_stream")),
        sa.UniqueConstraint("recording_id", "tab", name="uq_recording_stream_tab"),
    )
    op.execute(
        "INSERT INTO recording_stream (recording_id, stream, tab, acked_seq) "
        "SELECT id, 0, NULL, acked_seq FROM recording WHERE acked_seq >= 0"
    )
    with op.batch_alter_table("raw_event", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stream", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("frame_xpath", sa.String(), nullable=True))
        batch_op.drop_constraint("uq_raw_event_recording_seq", type_="unique")
        batch_op.create_unique_constraint(
            "uq_raw_event_recording_stream_seq", ["recording_id", "stream", "seq"]
        )


def downgrade() -> None:
    # Events of streams other than 0 cannot keep their seqs under the old (recording_id, seq) key.
    op.execute("DELETE FROM raw_event WHERE stream <> 0")
    with op.batch_alter_table("raw_event", schema=None) as batch_op:
        batch_op.drop_constraint("uq_raw_event_recording_stream_seq", type_="unique")
        batch_op.create_unique_constraint("uq_raw_event_recording_seq", ["recording_id", "seq"])
        batch_op.drop_column("frame_xpath")
        batch_op.drop_column("stream")
    op.execute(
        "UPDATE recording SET acked_seq = coalesce((SELECT s.acked_seq FROM recording_stream s "
        "WHERE s.recording_id = recording.id AND s.stream = 0), -1)"
    )
    op.drop_table("recording_stream")
    # Not a batch (table copy) on SQLite: other tables' foreign keys point at recording.
    op.execute("ALTER TABLE recording DROP COLUMN mask_selectors")
