"""The map's vessel layer: each vessel's latest position, compact, or counted in clusters
when the map is zoomed out over more vessels than it can usefully draw (issue 39).

A page asks with the zoom it shows. Close in (from ``CLUSTER_BELOW_ZOOM``), or over no
more than ``POINTS_MAX`` vessels, the answer is the vessels themselves, and a page then
asks only for what moved (``since``). Further out over a busier sea, it is clusters on
map tiles (service/http/map_grid.py): a national view of 20,000 vessels is a few
hundred rows instead of 20,000, and the page asks again when its view or zoom changes.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Protocol, runtime_checkable

from fastapi import APIRouter, Depends, Query

from vigia.ingest.records import VesselInfo, device_class, iso_utc
from vigia.service.db.positions import CHANGE_OVERLAP_S
from vigia.service.db.protocol import Repository
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.map_grid import cell_zoom, grid_clusters
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.params import BBOX_DESCRIPTION, parse_bbox, parse_time

router = APIRouter(tags=["map"], dependencies=[Depends(require_role("viewer"))])

MAX_VESSELS = 100_000
#: from this zoom in (about 60 nm across) a map draws vessels, never clusters; the
#: dashboard asks for the vessels around its view from the same zoom (js/main.js)
CLUSTER_BELOW_ZOOM = 9.0
#: at most this many vessels are sent as points to a zoomed-out map: some 40 kB gzipped
#: (about 19 bytes a vessel), under the 100 kB a refresh may cost; more are clustered
POINTS_MAX = 2_000
COLUMNS = ["mmsi", "lon", "lat", "cog", "heading", "sog", "t", "class", "ship_type", "name"]
CLUSTER_COLUMNS = ["lon", "lat", "count", "west", "south", "east", "north"]

EXAMPLE_VESSELS: dict[str, Any] = {
    "columns": COLUMNS,
    "now": "2024-03-01T12:00:05Z",
    "next_since": "2024-03-01T12:00:00Z",
    "clustered": False,
    "vessels": [
        [710000001, -43.17, -22.9, 91.0, 90, 8.2, "2024-03-01T12:00:00Z", "vessel", 30, "MARIA"]
    ],
}


@runtime_checkable
class VesselCatalogue(Protocol):
    """A store that can list the static data of many vessels in one query."""

    def vessels_static(self, mmsis: list[int]) -> list[VesselInfo]:
        """Static data of the given MMSIs that are known."""
        ...


@router.get(
    "/map/vessels",
    summary="Latest positions with name, type and age, compact, for maps (clusters when "
    "zoomed out over many vessels)",
    responses={
        200: {"content": {"application/json": {"example": EXAMPLE_VESSELS}}},
        **problem_responses(401, 403, 422),
    },
)
def get_map_vessels(
    repo: Annotated[Repository, Depends(get_repository)],
    bbox: Annotated[str | None, Query(description=BBOX_DESCRIPTION)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_VESSELS)] = MAX_VESSELS,
    since: Annotated[
        str | None,
        Query(
            max_length=40,
            description="only the vessels whose latest position changed since the answer "
            "that gave this `next_since` (a map's delta); the whole layer without it",
        ),
    ] = None,
    zoom: Annotated[
        float | None,
        Query(
            ge=0,
            le=24,
            description="the map's zoom: below 9, over more than 2,000 vessels (in `bbox`), "
            "the answer is clusters (`clustered: true`) on the map tiles of zoom + 3; "
            "never with `since`",
        ),
    ] = None,
) -> dict[str, Any]:
    """Rows ``[mmsi, lon, lat, cog, heading, sog, t, class, ship_type, name]`` (a map draws
    20,000 of these; GeoJSON would triple the bytes). With ``since``, only the vessels
    whose latest position changed since then: a map refreshing every few seconds gets
    what moved, not the whole layer. ``next_since`` is the cursor for the next delta.

    With a ``zoom`` below 9 and more than 2,000 vessels in the box, ``clusters`` instead:
    rows ``[lon, lat, count, west, south, east, north]``, the vessels of one map tile of
    zoom + 3 (32 pixels wide at the map's zoom), at their mean position and with their
    box; ``total`` counts them all, and ``vessels`` is empty."""
    after = parse_time(since, "since")
    box = parse_bbox(bbox)
    if zoom is not None and zoom < CLUSTER_BELOW_ZOOM and after is None:
        points = repo.latest_points(box)
        if len(points) > POINTS_MAX:
            return _clusters(points, cell_zoom(zoom))
    found, newest = repo.latest_changes(box, after, limit)
    rows = [p for p in found if p.lon is not None and p.lat is not None]
    # the cursor is the store's own change time (the writer's clock), never a fix's time:
    # a fix heard now may be older than another vessel's newest (two receivers,
    # satellite AIS hours late) and would fall behind a cursor of fix times. It reaches
    # CHANGE_OVERLAP_S back, for a batch stamped earlier that committed after this read
    cursor = after
    if newest is not None:
        cursor = max(after or 0.0, newest - CHANGE_OVERLAP_S)
    static: dict[int, VesselInfo] = {}
    if isinstance(repo, VesselCatalogue) and rows:
        static = {v.mmsi: v for v in repo.vessels_static([p.mmsi for p in rows])}
    out = []
    for p in rows:
        v = static.get(p.mmsi)
        out.append(
            [
                p.mmsi,
                round(p.lon or 0.0, 6),
                round(p.lat or 0.0, 6),
                p.cog,
                p.heading,
                p.sog,
                iso_utc(p.t),
                device_class(p.mmsi, p.msg_type),
                None if v is None else v.ship_type,
                None if v is None else v.name,
            ]
        )
    return {
        "columns": COLUMNS,
        "now": iso_utc(time.time()),
        "next_since": None if cursor is None else iso_utc(cursor),
        "clustered": False,
        "vessels": out,
    }


def _clusters(points: list[tuple[float, float]], zoom: int) -> dict[str, Any]:
    """A cluster answer: no cursor (a page asks for clusters again, never a delta)."""
    return {
        "columns": COLUMNS,
        "now": iso_utc(time.time()),
        "next_since": None,
        "clustered": True,
        "cell_zoom": zoom,
        "total": len(points),
        "cluster_columns": CLUSTER_COLUMNS,
        "clusters": [list(c) for c in grid_clusters(points, zoom)],
        "vessels": [],
    }
