"""The schema as typed SQLAlchemy models; Alembic migrations create exactly these tables.

Times are Unix seconds (UTC) as double precision on both stores, so the repository speaks
the same floats the domain records carry. Geometry is a PostGIS ``geometry(..., 4326)`` on
PostgreSQL and a WKB blob plus bounding-box columns on SQLite.
"""

from __future__ import annotations

from typing import Any

from geoalchemy2 import Geometry
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Computed,
    Float,
    Index,
    Integer,
    LargeBinary,
    Text,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeEngine

from vigia.service.db.json_paths import AssignedOfficer


def geometry(kind: str) -> TypeEngine[Any]:
    """A PostGIS geometry column that is a plain WKB blob on SQLite."""
    return Geometry(kind, srid=4326, spatial_index=False).with_variant(LargeBinary(), "sqlite")


def _point() -> Computed:
    return Computed("ST_SetSRID(ST_MakePoint(lon, lat), 4326)", persisted=True)


class Base(DeclarativeBase):
    """Declarative base of every Vigia table."""


class Vessel(Base):
    """Latest static data per MMSI."""

    __tablename__ = "vessels"

    mmsi: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    name: Mapped[str | None] = mapped_column(Text)
    callsign: Mapped[str | None] = mapped_column(Text)
    imo: Mapped[int | None] = mapped_column(BigInteger)
    ship_type: Mapped[int | None] = mapped_column(Integer)
    length_m: Mapped[float | None] = mapped_column(Float)
    beam_m: Mapped[float | None] = mapped_column(Float)
    destination: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[float | None] = mapped_column(Float)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class _Fix:
    """The columns of one position fix, shared by the history and the latest table."""

    msg_type: Mapped[int] = mapped_column(Integer)
    lon: Mapped[float] = mapped_column(Float)
    lat: Mapped[float] = mapped_column(Float)
    sog: Mapped[float | None] = mapped_column(Float)
    cog: Mapped[float | None] = mapped_column(Float)
    heading: Mapped[int | None] = mapped_column(Integer)
    nav_status: Mapped[int | None] = mapped_column(Integer)
    accuracy: Mapped[bool | None] = mapped_column(Boolean)
    source: Mapped[str] = mapped_column(Text, default="")
    # PostGIS only: generated from lon/lat (SQLite filters on lon/lat directly)
    geom: Mapped[Any] = mapped_column(geometry("POINT"), _point(), nullable=True)


class PositionRow(_Fix, Base):
    """Every stored position; RANGE-partitioned on ``t`` by UTC day on PostgreSQL.

    The primary key (mmsi, t) is the B-tree the track query uses and makes a retried
    batch idempotent: the same report heard twice is stored once.
    """

    __tablename__ = "positions"
    __table_args__ = ({"postgresql_partition_by": "RANGE (t)"},)

    mmsi: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    t: Mapped[float] = mapped_column(Float, primary_key=True)


