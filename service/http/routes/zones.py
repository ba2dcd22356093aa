"""Zones over OGC API - Features: landing page, conformance, the collection and its items.

Uploads are validated exactly as zone files are (``zones.catalogue``): one bad feature
refuses the whole upload with a 422 naming it, and the store is left as it was.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from vigia.service.db.protocol import Repository
from vigia.service.errors import NotFoundError, PayloadTooLargeError, RequestInvalidError
from vigia.service.http.bodies import (
    check_zone_id,
    check_zone_ids,
    decode_upload,
    geometry_vertices,
)
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import PROBLEM_MEDIA_TYPE, problem_responses
from vigia.service.http.routes.filtering import FILTER_PARAMS, CqlFilter
from vigia.service.http.routes.ogc import filtering_store, only_params
from vigia.service.http.routes.params import (
    BBOX_DESCRIPTION,
    GEOJSON_MEDIA_TYPE,
    GeoJSONResponse,
    Offset,
    clamp_limit,
    feature_page,
    get_and_head,
    get_settings,
    parse_bbox,
    parse_interval,
    public_href,
)
from vigia.service.settings import Settings
from vigia.zones.catalogue import parse_feature_collection, zone_to_feature
from vigia.zones.model import Zone

router = APIRouter(tags=["zones"], dependencies=[Depends(require_role("viewer"))])
admin = [Depends(require_role("admin"))]

EXAMPLE_FEATURE: dict[str, Any] = {
    "type": "Feature",
    "id": "plat-p66",
    "geometry": {"type": "Point", "coordinates": [-40.05, -22.37]},
    "properties": {"id": "plat-p66", "kind": "platform", "name": "P-66", "version": 1},
}
EXAMPLE_COLLECTION: dict[str, Any] = {
    "type": "FeatureCollection",
    "features": [EXAMPLE_FEATURE],
    "numberMatched": 1,
    "numberReturned": 1,
    "links": [{"rel": "self", "href": "http://127.0.0.1:8000/collections/zones/items?limit=10"}],
}
_READ_ERRORS = problem_responses(400, 401, 403)
_WRITE_ERRORS = problem_responses(401, 403, 404, 413, 422)
_WRITE_ERRORS[422]["content"][PROBLEM_MEDIA_TYPE]["example"] |= {
    "type": "urn:vigia:problem:invalid-zone",
    "detail": "feature beach-x: unknown kind 'beach'",
    "feature": "beach-x",
    "reason": "unknown kind 'beach'",
}
_UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            GEOJSON_MEDIA_TYPE: {
                "schema": {"type": "object", "properties": {"type": {"type": "string"}}},
                "examples": {
                    "feature": {"summary": "one zone", "value": EXAMPLE_FEATURE},
                    "collection": {
                        "summary": "several zones",
                        "value": {"type": "FeatureCollection", "features": [EXAMPLE_FEATURE]},
                    },
                },
            },
            "application/json": {"schema": {"type": "object"}},
        },
    }
}


def _geojson_example(example: dict[str, Any]) -> dict[int | str, dict[str, Any]]:
    return {200: {"content": {GEOJSON_MEDIA_TYPE: {"example": example}}}}


def feature_of(zone: Zone) -> dict[str, Any]:
    """A zone as a GeoJSON Feature, with its version among the properties."""
    feature = zone_to_feature(zone)
    feature["id"] = zone.id
    feature.setdefault("properties", {})["version"] = zone.version
    return feature


def _overlaps(zone: Zone, start: float | None, end: float | None) -> bool:
    """Whether the zone is in force at some moment of [start, end] (None: open end)."""
    vf = None if zone.valid_from is None else zone.valid_from.timestamp()
    vt = None if zone.valid_to is None else zone.valid_to.timestamp()
    return (vf is None or end is None or vf <= end) and (vt is None or start is None or vt >= start)


@get_and_head(
    router,
    "/collections/zones/items",
    summary="List zones",
    response_class=GeoJSONResponse,
    responses={**_geojson_example(EXAMPLE_COLLECTION), **_READ_ERRORS},
    dependencies=[only_params("bbox", "datetime", "limit", "offset", *FILTER_PARAMS)],
)
def list_zone_items(
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    settings: Annotated[Settings, Depends(get_settings)],
    cql: CqlFilter,
    bbox: Annotated[str | None, Query(description=BBOX_DESCRIPTION)] = None,
    datetime: Annotated[
        str | None,
        Query(description="instant or interval (start/end, `..` open): zones in force then"),
    ] = None,
    limit: Annotated[int | None, Query(ge=1, le=100_000, description="page size")] = None,
    offset: Offset = 0,
) -> GeoJSONResponse:
    """Current zones as a GeoJSON FeatureCollection, filtered (``bbox``, ``datetime``, a
    CQL2 ``filter``) and paged."""
    box = parse_bbox(bbox)
    interval = parse_interval(datetime)
    size = clamp_limit(limit, settings)
    store = filtering_store(repo, cql)
    if store is not None:
        page, total = store.filtered_zones(box, interval, cql, size, offset)
    elif interval is not None and interval[0] != interval[1]:
        everything, _ = repo.list_zones(box, None, None)
        matched = [z for z in everything if _overlaps(z, *interval)]
        page, total = matched[offset : offset + size], len(matched)
    else:
        at = None if interval is None else interval[0]
        page, total = repo.list_zones(box, at, size, offset)
    return feature_page(request, [feature_of(z) for z in page], offset, size, total)


@get_and_head(
    router,
    "/collections/zones/items/{zone_id}",
    summary="One zone",
    response_class=GeoJSONResponse,
    responses={**_geojson_example(EXAMPLE_FEATURE), **problem_responses(400, 401, 403, 404)},
    dependencies=[only_params("version")],
)
def get_zone_item(
    request: Request,
    zone_id: Annotated[str, Path(max_length=200)],
    repo: Annotated[Repository, Depends(get_repository)],
    version: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> GeoJSONResponse:
    """The current version of one zone (or the version asked for)."""
    zone = repo.get_zone(zone_id, version)
    if zone is None:
        raise NotFoundError(f"no zone with id {zone_id!r}")
    base = str(request.base_url).rstrip("/")
    feature = feature_of(zone)
    feature["links"] = [
        {"rel": "self", "href": f"{base}/collections/zones/items/{zone.id}",
         "type": GEOJSON_MEDIA_TYPE},
        {"rel": "collection", "href": f"{base}/collections/zones", "type": "application/json"},
    ]  # fmt: skip
    return GeoJSONResponse(feature)


async def _read_upload(request: Request) -> dict[str, Any]:
    """The request body (already capped in bytes by the guard) as a checked JSON object."""
    return decode_upload(await request.body())


def _as_collection(obj: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """A Feature or FeatureCollection as a FeatureCollection within the size limits."""
    if obj.get("type") == "Feature":
        obj = {"type": "FeatureCollection", "features": [obj]}
    elif obj.get("type") != "FeatureCollection":
        raise RequestInvalidError("the body must be a GeoJSON Feature or FeatureCollection")
    features = obj.get("features")
    if not isinstance(features, list):
        raise RequestInvalidError("the FeatureCollection has no features list")
    api = settings.api
    if len(features) > api.max_upload_features:
        raise PayloadTooLargeError(
            f"the upload has {len(features)} features; the limit is {api.max_upload_features}"
        )
    check_zone_ids(features)
    vertices = sum(geometry_vertices(f.get("geometry")) for f in features if isinstance(f, dict))
    if vertices > api.max_upload_vertices:
        raise PayloadTooLargeError(
            f"the upload has {vertices} vertices; the limit is {api.max_upload_vertices}"
        )
    return obj


def _zones_changed(request: Request) -> None:
    hook = getattr(request.app.state, "on_zones_changed", None)
    if hook is not None:
        hook()


@router.post(
    "/collections/zones/items",
    summary="Create or replace zones (admin)",
    status_code=201,
    response_class=GeoJSONResponse,
    dependencies=admin,
    openapi_extra=_UPLOAD_BODY,
    responses={
        201: {"content": {GEOJSON_MEDIA_TYPE: {"example": EXAMPLE_COLLECTION}}},
        **_WRITE_ERRORS,
    },
)
async def create_zone_items(
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    settings: Annotated[Settings, Depends(get_settings)],
) -> GeoJSONResponse:
    """Add a Feature or a FeatureCollection of zones; an existing id gets a new version."""
    obj = await _read_upload(request)
    # validation, the store and the worker's index rebuild block: keep them off the loop
    stored = await run_in_threadpool(_create, request, repo, settings, obj)
    body = {
        "type": "FeatureCollection",
        "features": [feature_of(z) for z in stored],
        "numberReturned": len(stored),
    }
    headers = {}
    if len(stored) == 1:
        headers["Location"] = public_href(
            request, f"/collections/zones/items/{quote(stored[0].id, safe='')}"
        )
    return GeoJSONResponse(body, status_code=201, headers=headers)


def _create(
    request: Request, repo: Repository, settings: Settings, obj: dict[str, Any]
) -> list[Zone]:
    zones = parse_feature_collection(_as_collection(obj, settings), file=None)
    stored = repo.put_zones(zones)
    _zones_changed(request)
    return stored


@router.put(
    "/collections/zones/items/{zone_id}",
    summary="Replace a zone (admin)",
    response_class=GeoJSONResponse,
    dependencies=admin,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                GEOJSON_MEDIA_TYPE: {"schema": {"type": "object"}, "example": EXAMPLE_FEATURE}
            },
        }
    },
    responses={**_geojson_example(EXAMPLE_FEATURE), **_WRITE_ERRORS},
)
async def replace_zone_item(
    zone_id: Annotated[str, Path(max_length=200)],
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    settings: Annotated[Settings, Depends(get_settings)],
) -> GeoJSONResponse:
    """Replace one zone with a Feature; the zone gets a new version."""
    check_zone_id(zone_id)
    obj = await _read_upload(request)
    stored = await run_in_threadpool(_replace, request, repo, settings, zone_id, obj)
    return GeoJSONResponse(feature_of(stored))


def _replace(
    request: Request, repo: Repository, settings: Settings, zone_id: str, obj: dict[str, Any]
) -> Zone:
    if obj.get("type") != "Feature":
        raise RequestInvalidError("PUT takes one GeoJSON Feature")
    props = obj.get("properties")
    if isinstance(props, dict):
        if props.get("id") is None:
            obj = {**obj, "properties": {**props, "id": zone_id}}
        elif props.get("id") != zone_id:
            raise RequestInvalidError(
                f"the feature's id {props.get('id')!r} differs from the path's {zone_id!r}"
            )
    collection = _as_collection(obj, settings)
    zones = parse_feature_collection(collection, file=None)
    if repo.get_zone(zone_id) is None:
        raise NotFoundError(f"no zone with id {zone_id!r}")
    stored = repo.put_zones(zones)
    _zones_changed(request)
    return stored[0]


@router.delete(
    "/collections/zones/items/{zone_id}",
    summary="Retire a zone (admin)",
    status_code=204,
    response_class=Response,
    dependencies=admin,
    responses={204: {"description": "retired"}, **problem_responses(401, 403, 404)},
)
def delete_zone_item(
    zone_id: Annotated[str, Path(max_length=200)],
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
) -> Response:
    """Retire a zone; its versions stay for the leads that cite them."""
    if not repo.delete_zone(zone_id):
        raise NotFoundError(f"no zone with id {zone_id!r}")
    _zones_changed(request)
    return Response(status_code=204)
