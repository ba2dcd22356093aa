"""Ballast water (NORMAM-20): the 200/50 nm lines, point assessment, audits, screening."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import numpy as np
from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from vigia.alerts.ballast.screening import screen_arrivals, screen_voyage
from vigia.service.db.protocol import Repository, Scope
from vigia.service.errors import NotFoundError, RequestInvalidError
from vigia.service.http.deps import get_repository, require_role, require_scope
from vigia.service.http.routes.params import GeoJSONResponse, Mmsi, parse_time
from vigia.service.runtime.audits import DAY, AuditRequest, AuditResponse, LatLon, run_audit
from vigia.service.settings import BallastSettings
from vigia.zones.ballast import BallastAssessor, get_assessor
from vigia.zones.ballast_grid import lines_for

router = APIRouter(tags=["ballast"])


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


class AssessRequest(BaseModel):
    """Points to assess."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"points": [{"lat": -27.0, "lon": -38.0}]}]}
    )
    points: list[LatLon] = Field(min_length=1)


class PointAssessment(BaseModel):
    """docs/contract.md section 6 figures of one point."""

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
def post_audit(
    body: AuditRequest,
    repo: Repo,
    ballast: Ballast,
    scope: Annotated[Scope, Depends(require_scope("inspector"))],
) -> dict[str, Any]:
    """Verdict per exchange (compliant, compliant_fallback, noncompliant, unverified);
    a key limited to one authority stores the audit as that authority's."""
    return run_audit(body, repo, *ballast, now=time.time(), scope=scope)


@router.get(
    "/ballast/audits/{audit_id}",
    response_model=AuditResponse,
    dependencies=[Depends(require_role("viewer"))],
    summary="A stored ballast audit (kept at least five years, BW-RECORD)",
)
def get_audit(
    audit_id: Annotated[str, Path(max_length=64)],
    repo: Repo,
    scope: Annotated[Scope, Depends(require_scope("viewer"))],
) -> dict[str, Any]:
    """The audit as it was stored (another authority's audit is not found)."""
    doc = repo.get_audit(audit_id, scope)
    if doc is None:
        raise NotFoundError(f"no ballast audit {audit_id}")
    return {**doc, "id": audit_id}


@router.get(
    "/ballast/screening/{mmsi}",
    dependencies=[Depends(require_role("viewer"))],
    summary="Time in water meeting 2.3.1 a) and b) before arrival, from the stored track",
)
def get_screening(
    mmsi: Mmsi,
    repo: Repo,
    ballast: Ballast,
    start: Annotated[str | None, Query(description="ISO 8601 or Unix s")] = None,
    end: Annotated[str | None, Query(description="arrival; default now")] = None,
) -> dict[str, Any]:
    """Windows of a)- and b)-water in the stored track up to ``end``, and for each arrival
    at a port or anchorage zone from beyond 200 nm, the same figures for the leg before it."""
    assessor, settings = ballast
    t_end, t_start = parse_time(end, "end"), parse_time(start, "start")
    # `is None`, not `or`: start=0 (1970) is a time, not a missing one
    hi = time.time() if t_end is None else t_end
    lo = hi - settings.voyage_days * DAY if t_start is None else t_start
    if lo > hi:
        raise RequestInvalidError("start is after end")
    track = repo.track(mmsi, lo, hi, limit=settings.max_track_points + 1)
    if len(track) > settings.max_track_points:
        raise RequestInvalidError(
            f"more than {settings.max_track_points} stored positions in that window; narrow it"
        )
    if not track:
        raise NotFoundError(f"no stored AIS positions of {mmsi} in that interval")
    zones, _ = repo.list_zones(None, hi, None)
    out = screen_voyage(mmsi, track, assessor, arrival_t=hi)
    out["arrivals"] = screen_arrivals(mmsi, track, zones, assessor)
    return out
