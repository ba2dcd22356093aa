"""Vessels: latest positions in a bbox, static data, tracks, and the ingest counters."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from vigia.ingest.records import Position, VesselInfo, device_class, flag_mid, iso_utc, record_json
from vigia.service.db.archive_files import ArchiveGaps
from vigia.service.db.protocol import Repository
from vigia.service.errors import NotFoundError, RequestInvalidError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.params import (
    BBOX_DESCRIPTION,
    GEOJSON_MEDIA_TYPE,
    TIME_DESCRIPTION,
    GeoJSONResponse,
    Mmsi,
    Offset,
    check_order,
    clamp_limit,
    feature_page,
    get_settings,
    page_links,
    parse_bbox,
    parse_time,
)
from vigia.service.settings import Settings

router = APIRouter(tags=["vessels"], dependencies=[Depends(require_role("viewer"))])

EXAMPLE_POINT: dict[str, Any] = {
    "type": "Feature",
    "id": 710000001,
    "geometry": {"type": "Point", "coordinates": [-43.17, -22.9]},
    "properties": {"mmsi": 710000001, "t": "2024-03-01T12:00:00Z", "sog": 8.2, "cog": 91.0},
}
EXAMPLE_POSITIONS: dict[str, Any] = {
    "type": "FeatureCollection",
    "features": [EXAMPLE_POINT],
    "numberReturned": 1,
    "links": [{"rel": "self", "href": "http://127.0.0.1:8000/vessels?limit=1"}],
}
EXAMPLE_TRACK: dict[str, Any] = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "geometry": {"type": "LineString", "coordinates": [[-43.17, -22.9], [-43.16, -22.9]]},
            "properties": {"mmsi": 710000001, "kind": "track", "points": 2},
        },
        EXAMPLE_POINT,
    ],
    "numberReturned": 2,
    "links": [],
    # a day of the range whose archived file could not be read: its positions are
    # absent from this answer (docs/archive.md, "A bad file in the archive")
    "missing_days": [{"day": "2024-02-29", "reasons": ["corrupt"]}],
}
EXAMPLE_VESSEL: dict[str, Any] = {
    "mmsi": 710000001,
    "name": "MARIA DO MAR",
    "callsign": "PP1234",
    "imo": None,
    "ship_type": 30,
    "length_m": 18.0,
    "beam_m": 5.0,
    "destination": "RIO",
    "flag_mid": 710,
    "device_class": "vessel",
    "updated_at": "2024-03-01T11:58:00Z",
}


def _json(example: dict[str, Any], media: str = "application/json") -> dict[int | str, Any]:
    return {200: {"content": {media: {"example": example}}}}


# the point geometry carries lon/lat; accuracy and source are the store's bookkeeping
_NOT_PROPERTIES = frozenset({"lon", "lat", "accuracy", "source"})


def position_properties(p: Position) -> dict[str, Any]:
    """A position's properties as GeoJSON feature properties (derived from its fields)."""
    return record_json(p, _NOT_PROPERTIES)


def point_feature(p: Position, with_id: bool = True) -> dict[str, Any]:
    """A position as a GeoJSON Point feature."""
    feature: dict[str, Any] = {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [p.lon, p.lat]},
        "properties": position_properties(p),
    }
    if with_id:
        feature["id"] = p.mmsi
    return feature


def vessel_json(v: VesselInfo) -> dict[str, Any]:
    """A vessel's static data as JSON (its fields, and what its MMSI tells)."""
    out = record_json(v, frozenset({"extra"}))
    out["flag_mid"] = flag_mid(v.mmsi)
    out["device_class"] = device_class(v.mmsi)
    return out


@router.get(
    "/vessels",
    summary="Latest positions",
    response_class=GeoJSONResponse,
    responses={**_json(EXAMPLE_POSITIONS, GEOJSON_MEDIA_TYPE), **problem_responses(401, 403, 422)},
)
def latest_positions(
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    settings: Annotated[Settings, Depends(get_settings)],
    bbox: Annotated[str | None, Query(description=BBOX_DESCRIPTION)] = None,
    limit: Annotated[int | None, Query(ge=1, le=100_000)] = None,
    offset: Offset = 0,
) -> GeoJSONResponse:
    """Each vessel's latest known position, optionally inside a bbox."""
    box = parse_bbox(bbox)
    size = clamp_limit(limit, settings)
    rows = [p for p in repo.latest_positions(box, size, offset) if p.lon is not None]
    return feature_page(request, [point_feature(p) for p in rows], offset, size, None)


