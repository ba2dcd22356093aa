"""Live delivery: the lead event log (outbox), webhooks, their deliveries and attempts,
and a digest on leads so a replayed upsert raises no event.

Revision ID: 0005_live_delivery
Revises: 0004_procedure
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_live_delivery"
down_revision = "0004_procedure"
branch_labels = None
depends_on = None

_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create the event log and the webhook tables."""
    op.add_column("leads", sa.Column("digest", sa.Text()))
    op.create_table(
        "lead_events",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("lead_id", sa.Text(), nullable=False),
        sa.Column("rule", sa.Text(), nullable=False),
        sa.Column("zone_id", sa.Text()),
        sa.Column("authority", sa.Text()),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_lead_events_lead_id", "lead_events", ["lead_id"])
    op.create_table(
        "webhooks",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("filters", sa.JSON(), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("allow_private", sa.Boolean(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.Text()),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.Float(), nullable=False),
        sa.Column("cursor", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("webhook_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.BigInteger(), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("delivered_at", sa.Float()),
    )
    op.create_index(
        "ux_webhook_deliveries_event",
        "webhook_deliveries",
        ["webhook_id", "event_id"],
        unique=True,
    )
    op.create_index("ix_webhook_deliveries_status", "webhook_deliveries", ["webhook_id", "status"])
    op.create_table(
        "webhook_attempts",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("webhook_id", sa.Integer(), nullable=False),
        sa.Column("delivery_id", sa.BigInteger(), nullable=False),
        sa.Column("event_id", sa.BigInteger(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("status_code", sa.Integer()),
        sa.Column("error", sa.Text()),
        sa.Column("ok", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_webhook_attempts_webhook", "webhook_attempts", ["webhook_id", "id"])


def downgrade() -> None:
    """Drop them again."""
    for table in ("webhook_attempts", "webhook_deliveries", "webhooks", "lead_events"):
        op.drop_table(table)
    op.drop_column("leads", "digest")
