"""Ballast arrivals: ships that reached a port zone from beyond 200 nm, each screened."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field

from vigia.alerts.ballast.screening import PORT_KINDS, screen_arrivals_between
from vigia.ingest.records import flag_mid, iso_utc
from vigia.service.db.archive_files import ArchiveGaps
from vigia.service.db.protocol import Repository
from vigia.service.errors import RequestInvalidError
from vigia.service.http.deps import require_role
from vigia.service.http.routes.ballast import Ballast, Repo
from vigia.service.http.routes.params import TIME_DESCRIPTION, parse_time
from vigia.service.runtime.audits import DAY
from vigia.zones.ballast import BallastAssessor

router = APIRouter(tags=["ballast"])

#: a window longer than this would screen months of traffic in one request
MAX_WINDOW_DAYS = 31.0
#: vessels seen in one port zone's bbox in the window; more means the window is too wide
MAX_CANDIDATES = 2_000
#: positions read per candidate (its lookback and window); more is a 422, not a big read
MAX_TRACK_POINTS = 100_000

_WINDOW = {"start": "2024-05-01T00:00:00Z", "end": "2024-05-02T04:50:00Z", "hours": 28.83}
EXAMPLE_ARRIVALS: dict[str, Any] = {
    "start": "2024-05-01T00:00:00Z",
    "end": "2024-05-03T00:00:00Z",
    "lookback_days": 30.0,
    "basemap": {"land": "Natural Earth 10m ...", "depth": "ETOPO1 0.1 degree"},
    "candidates": 2,
    "numberMatched": 1,
    "numberReturned": 1,
    "missing_days": [],
    "arrivals": [
        {
            "mmsi": 636012345,
            "vessel": {"name": "OCEAN TRADER", "ship_type": 70, "flag_mid": 636},
            "port_zone_id": "anch-santos",
            "arrived_at": "2024-05-02T14:20:00Z",
            "screening": {
                "from": "2024-05-01T00:00:00Z",
                "points": 230,
                "came_from_beyond_200nm": True,
                "last_beyond_200nm": "2024-05-02T04:50:00Z",
                "a_water": {"total_hours": 28.83, "longest_hours": 28.83, "windows": [_WINDOW]},
                "b_water": {"total_hours": 33.5, "longest_hours": 33.5, "windows": ["..."]},
                "last_a_water": _WINDOW,
                "max_gap_s": 10800.0,
            },
        }
    ],
}


class VesselBrief(BaseModel):
    """What the registry knows of the ship (None where it knows nothing)."""

    name: str | None
    ship_type: int | None
    flag_mid: int | None


class Arrival(BaseModel):
    """One arrival from beyond 200 nm and the screening of the leg before it."""

    mmsi: int
    vessel: VesselBrief
    port_zone_id: str
    arrived_at: str
    screening: dict[str, Any] = Field(
        description="screen_voyage figures of the leg since the previous arrival (or the "
        "start of the lookback): a_water / b_water total and longest hours and windows"
    )


class MissingDay(BaseModel):
    """A day whose archived positions could not be read: they are absent from the answer."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"day": "2024-04-20", "reasons": ["corrupt"]}]}
    )
    day: str = Field(description="the UTC day, YYYY-MM-DD")
    reasons: list[str] = Field(
        description="corrupt (not Parquet, cut short, a failed checksum, foreign columns) "
        "or not_regular (a link, fifo or the like): moved aside into the archive's "
        "_quarantine; unreadable (an I/O error): left in place, tried again next time"
    )


class ArrivalsResponse(BaseModel):
    """Arrivals in the window, newest first."""

    model_config = ConfigDict(json_schema_extra={"examples": [EXAMPLE_ARRIVALS]})
    start: str
    end: str
    lookback_days: float
    basemap: dict[str, str]
    candidates: int = Field(description="vessels seen in a port zone's bbox in the window")
    numberMatched: int
    numberReturned: int
    arrivals: list[Arrival]
    missing_days: list[MissingDay] = Field(
        default_factory=list,
        description="days of the window or lookback whose archived positions could not "
        "be read: arrivals and screenings there are judged without them",
    )


