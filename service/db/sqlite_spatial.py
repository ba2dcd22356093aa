"""The CQL2 spatial functions on SQLite, which has no spatial SQL: shapely's exact
predicates as SQL functions of the connection, so a spatial filter is one condition
among the others (under NOT and OR too) and paging stays in SQL."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import shapely
from sqlalchemy.engine import Connection

#: CQL2's spatial functions and the PostGIS (and shapely) predicate of each
SPATIAL_OPS = {
    "s_intersects": "ST_Intersects",
    "s_disjoint": "ST_Disjoint",
    "s_contains": "ST_Contains",
    "s_within": "ST_Within",
    "s_touches": "ST_Touches",
    "s_crosses": "ST_Crosses",
    "s_overlaps": "ST_Overlaps",
    "s_equals": "ST_Equals",
}
RELATE_FN = "vigia_relate"
RELATE_POINT_FN = "vigia_relate_point"
_PREDICATES: dict[str, Any] = {
    op: getattr(shapely, name.removeprefix("ST_").lower()) for op, name in SPATIAL_OPS.items()
}


@lru_cache(maxsize=64)
def _geom(wkb: bytes) -> shapely.Geometry:
    # the filter's geometry is the same bytes on every row: parse and prepare it once
    geom = shapely.from_wkb(wkb)
    shapely.prepare(geom)
    return geom


def _relate(op: str, wkb: bytes | None, other: bytes) -> int | None:
    if wkb is None:
        return None
    return int(_PREDICATES[op](shapely.from_wkb(wkb), _geom(other)))


def _relate_point(op: str, lon: float | None, lat: float | None, other: bytes) -> int | None:
    if lon is None or lat is None:
        return None
    return int(_PREDICATES[op](shapely.Point(lon, lat), _geom(other)))


def register(conn: Connection) -> None:
    """Make the spatial functions known to this SQLite connection (cheap; repeatable)."""
    raw: Any = conn.connection.driver_connection
    raw.create_function(RELATE_FN, 3, _relate, deterministic=True)
    raw.create_function(RELATE_POINT_FN, 4, _relate_point, deterministic=True)
