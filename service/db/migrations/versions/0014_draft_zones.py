"""Draft zones and lead budgets (issue 36), revision 0014_draft_zones after
0013_lead_list_indexes: zones uploaded but not live, their append-only history, and how
many leads a day a zone may raise before publishing needs a stated reason.

Revision ID: 0014_draft_zones
Revises: 0013_lead_list_indexes
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0014_draft_zones", "0013_lead_list_indexes"
branch_labels = None
depends_on = None


def _id() -> sa.Column[int]:
    return sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True)


def upgrade() -> None:
    """Create the three tables."""
    op.create_table(
        "draft_zones",
        _id(),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("features", sa.JSON(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.Column("backtest", sa.JSON(), nullable=True),
    )
    op.create_table(
        "draft_zone_events",
        _id(),
        sa.Column("draft_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("by", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=True),
    )
    op.create_index("ix_draft_zone_events_draft", "draft_zone_events", ["draft_id"])
    op.create_table(
        "zone_budgets",
        sa.Column("zone_id", sa.Text(), primary_key=True),
        sa.Column("leads_per_day", sa.Integer(), nullable=False),
        sa.Column("set_by", sa.Text(), nullable=False),
        sa.Column("set_at", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_table("zone_budgets")
    op.drop_index("ix_draft_zone_events_draft", table_name="draft_zone_events")
    op.drop_table("draft_zone_events")
    op.drop_table("draft_zones")
