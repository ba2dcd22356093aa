"""A table of named facts the store keeps about itself: the register's fingerprint.

Leads routed by the bundled register of offices (approximate jurisdiction) keep the
office they were given. When a new version of Vigia ships a different register (stop 29
added 26 offices), the leads not yet notified must follow it, as they follow a change of
loaded jurisdiction zones. The store notes which register its leads were routed by, and
the runtime re-routes them once when the bundled one differs.

Revision ID: 0010_store_notes
Revises: 0009_leads_unsilenced_index
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_store_notes"
down_revision = "0009_leads_unsilenced_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``store_notes (name, value)``."""
    op.create_table(
        "store_notes",
        sa.Column("name", sa.Text(), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("store_notes")