def find_arrivals(
    repo: Repository,
    assessor: BallastAssessor,
    start: float,
    end: float,
    lookback_s: float,
    gaps: ArchiveGaps | None = None,
) -> tuple[int, list[tuple[float, int, dict[str, Any]]]]:
    """Candidates' count and every (time, mmsi, screening) arrival from beyond 200 nm at a
    port or anchorage zone in [start, end], newest first; archived days that could not
    be read are named in ``gaps``."""
    zones, _ = repo.list_zones(None, end, None)
    ports = [z for z in zones if z.kind in PORT_KINDS]
    candidates: set[int] = set()
    for z in ports:
        bounds = z.geometry.bounds
        found = repo.vessels_in_bbox(
            (bounds[0], bounds[1], bounds[2], bounds[3]), start, end, MAX_CANDIDATES + 1, gaps
        )
        if len(found) > MAX_CANDIDATES:
            raise RequestInvalidError(
                f"more than {MAX_CANDIDATES} vessels in zone {z.id} in that window; narrow it"
            )
        candidates.update(found)
    out = []
    for mmsi in sorted(candidates):
        track = repo.track(mmsi, start - lookback_s, end, limit=MAX_TRACK_POINTS + 1, gaps=gaps)
        if len(track) > MAX_TRACK_POINTS:
            raise RequestInvalidError(
                f"MMSI {mmsi} has more than {MAX_TRACK_POINTS} positions in the lookback; "
                "shorten lookback_days"
            )
        for t, doc in screen_arrivals_between(mmsi, track, ports, assessor, start, end):
            out.append((t, mmsi, doc))
    out.sort(key=lambda a: (-a[0], a[1]))
    return len(candidates), out


def arrival_item(repo: Repository, mmsi: int, doc: dict[str, Any]) -> dict[str, Any]:
    """One listed arrival: the ship, where and when it arrived, and its screening."""
    v = repo.get_vessel(mmsi)
    drop = {"mmsi", "basemap", "port_zone_id", "arrived_at", "note"}
    return {
        "mmsi": mmsi,
        "vessel": {
            "name": v.name if v else None,
            "ship_type": v.ship_type if v else None,
            "flag_mid": flag_mid(mmsi),
        },
        "port_zone_id": doc["port_zone_id"],
        "arrived_at": doc["arrived_at"],
        "screening": {k: val for k, val in doc.items() if k not in drop},
    }


@router.get(
    "/ballast/arrivals",
    response_model=ArrivalsResponse,
    dependencies=[Depends(require_role("viewer"))],
    summary="Ships that arrived at a port or anchorage from beyond 200 nm, each screened",
)
def get_arrivals(
    repo: Repo,
    ballast: Ballast,
    start: Annotated[
        str | None, Query(description=TIME_DESCRIPTION + "; default end - 1 day")
    ] = None,
    end: Annotated[str | None, Query(description=TIME_DESCRIPTION + "; default now")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    lookback_days: Annotated[float, Query(ge=1, le=90, description="track read before start")] = 30,
) -> dict[str, Any]:
    """Arrivals in [start, end] (newest first) at port_facility and anchorage zones by ships
    beyond 200 nm since their previous arrival, with hours in a)- and b)-water before it."""
    assessor = ballast[0]
    t_end, t_start = parse_time(end, "end"), parse_time(start, "start")
    hi = time.time() if t_end is None else t_end
    lo = hi - DAY if t_start is None else t_start
    if lo > hi:
        raise RequestInvalidError("start is after end")
    if hi - lo > MAX_WINDOW_DAYS * DAY:
        raise RequestInvalidError(f"the window is longer than {MAX_WINDOW_DAYS:g} days")
    gaps = ArchiveGaps()
    candidates, found = find_arrivals(repo, assessor, lo, hi, lookback_days * DAY, gaps)
    page = [arrival_item(repo, mmsi, doc) for _, mmsi, doc in found[:limit]]
    return {
        "start": iso_utc(lo),
        "end": iso_utc(hi),
        "lookback_days": lookback_days,
        "basemap": assessor.basemap.names,
        "candidates": candidates,
        "numberMatched": len(found),
        "numberReturned": len(page),
        "arrivals": page,
        "missing_days": gaps.json(),
    }