class VesselLatest(_Fix, Base):
    """Each vessel's newest position, upserted per batch, for fast bbox queries."""

    __tablename__ = "vessel_latest"
    # the migration also gives SQLite a (lon, lat) B-tree and PostGIS a GiST on geom

    mmsi: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    t: Mapped[float] = mapped_column(Float)
    # the writer's clock when this row last changed: what a map's delta asks by (0018)
    changed_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class ZoneVersion(Base):
    """One version of one zone; an edit adds a row, a delete retires every row."""

    __tablename__ = "zone_versions"
    __table_args__ = (Index("ix_zone_versions_current", "current", "zone_id"),)

    zone_id: Mapped[str] = mapped_column(Text, primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(Text)
    name: Mapped[str | None] = mapped_column(Text)
    properties: Mapped[dict[str, Any]] = mapped_column(JSON)
    geom: Mapped[Any] = mapped_column(geometry("GEOMETRY"))
    min_lon: Mapped[float] = mapped_column(Float)
    min_lat: Mapped[float] = mapped_column(Float)
    max_lon: Mapped[float] = mapped_column(Float)
    max_lat: Mapped[float] = mapped_column(Float)
    valid_from: Mapped[float | None] = mapped_column(Float)
    valid_to: Mapped[float | None] = mapped_column(Float)
    retired: Mapped[bool] = mapped_column(Boolean, default=False)
    current: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[float] = mapped_column(Float)


class LeadRow(Base):
    """One lead with its evidence; the row of a closed lead is never rewritten."""

    __tablename__ = "leads"
    __table_args__ = (
        Index("ix_leads_started_at", "started_at"),
        Index("ix_leads_mmsi", "mmsi"),
        Index("ix_leads_rule", "rule"),
        Index("ix_leads_zone_id", "zone_id"),
        Index("ix_leads_status", "status"),
        Index("ix_leads_closest", "closest_lon", "closest_lat"),
        # a box's count from the index alone, unsilenced leads only (migration 0020)
        Index(
            "ix_leads_closest_open",
            "closest_lon",
            "closest_lat",
            sqlite_where=text("silence_id IS NULL"),
            postgresql_where=text("silence_id IS NULL"),
        ),
        Index("ix_leads_authority", "authority"),
        Index("ix_leads_due_on", "due_on"),
        # the default list: unsilenced leads, newest first (migration 0009)
        Index("ix_leads_silence_started", "silence_id", "started_at"),
        Index("ix_leads_mmsi_infraction_on", "mmsi", "infraction_on"),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    mmsi: Mapped[int] = mapped_column(BigInteger)
    rule: Mapped[str] = mapped_column(Text)
    citation: Mapped[str] = mapped_column(Text)
    zone_id: Mapped[str | None] = mapped_column(Text)
    zone_kind: Mapped[str | None] = mapped_column(Text)
    zone_version: Mapped[int | None] = mapped_column(Integer)
    started_at: Mapped[float] = mapped_column(Float)
    ended_at: Mapped[float | None] = mapped_column(Float)
    min_distance_m: Mapped[float] = mapped_column(Float)
    max_sog_kn: Mapped[float | None] = mapped_column(Float)
    closest_lon: Mapped[float] = mapped_column(Float)
    closest_lat: Mapped[float] = mapped_column(Float)
    closest_t: Mapped[float] = mapped_column(Float)
    # PostGIS only: generated from closest_lon/closest_lat
    closest_geom: Mapped[Any] = mapped_column(
        geometry("POINT"),
        Computed("ST_SetSRID(ST_MakePoint(closest_lon, closest_lat), 4326)", persisted=True),
        nullable=True,
    )
    evidence: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    raw_sentences: Mapped[list[str]] = mapped_column(JSON)
    vessel: Mapped[dict[str, Any]] = mapped_column(JSON)
    authority: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(Text)
    details: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[float] = mapped_column(Float)
    # the administrative procedure (alerts/procedure/workflow.py); the pipeline never writes these
    procedure: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    due_on: Mapped[str | None] = mapped_column(Text)  # soonest pending deadline, ISO date
    infraction_on: Mapped[str | None] = mapped_column(Text)  # the Auto's date, ISO date
    silence_id: Mapped[int | None] = mapped_column(Integer)  # the silence that covered it
    # a hash of the evidence-bearing columns: an upsert that changes nothing (a replay)
    # writes no lead.updated event
    digest: Mapped[str | None] = mapped_column(Text)
    # how many times the row changed (1 when inserted): an edit's UPDATE compares it, so
    # concurrent edits are never silently lost; the API's ETag
    version: Mapped[int] = mapped_column(Integer, server_default=text("1"), default=1)
    # broker mode: the stream sequence this version was committed at; an older one is
    # never written over it (migration 0019)
    source_seq: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


#: the keyset indexes of the lead lists (migration 0013): each offered order, over the
#: unsilenced leads every list shows by default, alone and under the common filters
_UNSILENCED = LeadRow.silence_id.is_(None)
_DUE = _UNSILENCED & LeadRow.due_on.is_not(None)
_NEWEST = (LeadRow.started_at.desc(), LeadRow.id)
LEAD_LIST_INDEXES = (
    ("ix_leads_newest", (), _UNSILENCED),
    ("ix_leads_due", (LeadRow.due_on,), _DUE),
    ("ix_leads_rule_newest", (LeadRow.rule,), _UNSILENCED),
    ("ix_leads_status_newest", (LeadRow.status,), _UNSILENCED),
    ("ix_leads_authority_newest", (LeadRow.authority,), _UNSILENCED),
    ("ix_leads_authority_due", (LeadRow.authority, LeadRow.due_on), _DUE),
)
for _name, _lead, _where in LEAD_LIST_INDEXES:
    Index(_name, *_lead, *_NEWEST, sqlite_where=_where, postgresql_where=_where)


def assigned_officer() -> AssignedOfficer:
    """``procedure.assignment.officer`` of a lead, as the filter and the index name it."""
    return AssignedOfficer(LeadRow.procedure)


#: an officer's leads, newest first (migration 0017), over the unsilenced leads that have
#: an officer: the many leads nobody was assigned take no entry
ASSIGNEE_INDEX = "ix_leads_assignee_newest"
_ASSIGNED = _UNSILENCED & assigned_officer().is_not(None)
Index(
    ASSIGNEE_INDEX, assigned_officer(), *_NEWEST, sqlite_where=_ASSIGNED, postgresql_where=_ASSIGNED
)


class LeadHistoryRow(Base):
    """One change of a lead's procedure; database triggers refuse updates and deletes."""

    __tablename__ = "lead_history"
    __table_args__ = (Index("ix_lead_history_lead", "lead_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    lead_id: Mapped[str] = mapped_column(Text)
    at: Mapped[float] = mapped_column(Float)
    by_name: Mapped[str] = mapped_column(Text)
    by_role: Mapped[str] = mapped_column(Text)
    from_status: Mapped[str] = mapped_column(Text)
    to_status: Mapped[str] = mapped_column(Text)
    reason: Mapped[str | None] = mapped_column(Text)
    before: Mapped[dict[str, Any]] = mapped_column(JSON)
    after: Mapped[dict[str, Any]] = mapped_column(JSON)


class SilenceRow(Base):
    """An inspector's silence: a vessel, a zone or a vessel in a zone, until a time."""

    __tablename__ = "silences"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    mmsi: Mapped[int | None] = mapped_column(BigInteger)
    zone_id: Mapped[str | None] = mapped_column(Text)
    starts_at: Mapped[float | None] = mapped_column(Float)
    until: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)
    # made by a key limited to one authority: hides only that authority's leads
    authority: Mapped[str | None] = mapped_column(Text)


class WatchRow(Base):
    """A detained or sealed vessel (NORMAM-07 0310): moving beyond radius_m raises a lead."""

    __tablename__ = "watchlist"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    mmsi: Mapped[int] = mapped_column(BigInteger, index=True)
    lon: Mapped[float] = mapped_column(Float)
    lat: Mapped[float] = mapped_column(Float)
    radius_m: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(Text)
    authority: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class IngestCounter(Base):
    """A cumulative ingest counter."""

    __tablename__ = "ingest_counters"

    name: Mapped[str] = mapped_column(Text, primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)


class StoreNote(Base):
    """A fact the store keeps about what it was last reconciled with, by name (today the
    fingerprint of the bundled register of offices the leads were routed by)."""

    __tablename__ = "store_notes"

    name: Mapped[str] = mapped_column(Text, primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class ArchivedDayRow(Base):
    """A UTC day moved to the archive, and how many positions its files hold: what a
    start or ``vigia archive --verify`` checks the folder against (a day lost from the
    folder is otherwise silent, as the store no longer has it either)."""

    __tablename__ = "archived_days"

    day: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    positions: Mapped[int] = mapped_column(BigInteger)
    recorded_at: Mapped[float] = mapped_column(Float)


class ApiKey(Base):
    """An API key: only the SHA-256 of the key is stored."""

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(Text)
    role: Mapped[str] = mapped_column(Text)
    key_hash: Mapped[str] = mapped_column(Text, unique=True)
    created_at: Mapped[float] = mapped_column(Float)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    # a key limited to one authority's leads (a Capitania's dashboard); None sees all
    authority: Mapped[str | None] = mapped_column(Text)


class BallastAudit(Base):
    """A ballast-water audit document, kept at least five years (NORMAM-20)."""

    __tablename__ = "ballast_audits"

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    created_at: Mapped[float] = mapped_column(Float, index=True)
    document: Mapped[dict[str, Any]] = mapped_column(JSON)
    authority: Mapped[str | None] = mapped_column(Text)  # read back only by its authority


class RegisterEntryColumns:
    """What the entries of every register an admin keeps have: an id, an MMSI, a validity
    window (Unix seconds; either end open), a note, when it was stored."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    mmsi: Mapped[int] = mapped_column(BigInteger)
    valid_from: Mapped[float | None] = mapped_column(Float)
    valid_to: Mapped[float | None] = mapped_column(Float)
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)


class AuthorisedVessel(RegisterEntryColumns, Base):
    """One entry of the authorised-vessel register (NORMAM-07 0212 f)): an MMSI allowed
    at one zone or at every zone of one operator, for a validity window."""

    __tablename__ = "authorised_vessels"
    __table_args__ = (Index("ix_authorised_vessels_mmsi", "mmsi"),)

    zone_id: Mapped[str | None] = mapped_column(Text)
    operator: Mapped[str | None] = mapped_column(Text)


class StateVesselRow(RegisterEntryColumns, Base):
    """One entry of the register of state vessels (issue 34): an MMSI that is the Navy's
    or another state service's, for a validity window, with the source that says so."""

    __tablename__ = "state_vessels"
    __table_args__ = (Index("ix_state_vessels_mmsi", "mmsi"),)

    name: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(Text)
