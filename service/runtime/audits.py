"""Ballast audits as the service runs them: the request body (shared by
``POST /ballast/audits`` and ``vigia ballast audit``), its mapping to the domain
declaration, and the audit that stores its document and leads."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from vigia.alerts.ballast.audit import AuditConfig, AuditResult, audit
from vigia.alerts.ballast.declaration import (
    MAX_VOLUME_M3,
    Declaration,
    DeclaredExchange,
    DeclaredPoint,
)
from vigia.alerts.ballast.port_calls import port_calls
from vigia.alerts.identity.state_register import StateVessels
from vigia.ingest.records import Position, VesselInfo, field_names
from vigia.ingest.units import LAT_MAX, LAT_MIN, LON_MAX, LON_MIN
from vigia.service.db.protocol import Repository, Scope
from vigia.service.errors import RequestInvalidError
from vigia.service.settings import BallastSettings
from vigia.zones.ballast import BallastAssessor

DAY = 86_400.0


#: declared times outside [1970, 2100) are no voyage's and break date arithmetic
EARLIEST_T, LATEST_T = 0.0, 4_102_444_800.0


def _in_range(dt: datetime) -> datetime:
    if not EARLIEST_T <= dt.timestamp() < LATEST_T:
        raise ValueError("times must lie between 1970 and 2100")
    return dt


#: an aware instant between 1970 and 2100 (years 1 and 9999 broke the audit with a 500)
Instant = Annotated[AwareDatetime, AfterValidator(_in_range)]
#: a number sent as a JSON number: ``true`` or ``"12"`` are refused, not coerced
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]


class LatLon(BaseModel):
    """A WGS84 position, given as JSON numbers (booleans and strings are refused)."""

    lat: float = Field(ge=LAT_MIN, le=LAT_MAX, strict=True)
    lon: float = Field(ge=LON_MIN, le=LON_MAX, strict=True)


class TimedPoint(LatLon):
    """A declared time and position."""

    time: Instant


class ExchangeIn(BaseModel):
    """One declared exchange."""

    start: TimedPoint
    end: TimedPoint
    volume_m3: float | None = Field(default=None, gt=0, le=MAX_VOLUME_M3)
    method: str | None = Field(default=None, examples=["sequential", "flow-through"])

    @model_validator(mode="after")
    def _ordered(self) -> ExchangeIn:
        if self.end.time < self.start.time:
            raise ValueError("end time is before start time")
        return self


class TrackPoint(LatLon):
    """An AIS fix of the audited ship."""

    t: Instant
    sog: Number | None = None
    cog: Number | None = None
    nav_status: int | None = Field(default=None, ge=0, le=15, strict=True)


EXAMPLE_AUDIT: dict[str, Any] = {
    "mmsi": 636012345,
    "exchanges": [
        {
            "start": {"time": "2024-05-01T02:00:00Z", "lat": -27.2, "lon": -37.6},
            "end": {"time": "2024-05-01T08:00:00Z", "lat": -26.9, "lon": -38.4},
            "volume_m3": 12000,
            "method": "sequential",
        }
    ],
}


class AuditRequest(BaseModel):
    """A ship's declaration; without ``track``, the stored AIS track is used."""

    model_config = ConfigDict(json_schema_extra={"examples": [EXAMPLE_AUDIT]})
    mmsi: int = Field(ge=1, le=999_999_999)
    exchanges: list[ExchangeIn] = Field(min_length=1, max_length=200)
    track: list[TrackPoint] | None = Field(default=None, max_length=200_000)
    state_ship: bool = False
    ballast_capacity_m3: float | None = Field(default=None, ge=0)
    sealed_tanks: bool = False
    no_ballast_tanks: bool = False
    only_ajb: bool = False
    ait: bool = False
    certificate_number: str | None = None
    certificate_valid_until: Instant | None = None
    certificate_issued_at: Instant | None = None
    installed_platform: bool = False
    drilling_rig: bool = False
    declared_exceptions: list[str] = Field(default_factory=list)


