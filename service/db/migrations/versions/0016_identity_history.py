"""Identity history (issue 34), revision 0016_identity_history after 0015_port_visits:
one row per change of a vessel's static data (name, call sign, IMO, ship type, length,
beam, an IMO failing its check digit), keyed by (MMSI, time, field) so a change stored
twice is stored once, and per vessel and UTC day how many changes were counted (the
table keeps at most 50 a day: service/db/identity_history.py).

Revision ID: 0016_identity_history
Revises: 0015_port_visits
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0016_identity_history", "0015_port_visits"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create both tables and the per-vessel-day index the cap reads."""
    op.create_table(
        "identity_history",
        sa.Column("mmsi", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("t", sa.Float(), primary_key=True),
        sa.Column("field", sa.Text(), primary_key=True),
        sa.Column("day", sa.Integer(), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("msg_type", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
    )
    op.create_index("ix_identity_history_mmsi_day", "identity_history", ["mmsi", "day"])
    op.create_table(
        "identity_history_days",
        sa.Column("mmsi", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("day", sa.Integer(), primary_key=True),
        sa.Column("changes", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    """Drop them (the history goes; the latest static data stays in ``vessels``)."""
    op.drop_table("identity_history_days")
    op.drop_index("ix_identity_history_mmsi_day", table_name="identity_history")
    op.drop_table("identity_history")
