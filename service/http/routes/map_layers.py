"""Map layers for the dashboard, built from Vigia's own data: land, zone bands, vessels.

No remote tiles: the land is the ballast basemap (Natural Earth 10m united with the Navy
chart land near Rio), the zones are drawn as the evaluation sees them (``ZoneIndex.band``),
and the vessels carry just what a map needs, in one compact response.
"""

from __future__ import annotations

from typing import Annotated, Any

import shapely
from fastapi import APIRouter, Depends, Request
from shapely.geometry import mapping

from vigia.alerts.procedure.register import offices
from vigia.service.db.protocol import ApiKeyRecord, Repository
from vigia.service.http.deps import ROLES, get_repository, require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.ballast import Ballast
from vigia.service.http.routes.params import (
    GEOJSON_MEDIA_TYPE,
    GeoJSONResponse,
)
from vigia.zones.basemap import display_land
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import ZoneKind

router = APIRouter(tags=["map"], dependencies=[Depends(require_role("viewer"))])

#: the dashboard's window (the Brazilian coast and the ballast lines' grid, with margin)
LAND_WINDOW = (-75.0, -40.0, -20.0, 10.0)
#: 0.0005 degree (about 50 m) keeps the chart land near Rio recognisable at harbour zoom
#: while the whole coast stays near 300 kB
LAND_TOLERANCE_DEG = 0.0005
_ALL_ZONES = 100_000

EXAMPLE_LAND: dict[str, Any] = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "geometry": {
                "type": "MultiPolygon",
                "coordinates": [[[[-43.2, -22.9], [-43.1, -22.9], [-43.1, -22.8], [-43.2, -22.9]]]],
            },
            "properties": {"kind": "land"},
        }
    ],
    "properties": {"source": "Natural Earth 10m admin-0; DHN ENC LNDARE inside the chart cells"},
}
EXAMPLE_BANDS: dict[str, Any] = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [-40.05, -22.37]},
            "properties": {
                "id": "plat-p66",
                "kind": "platform",
                "name": "P-66",
                "authority": None,
                "valid_from": None,
                "valid_to": None,
                "role": "reference",
                "band": None,
                "width_m": 500.0,
            },
        }
    ],
}


def _example(example: dict[str, Any], media: str = GEOJSON_MEDIA_TYPE) -> dict[int | str, Any]:
    return {200: {"content": {media: {"example": example}}}, **problem_responses(401, 403, 422)}


def land_geojson(request: Request, ballast: Any) -> dict[str, Any]:
    """The land polygons of the ballast basemap inside the window, simplified, cached."""
    assessor = ballast[0]
    state = request.app.state
    cached = getattr(state, "map_land", None)
    if cached is not None and cached[0] is assessor:
        out: dict[str, Any] = cached[1]
        return out
    # the bundled basemap draws the Navy chart's own coastline where a chart cell covers
    # (zones.basemap.display_land); a loaded land file is drawn as it is
    bundled = bool(assessor.basemap.extra.get("bundled_land"))
    polygons = display_land() if bundled else assessor.basemap.land.polygons
    geom = shapely.intersection(polygons, shapely.box(*LAND_WINDOW))
    geom = shapely.simplify(geom, LAND_TOLERANCE_DEG, preserve_topology=True)
    geom = shapely.set_precision(geom, 1e-5)
    doc = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "geometry": mapping(geom), "properties": {"kind": "land"}}
        ],
        "properties": {"source": assessor.basemap.names.get("land", "")},
    }
    state.map_land = (assessor, doc)
    return doc


@router.get(
    "/map/land",
    summary="Land polygons for the dashboard's background (GeoJSON)",
    response_class=GeoJSONResponse,
    responses=_example(EXAMPLE_LAND),
)
def get_land(request: Request, ballast: Ballast) -> GeoJSONResponse:
    """The ballast basemap's land in the Brazilian window, simplified to about 50 m."""
    return GeoJSONResponse(land_geojson(request, ballast))


def _zone_props(zone: Any) -> dict[str, Any]:
    return {
        "id": zone.id,
        "kind": str(zone.kind),
        "name": zone.name,
        "authority": zone.authority,
        "valid_from": None if zone.valid_from is None else zone.valid_from.isoformat(),
        "valid_to": None if zone.valid_to is None else zone.valid_to.isoformat(),
        # where the geometry came from and the date of that source (issue 40)
        "source": zone.source,
        "source_date": zone.properties.get("source_date"),
    }


def current_zones(repo: Annotated[Repository, Depends(get_repository)]) -> list[Any]:
    """Every current zone: the map layers draw them all (a dependency both share)."""
    zones, _ = repo.list_zones(None, None, _ALL_ZONES, 0)
    return zones


