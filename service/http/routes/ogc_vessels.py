"""OGC API - Features: the ``vessels`` collection's items, each vessel at its latest
position with its static data (the collection itself is listed in ``ogc.py``, as the
zones' items live in ``zones.py``)."""

from __future__ import annotations

import time
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, Query, Request

from vigia.ingest.records import Position, VesselInfo, flag_mid, iso_utc
from vigia.service.db.layers import LayerStore
from vigia.service.db.protocol import Repository
from vigia.service.errors import NotFoundError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.filtering import FILTER_PARAMS, CqlFilter
from vigia.service.http.routes.ogc import filtering_store, only_params
from vigia.service.http.routes.params import (
    BBOX_DESCRIPTION,
    GEOJSON_MEDIA_TYPE,
    GeoJSONResponse,
    Mmsi,
    clamp_limit,
    get_and_head,
    get_settings,
    page_links,
    parse_bbox,
    parse_interval,
    public_base,
)
from vigia.service.settings import Settings

router = APIRouter(tags=["ogc"], dependencies=[Depends(require_role("viewer"))])
_READ = problem_responses(400, 401, 403)
_ONE = problem_responses(400, 401, 403, 404)


def _json(example: dict[str, Any]) -> dict[int | str, Any]:
    return {200: {"content": {GEOJSON_MEDIA_TYPE: {"example": example}}}}


def _base(request: Request) -> str:
    # the configured public URL, never the Host header (issue 15 item 9)
    return public_base(request)


def _collection_page(
    request: Request, features: list[dict[str, Any]], offset: int, size: int, total: int
) -> GeoJSONResponse:
    return GeoJSONResponse(
        {
            "type": "FeatureCollection",
            "features": features,
            "numberMatched": total,
            "numberReturned": len(features),
            "timeStamp": iso_utc(time.time()),
            "links": page_links(request, offset, size, len(features), total),
        }
    )


def vessel_feature(p: Position, v: VesselInfo | None, base: str) -> dict[str, Any]:
    """A vessel at its latest position, with its name and static data."""
    props: dict[str, Any] = {
        "mmsi": p.mmsi,
        "name": v.name if v else None,
        "callsign": v.callsign if v else None,
        "imo": v.imo if v else None,
        "ship_type": v.ship_type if v else None,
        "length_m": v.length_m if v else None,
        "beam_m": v.beam_m if v else None,
        "destination": v.destination if v else None,
        "flag_mid": flag_mid(p.mmsi),
        "t": iso_utc(p.t),
        "sog": p.sog,
        "cog": p.cog,
        "heading": p.heading,
        "nav_status": p.nav_status,
    }
    href = f"{base}/collections/vessels/items/{p.mmsi}"
    return {
        "type": "Feature",
        "id": p.mmsi,
        "geometry": {"type": "Point", "coordinates": [p.lon, p.lat]},
        "properties": props,
        "links": [
            {"rel": "self", "href": href, "type": GEOJSON_MEDIA_TYPE},
            {
                "rel": "collection",
                "href": f"{base}/collections/vessels",
                "type": "application/json",
            },
        ],
    }


def _vessel_page(
    repo: Repository,
    bbox: Any,
    interval: tuple[float | None, float | None] | None,
    size: int,
    offset: int,
    cql: Any = None,
) -> tuple[list[tuple[Position, VesselInfo | None]], int]:
    if filtering_store(repo, cql) is None:
        positions = repo.latest_positions(bbox, size, offset)
        if interval is not None:
            lo, hi = interval
            positions = [
                p for p in positions if (lo is None or p.t >= lo) and (hi is None or p.t <= hi)
            ]
        return [(p, repo.get_vessel(p.mmsi)) for p in positions], len(positions)
    assert isinstance(repo, LayerStore)
    if interval is None and cql is None:
        positions, total = repo.latest_positions(bbox, size, offset), repo.count_latest(bbox)
    else:
        positions, total = repo.latest_between(bbox, *(interval or (None, None)), size,
                                               offset, cql)  # fmt: skip
    static = repo.vessels_by_mmsi([p.mmsi for p in positions])
    return [(p, static.get(p.mmsi)) for p in positions], total


@get_and_head(
    router,
    "/collections/vessels/items",
    summary="Vessels at their latest positions",
    response_class=GeoJSONResponse,
    responses={**_json({"type": "FeatureCollection"}), **_READ},
    dependencies=[only_params("bbox", "datetime", "limit", "offset", *FILTER_PARAMS)],
)
async def vessel_items(
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    settings: Annotated[Settings, Depends(get_settings)],
    cql: CqlFilter,
    bbox: Annotated[str | None, Query(description=BBOX_DESCRIPTION)] = None,
    datetime: Annotated[
        str | None,
        Query(
            description="instant or interval (start/end, `..` open; a date is its whole UTC "
            "day): vessels whose latest position was taken then"
        ),
    ] = None,
    limit: Annotated[int | None, Query(ge=1, le=100_000)] = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> GeoJSONResponse:
    """Each vessel's latest position with its name, type and size, by MMSI.

    A feature is the vessel at its latest position, so ``datetime`` is compared with
    that position's time ``t`` (the instant the geometry shows, as Part 1 asks of a
    feature's temporal property): a vessel last seen before the interval is not in it.
    Where vessels were during a past interval is ``/vessels/{mmsi}/track``'s question."""
    box = parse_bbox(bbox)
    interval = parse_interval(datetime)
    size = clamp_limit(limit, settings)
    rows, total = await anyio.to_thread.run_sync(
        _vessel_page, repo, box, interval, size, offset, cql
    )
    base = _base(request)
    features = [vessel_feature(p, v, base) for p, v in rows]
    return _collection_page(request, features, offset, size, total)


@get_and_head(
    router,
    "/collections/vessels/items/{mmsi}",
    summary="One vessel at its latest position",
    response_class=GeoJSONResponse,
    responses={**_json({"type": "Feature"}), **_ONE},
    dependencies=[only_params()],
)
def vessel_item(
    request: Request,
    mmsi: Mmsi,
    repo: Annotated[Repository, Depends(get_repository)],
) -> GeoJSONResponse:
    """One vessel's latest position and static data."""
    latest = repo.latest_position(mmsi) if isinstance(repo, LayerStore) else None
    if latest is None:
        raise NotFoundError(f"no position of vessel {mmsi}")
    return GeoJSONResponse(vessel_feature(latest, repo.get_vessel(mmsi), _base(request)))
