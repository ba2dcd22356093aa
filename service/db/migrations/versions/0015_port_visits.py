"""Port visits (issue 33), revision 0015_port_visits after 0014_draft_zones: one row per
visit of a vessel to a port-facility or anchorage zone, after Global Fishing Watch's
rule (entry within 3 km, exit beyond 4 km, stops), keyed by the visit's stable id.

Revision ID: 0015_port_visits
Revises: 0014_draft_zones
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0015_port_visits", "0014_draft_zones"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table and its per-vessel index."""
    op.create_table(
        "port_visits",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("mmsi", sa.Integer(), nullable=False),
        sa.Column("zone_id", sa.Text(), nullable=False),
        sa.Column("zone_name", sa.Text(), nullable=True),
        sa.Column("zone_kind", sa.Text(), nullable=False),
        sa.Column("arrival_t", sa.Float(), nullable=False),
        sa.Column("arrival_lon", sa.Float(), nullable=False),
        sa.Column("arrival_lat", sa.Float(), nullable=False),
        sa.Column("departure_t", sa.Float(), nullable=False),
        sa.Column("departure_lon", sa.Float(), nullable=False),
        sa.Column("departure_lat", sa.Float(), nullable=False),
        sa.Column("stops", sa.JSON(), nullable=False),
    )
    op.create_index("ix_port_visits_mmsi_arrival", "port_visits", ["mmsi", "arrival_t"])


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_port_visits_mmsi_arrival", table_name="port_visits")
    op.drop_table("port_visits")
