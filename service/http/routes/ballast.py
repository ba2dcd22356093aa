"""Ballast water (NORMAM-20): the 200/50 nm lines, point assessment, audits, screening."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Annotated, Any, Literal

import numpy as np
from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from vigia.alerts.ballast_audit import (
    MAX_VOLUME_M3,
    AuditConfig,
    Declaration,
    DeclaredExchange,
    DeclaredPoint,
    audit,
)
from vigia.alerts.ballast_screening import screen_arrivals, screen_voyage
from vigia.ingest.records import Position
from vigia.service.db.protocol import Repository
from vigia.service.errors import NotFoundError, RequestInvalidError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.routes.params import GeoJSONResponse, parse_time
from vigia.zones.ballast import BallastAssessor, get_assessor
from vigia.zones.ballast_grid import lines_for

router = APIRouter(tags=["ballast"])
DAY = 86_400.0


class BallastSettings(BaseSettings):
    """Basemaps and audit assumptions (``VIGIA_BALLAST_*``)."""

    model_config = SettingsConfigDict(env_prefix="VIGIA_BALLAST_")
    land: str | None = None  # a land/baseline GeoJSON or shapefile instead of the bundled one
    depth: str | None = None  # a GEBCO-style NetCDF grid instead of ETOPO1 0.1 degree
    pump_rate_m3_h: float = 1000.0
    match_distance_nm: float = 5.0
    match_time_s: float = 1800.0
    voyage_days: float = 10.0  # stored track fetched around the exchanges
    max_points: int = 10_000


def get_ballast(request: Request) -> tuple[BallastAssessor, BallastSettings]:
    """The app's assessor and settings, built on first use and kept on ``app.state``."""
    state = request.app.state
    cached = getattr(state, "ballast", None)
    if cached is None:
        settings = BallastSettings()
        cached = (get_assessor(settings.land, settings.depth), settings)
        state.ballast = cached
    out: tuple[BallastAssessor, BallastSettings] = cached
    return out


Ballast = Annotated[tuple[BallastAssessor, BallastSettings], Depends(get_ballast)]
Repo = Annotated[Repository, Depends(get_repository)]


class LatLon(BaseModel):
    """A WGS84 position."""

    lat: float = Field(ge=-90, le=90)
    lon: float = Field(ge=-180, le=180)


class AssessRequest(BaseModel):
    """Points to assess."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"points": [{"lat": -27.0, "lon": -38.0}]}]}
    )
    points: list[LatLon] = Field(min_length=1)


class PointAssessment(BaseModel):
    """CONTRACT section 6 figures of one point."""

    lat: float
    lon: float
    distance_to_land_nm: float
    depth_m: float | None
    zone: Literal["within_50nm", "between_50_200nm", "beyond_200nm"]
    meets_200: bool
    meets_50: bool
    basemap: dict[str, str]


class AssessResponse(BaseModel):
    """Per-point figures, in request order."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "basemap": {"land": "Natural Earth 10m ...", "depth": "ETOPO1 0.1 degree"},
                    "points": [
                        {
                            "lat": -27.0,
                            "lon": -38.0,
                            "distance_to_land_nm": 322.91,
                            "depth_m": 4774.0,
                            "zone": "beyond_200nm",
                            "meets_200": True,
                            "meets_50": True,
                            "basemap": {"land": "...", "depth": "..."},
                        }
                    ],
                }
            ]
        }
    )
    basemap: dict[str, str]
    points: list[PointAssessment]


class TimedPoint(LatLon):
    """A declared time and position."""

    time: AwareDatetime


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

    t: AwareDatetime
    sog: float | None = None
    cog: float | None = None
    nav_status: int | None = None


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
    certificate_valid_until: AwareDatetime | None = None
    installed_platform: bool = False
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


def declaration_of(req: AuditRequest) -> Declaration:
    """The domain declaration of a request body."""
    exchanges = tuple(
        DeclaredExchange(
            DeclaredPoint(_ts(e.start.time), e.start.lat, e.start.lon),
            DeclaredPoint(_ts(e.end.time), e.end.lat, e.end.lon),
            e.volume_m3,
            e.method,
        )
        for e in req.exchanges
    )
    until = req.certificate_valid_until
    return Declaration(
        mmsi=req.mmsi,
        exchanges=exchanges,
        state_ship=req.state_ship,
        ballast_capacity_m3=req.ballast_capacity_m3,
        sealed_tanks=req.sealed_tanks,
        no_ballast_tanks=req.no_ballast_tanks,
        only_ajb=req.only_ajb,
        ait=req.ait,
        certificate_number=req.certificate_number,
        certificate_valid_until=None if until is None else _ts(until),
        installed_platform=req.installed_platform,
        declared_exceptions=tuple(req.declared_exceptions),
    )