def zone_bands(zones: list[Any]) -> dict[str, Any]:
    """Each zone's reference geometry and its rule bands as lon/lat polygons."""
    index = ZoneIndex(zones)
    features: list[dict[str, Any]] = []
    for i, zone in enumerate(index.zones):
        props = _zone_props(zone)
        width = float(index.threshold_m[i])
        bands: list[tuple[str, float]] = []
        if zone.kind is ZoneKind.BATHER_BEACH:
            # 0211: oars and sails keep 100 m off the surf line, engines 200 m
            bands = [("motor", width), ("sail", index.sail_band_m)]
        elif width > 0:
            bands = [("rule", width)]
        for band, w in bands:
            geom = index.band(i, w)
            if zone.kind is ZoneKind.BATHER_BEACH:
                # a beach's band lies off its baseline: drawn on the water side only, or
                # the map shows a 200 m band running up the streets behind the beach
                geom = shapely.difference(geom, shapely.clip_by_rect(display_land(), *geom.bounds))
            features.append(
                {
                    "type": "Feature",
                    "geometry": mapping(shapely.set_precision(geom, 1e-6)),
                    "properties": {**props, "role": "band", "band": band, "width_m": w},
                }
            )
        features.append(
            {
                "type": "Feature",
                "geometry": mapping(zone.geometry),
                "properties": {**props, "role": "reference", "band": None, "width_m": width},
            }
        )
    return {"type": "FeatureCollection", "features": features}


@router.get(
    "/map/zones",
    summary="Zones with their rule bands, for maps (GeoJSON)",
    response_class=GeoJSONResponse,
    responses=_example(EXAMPLE_BANDS),
)
def get_zone_bands(zones: Annotated[list[Any], Depends(current_zones)]) -> GeoJSONResponse:
    """Each current zone's reference geometry (``role: reference``) and the bands the rules
    measure (``role: band``; beaches have ``motor`` 200 m and ``sail`` 100 m)."""
    return GeoJSONResponse(zone_bands(zones))


def map_labels(zones: list[Any]) -> dict[str, Any]:
    """Names to draw on the map: the seat cities of the bundled register of maritime
    offices (``kind: place``, city centres; ``rank`` 1 for a Capitania's) and each zone's
    name at a point of its reference geometry (``kind: zone``, with its id and kind)."""
    features: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for office in offices():
        key = (office.seat_municipality, office.seat_state)
        if key in seen:
            continue
        seen.add(key)
        features.append(
            {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [office.seat_lon, office.seat_lat]},
                # a Capitania's seat is named from regional zoom, a Delegacia's closer in
                "properties": {"kind": "place", "name": office.seat_municipality,
                               "state": office.seat_state,
                               "rank": 1 if office.kind == "capitania" else 2},
            }
        )  # fmt: skip
    for zone in zones:
        if not zone.name or zone.kind is ZoneKind.JURISDICTION:
            continue  # a jurisdiction's name is its Capitania's, drawn at its seat
        at = shapely.point_on_surface(zone.geometry)
        features.append(
            {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [round(at.x, 6), round(at.y, 6)]},
                "properties": {"kind": "zone", "name": zone.name, "zone_id": zone.id,
                               "zone_kind": str(zone.kind)},
            }
        )  # fmt: skip
    return {"type": "FeatureCollection", "features": features}


EXAMPLE_LABELS: dict[str, Any] = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [-43.17, -22.897]},
            "properties": {"kind": "place", "name": "Rio de Janeiro", "state": "RJ", "rank": 1},
        },
        {
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [-43.18, -22.975]},
            "properties": {"kind": "zone", "name": "Praia de Copacabana",
                           "zone_id": "beach-copacabana", "zone_kind": "bather_beach"},
        },
    ],
}  # fmt: skip


@router.get(
    "/map/labels",
    summary="Place and zone names for maps (GeoJSON points)",
    response_class=GeoJSONResponse,
    responses=_example(EXAMPLE_LABELS),
)
def get_map_labels(zones: Annotated[list[Any], Depends(current_zones)]) -> GeoJSONResponse:
    """Offline labels: the seat cities of the maritime offices' register (``kind: place``)
    and every current zone's name at a point on it (``kind: zone``)."""
    return GeoJSONResponse(map_labels(zones))


@router.get(
    "/me",
    summary="The calling key's name and role (what a client may offer)",
    responses={
        200: {
            "content": {
                "application/json": {
                    "example": {"name": "cpsp", "role": "viewer", "roles": ["viewer"]}
                }
            }
        },
        **problem_responses(401, 403),
    },
)
def whoami(caller: Annotated[ApiKeyRecord, Depends(require_role("viewer"))]) -> dict[str, Any]:
    """The key's name and role, and the roles it reaches, so a page offers only what the
    key may do (the routes still check every call)."""
    rank = ROLES.get(caller.role, 0)
    return {
        "name": caller.name,
        "role": caller.role,
        "roles": [r for r, n in ROLES.items() if n <= rank],
    }
