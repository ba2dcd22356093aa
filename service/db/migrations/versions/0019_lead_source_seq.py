"""The broker stream sequence each lead version was committed at (broker mode's fence).

A worker paused while it wrote a committed checkpoint's leads (a long GC, a frozen VM)
can wake after the partition's next holder has written newer versions of the same open
leads; it would then put the older ones back. Every lead version a broker worker or the
pairing stage writes carries the stream sequence its state was committed at, one space
for every partition (JetStream numbers the whole stream), and the store keeps a stored
version over one of a lower sequence (service/db/zones_leads.py). Single-process writes
carry none and are not compared.

Revision ID: 0019_lead_source_seq
Revises: 0018_vessel_latest_changed_at
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0019_lead_source_seq", "0018_vessel_latest_changed_at"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("leads", sa.Column("source_seq", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("leads", "source_seq")