class AuditResponse(BaseModel):
    """The stored audit: verdicts with their figures, and the leads raised."""

    model_config = ConfigDict(extra="allow")
    id: str
    mmsi: int
    basemap: dict[str, str]
    applicability: dict[str, Any]
    exchanges: list[dict[str, Any]]
    leads: list[dict[str, Any]]
    record: dict[str, str]


def _ts(dt: datetime) -> float:
    return dt.timestamp()


# the declaration's fields the request carries as they are (the rest are converted)
_AS_DECLARED = field_names(
    Declaration,
    frozenset(
        {"exchanges", "certificate_valid_until", "certificate_issued_at", "declared_exceptions"}
    ),
)


def declaration_of(req: AuditRequest) -> Declaration:
    """The domain declaration of a request body (the plain fields by name, so a claim
    added to Declaration and to the request needs no line here)."""
    exchanges = tuple(
        DeclaredExchange(
            DeclaredPoint(_ts(e.start.time), e.start.lat, e.start.lon),
            DeclaredPoint(_ts(e.end.time), e.end.lat, e.end.lon),
            e.volume_m3,
            e.method,
        )
        for e in req.exchanges
    )
    until, issued = req.certificate_valid_until, req.certificate_issued_at
    return Declaration(
        exchanges=exchanges,
        certificate_valid_until=None if until is None else _ts(until),
        certificate_issued_at=None if issued is None else _ts(issued),
        declared_exceptions=tuple(req.declared_exceptions),
        **{name: getattr(req, name) for name in _AS_DECLARED},
    )


def track_of(req: AuditRequest) -> list[Position]:
    """The request's own track as positions."""
    return [
        Position(req.mmsi, _ts(p.t), 1, p.lon, p.lat, p.sog, p.cog, None, p.nav_status)
        for p in req.track or []
    ]


def audit_request(
    req: AuditRequest,
    track: Sequence[Position],
    vessel: VesselInfo | None,
    assessor: BallastAssessor,
    settings: BallastSettings,
    now: float,
    state: StateVessels | None = None,
) -> AuditResult:
    """Audit a request body against ``track`` with the configured assumptions (and the
    register of state vessels, which alone backs a type 35's exemption)."""
    cfg = AuditConfig(
        pump_rate_m3_h=settings.pump_rate_m3_h,
        match_distance_nm=settings.match_distance_nm,
        match_time_s=settings.match_time_s,
    )
    return audit(declaration_of(req), track, vessel, assessor, cfg, now=now, state=state)


def run_audit(
    req: AuditRequest,
    repo: Repository,
    assessor: BallastAssessor,
    settings: BallastSettings,
    now: float,
    scope: Scope,
) -> dict[str, Any]:
    """Audit a declaration, store the audit (as ``scope``'s) and its leads; returns the
    stored document."""
    decl = declaration_of(req)
    if req.track is not None:
        track = track_of(req)
    else:
        lo = min(e.start.t for e in decl.exchanges) - settings.voyage_days * DAY
        hi = max(e.end.t for e in decl.exchanges) + settings.voyage_days * DAY
        track = repo.track(req.mmsi, lo, hi, limit=settings.max_track_points + 1)
        if len(track) > settings.max_track_points:
            raise RequestInvalidError(
                f"more than {settings.max_track_points} stored positions around those "
                "exchanges; send the track with the declaration"
            )
    state = StateVessels(repo.list_state_vessels())
    result = audit_request(req, track, repo.get_vessel(req.mmsi), assessor, settings, now, state)
    result.document["track_source"] = "request" if req.track is not None else "stored AIS"
    # where the ballast came from and where the ship arrived, if the store saw its calls
    first, last = min(e.start.t for e in decl.exchanges), max(e.end.t for e in decl.exchanges)
    span = settings.voyage_days * DAY
    visits = repo.port_visits(req.mmsi, first - span, last + span)
    result.document["port_calls"] = port_calls(visits, first, last)
    if result.leads:
        repo.upsert_leads(result.leads)
    audit_id = repo.save_audit(result.document, scope)
    return {"id": audit_id, **result.document}
