"""The tables of draft zones, their history and lead budgets (issue 36), on the
schema's one metadata (``models.Base``): the repository imports this module, so every
process that opens a store, and the models-against-migrations test, sees them (models.py
is at its size limit)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Float, Index, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from vigia.service.db.models import Base


class DraftZoneRow(Base):
    """Zones uploaded but not live (issue 36): tried on past traffic, then published or
    dropped; ``features`` is the uploaded FeatureCollection as validated."""

    __tablename__ = "draft_zones"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(Text)
    features: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(Text)  # draft, published, dropped
    created_by: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    #: the report of the latest backtest of these features (null once edited)
    backtest: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class DraftZoneEvent(Base):
    """A draft's history, append-only: created, edited, tried, published, dropped."""

    __tablename__ = "draft_zone_events"
    __table_args__ = (Index("ix_draft_zone_events_draft", "draft_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    draft_id: Mapped[int] = mapped_column(Integer)
    at: Mapped[float] = mapped_column(Float)
    by: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(Text)
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    detail: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class ZoneBudgetRow(Base):
    """How many leads a day a zone may raise before its publication needs a reason."""

    __tablename__ = "zone_budgets"

    zone_id: Mapped[str] = mapped_column(Text, primary_key=True)
    leads_per_day: Mapped[int] = mapped_column(Integer)
    set_by: Mapped[str] = mapped_column(Text)
    set_at: Mapped[float] = mapped_column(Float)
