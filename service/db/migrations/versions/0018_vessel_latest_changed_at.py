"""When each vessel's latest position last changed (issue 39: the map's deltas).

The dashboard redraws the vessel layer every 5 s. ``GET /map/vessels?since=`` answers
only the vessels whose latest row changed since the page's last answer; the fix's own
time cannot say that (a fix heard now may be older than another vessel's newest: two
receivers, satellite AIS hours late), so the writer stamps each row with its own clock
when it changes. Rows written before this revision have none and come with the whole
layer, which the page asks for every few minutes.

Revision ID: 0018_vessel_latest_changed_at
Revises: 0017_lead_assignee_index
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0018_vessel_latest_changed_at", "0017_lead_assignee_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("vessel_latest", sa.Column("changed_at", sa.Float(), nullable=True))


def downgrade() -> None:
    op.drop_column("vessel_latest", "changed_at")
