"""An index for the default lead list: unsilenced leads, newest first.

``GET /leads`` (and the dashboard's list) counts and pages the leads no silence covers.
Without this index both stores scanned the whole table (each row carries its evidence):
6.5 ms for the count alone over 20,000 leads on SQLite, against 0.6 ms with it, and the
page no longer sorts the table (``benchmarks/sse_load.py``: GET /leads 9 -> 2.5 ms).

Revision ID: 0009_leads_unsilenced_index
Revises: 0008_daily_partitions
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0009_leads_unsilenced_index"
down_revision = "0008_daily_partitions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Index ``leads (silence_id, started_at)``."""
    op.create_index("ix_leads_silence_started", "leads", ["silence_id", "started_at"])


def downgrade() -> None:
    """Drop it."""
    op.drop_index("ix_leads_silence_started", table_name="leads")
