"""The days the archive holds, as the store moved them (issue 38).

A day moved to the archive leaves the store; if its file is then lost (a backup taken
of the store and the archive at different moments, an archive folder that follows the
working directory), nothing said so: tracks skipped the day without a word. The store
now records, for every day it moved, how many positions the archive's files of that day
hold, so a start, ``vigia archive --verify`` and a restore can name a missing day.

Revision ID: 0011_archived_days
Revises: 0010_store_notes
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_archived_days"
down_revision = "0010_store_notes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``archived_days (day, positions, recorded_at)``."""
    op.create_table(
        "archived_days",
        sa.Column("day", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("positions", sa.BigInteger(), nullable=False),
        sa.Column("recorded_at", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("archived_days")
