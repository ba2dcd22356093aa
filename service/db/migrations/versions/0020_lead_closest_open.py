"""A lead page's box counted from an index alone (issue 39): ``ix_leads_closest_open``.

A box's count (``GET /leads?bbox=``, the OGC leads' ``bbox``) on SQLite read
``ix_leads_closest`` (closest_lon, closest_lat) for the longitude band and fetched each
row to test ``silence_id``: at 1,000,000 leads, with a quarter of them in the box, its
capped count of 10,001 cost 16 ms warm and 2.5 s cold, and the OGC bbox page was the one
list more than twice as slow as at 10,000 leads. The same two columns over the
unsilenced leads only (partial, like migrations 0013 and 0017) answer it from the index:
1.5 ms warm on the same store. PostgreSQL reads its GiST on ``closest_geom`` for a box;
the index is made there too, so both stores keep one schema.

Revision ID: 0020_lead_closest_open
Revises: 0019_lead_source_seq
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0020_lead_closest_open", "0019_lead_source_seq"
branch_labels = None
depends_on = None
NAME = "ix_leads_closest_open"


def upgrade() -> None:
    """Create the partial index (both stores)."""
    where = sa.text("silence_id IS NULL")
    op.create_index(
        NAME, "leads", ["closest_lon", "closest_lat"], sqlite_where=where, postgresql_where=where
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_index(NAME, table_name="leads")
