"""The authorised-vessel register (NORMAM-07 0212 f): supply vessels serving a platform).

Revision ID: 0006_authorised_vessels
Revises: 0005_live_delivery
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_authorised_vessels"
down_revision = "0005_live_delivery"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the register table and its MMSI index."""
    op.create_table(
        "authorised_vessels",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("mmsi", sa.BigInteger(), nullable=False),
        sa.Column("zone_id", sa.Text(), nullable=True),
        sa.Column("operator", sa.Text(), nullable=True),
        sa.Column("valid_from", sa.Float(), nullable=True),
        sa.Column("valid_to", sa.Float(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_authorised_vessels_mmsi", "authorised_vessels", ["mmsi"])


def downgrade() -> None:
    """Drop the register."""
    op.drop_index("ix_authorised_vessels_mmsi", table_name="authorised_vessels")
    op.drop_table("authorised_vessels")
