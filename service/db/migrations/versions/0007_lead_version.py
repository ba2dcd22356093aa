"""A lead's version (optimistic concurrency, the HTTP ETag) and the authority of a
silence and of a ballast audit (issue 21: one authority sees and changes only its own).

``leads.version`` counts the changes to a lead's row; an edit's UPDATE compares it, so
two concurrent edits can never both be acknowledged with one of them lost. A silence
made by a key limited to one authority hides only that authority's leads; an audit is
read back only by its authority. Existing silences and audits stay unlimited (None),
as every key that could make them was.

Plain ``ADD COLUMN`` on both stores: a batch (table copy) on SQLite would drop the
triggers guarding closed leads' evidence (0004).

Revision ID: 0007_lead_version
Revises: 0006_authorised_vessels
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_lead_version"
down_revision = "0006_authorised_vessels"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``leads.version`` (1 for existing leads), ``silences.authority`` and
    ``ballast_audits.authority``."""
    op.add_column(
        "leads", sa.Column("version", sa.Integer(), nullable=False, server_default=sa.text("1"))
    )
    op.add_column("silences", sa.Column("authority", sa.Text(), nullable=True))
    op.add_column("ballast_audits", sa.Column("authority", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop the three columns."""
    op.drop_column("ballast_audits", "authority")
    op.drop_column("silences", "authority")
    op.drop_column("leads", "version")