def track_of(req: AuditRequest) -> list[Position]:
    """The request's own track as positions."""
    return [
        Position(req.mmsi, _ts(p.t), 1, p.lon, p.lat, p.sog, p.cog, None, p.nav_status)
        for p in req.track or []
    ]


def run_audit(
    req: AuditRequest, repo: Repository, assessor: BallastAssessor, settings: BallastSettings
) -> dict[str, Any]:
    """Audit a declaration, store the audit and its leads; returns the stored document."""
    decl = declaration_of(req)
    if req.track is not None:
        track = track_of(req)
    else:
        lo = min(e.start.t for e in decl.exchanges) - settings.voyage_days * DAY
        hi = max(e.end.t for e in decl.exchanges) + settings.voyage_days * DAY
        track = repo.track(req.mmsi, lo, hi)
    cfg = AuditConfig(
        pump_rate_m3_h=settings.pump_rate_m3_h,
        match_distance_nm=settings.match_distance_nm,
        match_time_s=settings.match_time_s,
    )
    result = audit(decl, track, repo.get_vessel(req.mmsi), assessor, cfg)
    result.document["track_source"] = "request" if req.track is not None else "stored AIS"
    if result.leads:
        repo.upsert_leads(result.leads)
    audit_id = repo.save_audit(result.document)
    return {"id": audit_id, **result.document}


@router.get(
    "/ballast/lines",
    response_class=GeoJSONResponse,
    dependencies=[Depends(require_role("viewer"))],
    summary="The 200 nm and 50 nm lines and the 200 m isobath (GeoJSON)",
)
def get_lines(ballast: Ballast) -> dict[str, Any]:
    """A FeatureCollection with one MultiLineString per line, each naming its basemap."""
    return lines_for(ballast[0])


@router.post(
    "/ballast/assess",
    response_model=AssessResponse,
    dependencies=[Depends(require_role("viewer"))],
    summary="Distance to land, depth and 2.3.1 class of points",
)
def post_assess(body: AssessRequest, ballast: Ballast) -> dict[str, Any]:
    """Per point: geodesic distance to the nearest land, depth, zone, meets_200/50."""
    assessor, settings = ballast
    if len(body.points) > settings.max_points:
        raise RequestInvalidError(f"at most {settings.max_points} points per request")
    lons = np.array([p.lon for p in body.points], dtype=np.float64)
    lats = np.array([p.lat for p in body.points], dtype=np.float64)
    a = assessor.assess(lons, lats)
    return {"basemap": assessor.basemap.names, "points": a.items()}


@router.post(
    "/ballast/audits",
    response_model=AuditResponse,
    status_code=201,
    dependencies=[Depends(require_role("inspector"))],
    summary="Audit declared ballast exchanges against AIS; stores the audit and its leads",
)
def post_audit(body: AuditRequest, repo: Repo, ballast: Ballast) -> dict[str, Any]:
    """Verdict per exchange (compliant, compliant_fallback, noncompliant, unverified)."""
    return run_audit(body, repo, *ballast)


@router.get(
    "/ballast/audits/{audit_id}",
    response_model=AuditResponse,
    dependencies=[Depends(require_role("viewer"))],
    summary="A stored ballast audit (kept at least five years, BW-RECORD)",
)
def get_audit(audit_id: Annotated[str, Path(max_length=64)], repo: Repo) -> dict[str, Any]:
    """The audit as it was stored."""
    doc = repo.get_audit(audit_id)
    if doc is None:
        raise NotFoundError(f"no ballast audit {audit_id}")
    return {**doc, "id": audit_id}


@router.get(
    "/ballast/screening/{mmsi}",
    dependencies=[Depends(require_role("viewer"))],
    summary="Time in water meeting 2.3.1 a) and b) before arrival, from the stored track",
)
def get_screening(
    mmsi: Annotated[int, Path(ge=1, le=999_999_999)],
    repo: Repo,
    ballast: Ballast,
    start: Annotated[str | None, Query(description="ISO 8601 or Unix s")] = None,
    end: Annotated[str | None, Query(description="arrival; default now")] = None,
) -> dict[str, Any]:
    """Windows of a)- and b)-water in the stored track up to ``end``, and for each arrival
    at a port or anchorage zone from beyond 200 nm, the same figures for the leg before it."""
    assessor, settings = ballast
    hi = parse_time(end, "end") or time.time()
    lo = parse_time(start, "start") or hi - settings.voyage_days * DAY
    if lo > hi:
        raise RequestInvalidError("start is after end")
    track = repo.track(mmsi, lo, hi)
    if not track:
        raise NotFoundError(f"no stored AIS positions of {mmsi} in that interval")
    zones, _ = repo.list_zones(None, hi, 10_000)
    out = screen_voyage(mmsi, track, assessor, arrival_t=hi)
    out["arrivals"] = screen_arrivals(mmsi, track, zones, assessor)
    return out