@router.get(
    "/vessels/{mmsi}",
    summary="A vessel's static data",
    responses={**_json(EXAMPLE_VESSEL), **problem_responses(401, 403, 404, 422)},
)
def vessel(mmsi: Mmsi, repo: Annotated[Repository, Depends(get_repository)]) -> dict[str, Any]:
    """The latest static and voyage data of one vessel."""
    info = repo.get_vessel(mmsi)
    if info is None:
        raise NotFoundError(f"no static data for MMSI {mmsi}")
    return vessel_json(info)


@router.get(
    "/vessels/{mmsi}/track",
    summary="A vessel's track",
    response_class=GeoJSONResponse,
    responses={**_json(EXAMPLE_TRACK, GEOJSON_MEDIA_TYPE), **problem_responses(401, 403, 422)},
)
def track(
    mmsi: Mmsi,
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    settings: Annotated[Settings, Depends(get_settings)],
    start: Annotated[str | None, Query(description=TIME_DESCRIPTION)] = None,
    end: Annotated[str | None, Query(description=TIME_DESCRIPTION)] = None,
    limit: Annotated[
        int | None,
        Query(
            ge=1,
            le=1_000_000,
            description="positions per page (default and maximum set "
            "by VIGIA_API_TRACK_DEFAULT_LIMIT / _MAX_LIMIT); a `next` link follows",
        ),
    ] = None,
    offset: Annotated[int, Query(ge=0, le=100_000_000)] = 0,
) -> GeoJSONResponse:
    """Positions between two times, oldest first and a page at a time: a LineString
    feature, then one Point per position; ``links`` holds ``next`` while more remain.

    ``missing_days`` lists the days of the range whose archived positions could not be
    read (a corrupt or foreign file in the archive, moved aside), each with its reasons
    (``corrupt``, ``not_regular``, ``unreadable``): those days' positions are absent. It
    is empty when the answer is whole."""
    t0, t1 = parse_time(start, "start"), parse_time(end, "end")
    check_order(t0, t1)
    api = settings.api
    size = api.track_default_limit if limit is None else limit
    if size > api.track_max_limit:
        raise RequestInvalidError(f"limit is at most {api.track_max_limit} positions a page")
    gaps = ArchiveGaps()
    rows = repo.track(mmsi, t0, t1, limit=size, offset=offset, gaps=gaps)
    points = [p for p in rows if p.lon is not None and p.lat is not None]
    features: list[dict[str, Any]] = []
    if len(points) >= 2:
        features.append(
            {
                "type": "Feature",
                "geometry": {"type": "LineString", "coordinates": [[p.lon, p.lat] for p in points]},
                "properties": {
                    "mmsi": mmsi,
                    "kind": "track",
                    "points": len(points),
                    "start": iso_utc(points[0].t),
                    "end": iso_utc(points[-1].t),
                },
            }
        )
    features.extend(point_feature(p, with_id=False) for p in points)
    body = {
        "type": "FeatureCollection",
        "features": features,
        "numberReturned": len(points),
        "links": page_links(request, offset, size, len(rows), None),
        "missing_days": gaps.json(),
    }
    return GeoJSONResponse(body)


@router.get(
    "/ingest/counters",
    summary="Ingest counters",
    responses={
        **_json({"lines": 1200, "sentences_ok": 1180, "positions_stored": 950}),
        **problem_responses(401, 403),
    },
)
def ingest_counters(
    request: Request, repo: Annotated[Repository, Depends(get_repository)]
) -> dict[str, Any]:
    """Cumulative ingest counters: live from the running worker, else as last persisted.

    ``backlog`` says how far behind the worker is: lines received and still queued, and
    how many seconds the line it is processing waited after its receipt.
    """
    worker = getattr(request.app.state, "worker", None)
    counters = worker.counters() if worker is not None else repo.load_counters()
    backlog = worker.backlog() if worker is not None else None
    return {"worker_running": worker is not None, "counters": counters, "backlog": backlog}
