"""The tables of the durable event log (the outbox) and of the webhooks delivering from
it: what a lead's change leaves for SSE replays and for webhook fan-out, attempts and
their audit.

On the schema's one metadata (``models.Base``) like ``draft_models``: ``events`` and
``live_store`` import these tables, and the repository imports both, so every process
that opens a store, and the models-against-migrations test, sees them. Kept apart from
``models`` because delivery is its own concern (migration 0005), not the store's records.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Float, Index, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from vigia.service.db.models import Base

# SQLite gives only INTEGER PRIMARY KEY an automatic rowid; PostgreSQL ids are BIGINT
_BIG_ID = BigInteger().with_variant(Integer(), "sqlite")


class LeadEventRow(Base):
    """The durable event log (the outbox): every lead opened, updated or moved in the
    workflow, written in the lead's own transaction. SSE replays from it and webhooks
    deliver from it; ids only grow (AUTOINCREMENT on SQLite, and writers serialise on an
    advisory lock on PostgreSQL so ids commit in order)."""

    __tablename__ = "lead_events"
    __table_args__ = (
        Index("ix_lead_events_lead_id", "lead_id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(_BIG_ID, primary_key=True, autoincrement=True)
    created_at: Mapped[float] = mapped_column(Float)
    type: Mapped[str] = mapped_column(Text)
    lead_id: Mapped[str] = mapped_column(Text)
    rule: Mapped[str] = mapped_column(Text)
    zone_id: Mapped[str | None] = mapped_column(Text)
    authority: Mapped[str | None] = mapped_column(Text)
    priority: Mapped[int] = mapped_column(Integer)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)


class WebhookRow(Base):
    """A registered webhook endpoint; ``cursor`` is the last event fanned out to it."""

    __tablename__ = "webhooks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    url: Mapped[str] = mapped_column(Text)
    events: Mapped[list[str]] = mapped_column(JSON)
    filters: Mapped[dict[str, Any]] = mapped_column(JSON)
    secret: Mapped[str] = mapped_column(Text)
    allow_private: Mapped[bool] = mapped_column(Boolean, default=False)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    disabled_reason: Mapped[str | None] = mapped_column(Text)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[float] = mapped_column(Float, default=0.0)
    cursor: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[float] = mapped_column(Float)


class WebhookDeliveryRow(Base):
    """One event owed to one webhook; (webhook, event) is unique so a fan-out retried
    after a crash owes it once."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ux_webhook_deliveries_event", "webhook_id", "event_id", unique=True),
        Index("ix_webhook_deliveries_status", "webhook_id", "status"),
    )

    id: Mapped[int] = mapped_column(_BIG_ID, primary_key=True, autoincrement=True)
    webhook_id: Mapped[int] = mapped_column(Integer)
    event_id: Mapped[int] = mapped_column(BigInteger)
    priority: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(Text)  # pending, delivered, skipped
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float)
    delivered_at: Mapped[float | None] = mapped_column(Float)


class WebhookAttemptRow(Base):
    """One HTTP attempt at a delivery, kept for ``/webhooks/{id}/deliveries``."""

    __tablename__ = "webhook_attempts"
    __table_args__ = (Index("ix_webhook_attempts_webhook", "webhook_id", "id"),)

    id: Mapped[int] = mapped_column(_BIG_ID, primary_key=True, autoincrement=True)
    webhook_id: Mapped[int] = mapped_column(Integer)
    delivery_id: Mapped[int] = mapped_column(BigInteger)
    event_id: Mapped[int] = mapped_column(BigInteger)
    at: Mapped[float] = mapped_column(Float)
    duration_ms: Mapped[float] = mapped_column(Float)
    status_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    ok: Mapped[bool] = mapped_column(Boolean)
