"""SQLite: index positions by time, for "who was in this box between these times".

PostgreSQL needs no such index: its positions are partitioned by month and carry a GiST
index on the point, so a time-and-bbox query reads one partition's index. The embedded
SQLite store has only the (mmsi, t) key and would scan every position.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the time index on SQLite."""
    if op.get_bind().dialect.name == "sqlite":
        op.create_index("ix_positions_t", "positions", ["t"])


def downgrade() -> None:
    """Drop it again."""
    if op.get_bind().dialect.name == "sqlite":
        op.drop_index("ix_positions_t", table_name="positions")
