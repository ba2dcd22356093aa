"""OGC API - Features, Part 1 core: landing page, API document, conformance, and the
``zones``, ``leads`` and ``vessels`` collections, and the leads' items (the zones' items
live in ``zones.py``, the vessels' in ``ogc_vessels.py``).

Invalid query parameters on these routes are 400 (Part 1, /req/core/query-param-invalid
and query-param-unknown), not the 422 the rest of the API uses; ``problems.py`` maps
them. GIS clients that cannot set ``X-API-Key`` send ``Authorization: Bearer <key>``.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from vigia.alerts.lead import Lead
from vigia.ingest.records import iso_utc
from vigia.service.db.layers import LayerStore
from vigia.service.db.protocol import LeadQuery, Repository, Scope
from vigia.service.errors import NotFoundError, RequestInvalidError
from vigia.service.http.deps import get_repository, require_role, require_scope
from vigia.service.http.openapi30 import OPENAPI_30_MEDIA_TYPE, openapi_30
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.filtering import FILTER_CONFORMANCE, FILTER_PARAMS, CqlFilter
from vigia.service.http.routes.leads import ASSIGNEE, RULE_CODES, Status
from vigia.service.http.routes.paging import Cursor, cursor_links, decode_cursor
from vigia.service.http.routes.params import (
    BBOX_DESCRIPTION,
    GEOJSON_MEDIA_TYPE,
    GeoJSONResponse,
    clamp_limit,
    get_and_head,
    get_settings,
    parse_bbox,
    parse_interval,
    public_base,
)
from vigia.service.http.routes.queryables import QUERYABLES_REL, SCHEMA_MEDIA_TYPE
from vigia.service.settings import Settings

router = APIRouter(tags=["ogc"], dependencies=[Depends(require_role("viewer"))])
CONFORMANCE = [
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
    "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/create-replace-delete",
    *FILTER_CONFORMANCE,
]
JSON = "application/json"
CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
LAYERS = {
    "zones": ("NORMAM-07 zones", "Areas closed to traffic; every edit makes a new version"),
    "leads": (
        "Infraction leads",
        "One episode of one vessel breaking one rule, at its closest point",
    ),
    "vessels": ("Vessels", "Each vessel's latest position with its static data (name, type, size)"),
}
ViewerScope = Annotated[Scope, Depends(require_scope("viewer"))]
_READ = problem_responses(400, 401, 403)
_ONE = problem_responses(400, 401, 403, 404)
#: the query parameters of the leads' items (each a filter of GET /leads as well)
LEAD_PARAMS = ("bbox", "datetime", "rule", "status", "assignee", "limit", "offset", "cursor")


def _base(request: Request) -> str:
    # the configured public URL, never the Host header (issue 15 item 9)
    return public_base(request)


def only_params(*allowed: str) -> Any:
    """A dependency refusing query parameters the route does not define (OGC: 400)."""
    known = {*allowed, "f"}

    def check(request: Request) -> None:
        unknown = sorted(set(request.query_params) - known)
        if unknown:
            raise RequestInvalidError(f"unknown query parameter(s): {', '.join(unknown)}")

    return Depends(check)


def filtering_store(repo: Repository, cql: object) -> LayerStore | None:
    """The SQL store that runs filters (None when there is no filter to run and the
    store is another kind); a filter on a store that cannot run it is refused."""
    if isinstance(repo, LayerStore):
        return repo
    if cql is not None:
        raise RequestInvalidError("this store cannot run a CQL2 filter")
    return None


def _json(example: dict[str, Any], media: str = "application/json") -> dict[int | str, Any]:
    return {200: {"content": {media: {"example": example}}}}


@router.get("/", summary="Landing page", responses=_json({"title": "Vigia", "links": []}))
def landing(request: Request) -> dict[str, Any]:
    """Links to the API description, conformance and collections."""
    base = _base(request)
    return {
        "title": "Vigia",
        "description": "AIS watch over NORMAM-07 closed areas and NORMAM-20 ballast rules",
        "links": [
            {"rel": "self", "href": f"{base}/", "type": "application/json"},
            {"rel": "service-desc", "href": f"{base}/api", "type": OPENAPI_30_MEDIA_TYPE},
            {"rel": "service-desc", "href": f"{base}/openapi.json", "type": "application/json"},
            {"rel": "service-doc", "href": f"{base}/docs", "type": "text/html"},
            {"rel": "conformance", "href": f"{base}/conformance", "type": "application/json"},
            {"rel": "data", "href": f"{base}/collections", "type": "application/json"},
        ],
    }


@router.get(
    "/api",
    summary="The API definition (OpenAPI 3.0)",
    responses=_json({"openapi": "3.0.3"}, OPENAPI_30_MEDIA_TYPE),
)
def api_document(request: Request) -> JSONResponse:
    """The OpenAPI document as 3.0, served with the media type OGC API Part 1 names."""
    return JSONResponse(openapi_30(request.app.openapi()), media_type=OPENAPI_30_MEDIA_TYPE)


@router.get("/conformance", summary="Conformance classes", responses=_json({"conformsTo": []}))
def conformance() -> dict[str, Any]:
    """The OGC API - Features conformance classes implemented (each tested with GDAL
    and OWSLib in the suite)."""
    return {"conformsTo": CONFORMANCE}


def _extent(repo: Repository, layer: str, scope: Scope) -> dict[str, Any]:
    store = repo if isinstance(repo, LayerStore) else None
    bbox, span = (None, None) if store is None else store.layer_extent(layer, scope)
    out: dict[str, Any] = {
        "spatial": {"bbox": [list(bbox or (-180.0, -90.0, 180.0, 90.0))], "crs": CRS84}
    }
    interval = [None, None] if span is None else [iso_utc(span[0]), iso_utc(span[1])]
    out["temporal"] = {"interval": [interval]}
    return out


def collection_json(request: Request, repo: Repository, layer: str, scope: Scope) -> dict[str, Any]:
    """One collection's metadata, with its extent and links."""
    base = _base(request)
    title, description = LAYERS[layer]
    href = f"{base}/collections/{layer}"
    return {
        "id": layer,
        "title": title,
        "description": description,
        "itemType": "feature",
        "crs": [CRS84],
        "extent": _extent(repo, layer, scope),
        "links": [
            {"rel": "self", "href": href, "type": "application/json"},
            {"rel": "items", "href": f"{href}/items", "type": GEOJSON_MEDIA_TYPE},
            {"rel": QUERYABLES_REL, "href": f"{href}/queryables", "type": SCHEMA_MEDIA_TYPE},
            # the draft's relation, the one GDAL's OAPIF driver reads the queryables from
            {"rel": "queryables", "href": f"{href}/queryables", "type": JSON},
        ],
    }


@router.get("/collections", summary="Collections", responses=_json({"collections": []}))
def collections(
    request: Request, repo: Annotated[Repository, Depends(get_repository)], scope: ViewerScope
) -> dict[str, Any]:
    """Every feature collection: zones, leads, vessels."""
    return {
        "collections": [collection_json(request, repo, layer, scope) for layer in LAYERS],
        "links": [
            {"rel": "self", "href": f"{_base(request)}/collections", "type": "application/json"}
        ],
    }


@router.get(
    "/collections/{layer}", summary="One collection", responses={**_json({"id": "leads"}), **_ONE}
)
def collection(
    request: Request,
    layer: Annotated[str, Path(max_length=64)],
    repo: Annotated[Repository, Depends(get_repository)],
    scope: ViewerScope,
) -> dict[str, Any]:
    """Metadata of one collection."""
    if layer not in LAYERS:
        raise NotFoundError(f"no collection {layer!r}; there are {', '.join(LAYERS)}")
    return collection_json(request, repo, layer, scope)


def lead_feature(lead: Lead, base: str) -> dict[str, Any]:
    """A lead as a Feature at its closest point, its properties the lead fields
    (CONTRACT.md section 8: the evidence too; the raw sentences stay with the lead);
    the evidence as GeoJSON is one link away."""
    props = lead.to_json()
    props["evidence_points"] = len(props["evidence"])
    props.pop("raw_sentences")
    href = f"{base}/collections/leads/items/{lead.id}"
    return {
        "type": "Feature",
        "id": lead.id,
        "geometry": {"type": "Point", "coordinates": [lead.closest_lon, lead.closest_lat]},
        "properties": props,
        "links": [
            {"rel": "self", "href": href, "type": GEOJSON_MEDIA_TYPE},
            {"rel": "collection", "href": f"{base}/collections/leads", "type": "application/json"},
            {"rel": "alternate", "href": f"{base}/leads/{lead.id}/evidence",
             "type": GEOJSON_MEDIA_TYPE, "title": "the evidence"},
        ],
    }  # fmt: skip


@get_and_head(
    router,
    "/collections/leads/items",
    summary="Leads as features",
    response_class=GeoJSONResponse,
    responses={**_json({"type": "FeatureCollection"}, GEOJSON_MEDIA_TYPE), **_READ},
    dependencies=[only_params(*LEAD_PARAMS, *FILTER_PARAMS)],
)
async def lead_items(
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    settings: Annotated[Settings, Depends(get_settings)],
    scope: ViewerScope,
    cql: CqlFilter,
    bbox: Annotated[str | None, Query(description=BBOX_DESCRIPTION)] = None,
    datetime: Annotated[
        str | None, Query(description="instant or interval (start/end, `..` open)")
    ] = None,
    rule: Annotated[str | None, Query(max_length=64)] = None,
    status: Annotated[Status | None, Query()] = None,
    assignee: Annotated[str | None, Query(max_length=200, description=ASSIGNEE)] = None,
    limit: Annotated[int | None, Query(ge=1, le=100_000)] = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    cursor: Cursor = None,
) -> GeoJSONResponse:
    """Leads at their closest point, newest first, filtered by bbox, time, rule, status,
    assigned officer and a CQL2 ``filter`` (whose ``assignee`` is the same officer). The
    ``next`` link carries a cursor (keyset paging: a deep page costs what the first
    does); ``numberMatched`` is given only when exact. A ``cursor`` the server did not
    write is a 400 problem."""
    if rule is not None and rule not in RULE_CODES:
        raise RequestInvalidError(f"unknown rule {rule!r}")
    interval = parse_interval(datetime) or (None, None)
    query = LeadQuery(
        rule=rule,
        status=status,
        start=interval[0],
        end=interval[1],
        bbox=parse_bbox(bbox),
        assignee=assignee,
    )
    size = clamp_limit(limit, settings)
    store = filtering_store(repo, cql)
    after = decode_cursor(cursor, "newest")
    page = (
        partial(repo.page_leads, query, size, scope=scope, after=after, offset=offset)
        if store is None
        else partial(store.page_leads, query, size, scope=scope, after=after, offset=offset,
                     cql=cql)
    )  # fmt: skip
    got = await anyio.to_thread.run_sync(page)
    base = _base(request)
    body: dict[str, Any] = {
        "type": "FeatureCollection",
        "features": [lead_feature(x, base) for x in got.leads],
    }
    if got.exact:  # OGC: numberMatched only when it is the true number
        body["numberMatched"] = got.total
    body["numberReturned"] = len(got.leads)
    body["timeStamp"] = iso_utc(time.time())
    body["links"] = cursor_links(request, got, "newest", size, offset)
    return GeoJSONResponse(body)


@get_and_head(
    router,
    "/collections/leads/items/{lead_id}",
    summary="One lead as a feature",
    response_class=GeoJSONResponse,
    responses={**_json({"type": "Feature"}, GEOJSON_MEDIA_TYPE), **_ONE},
    dependencies=[only_params()],
)
def lead_item(
    request: Request,
    lead_id: Annotated[str, Path(max_length=200)],
    repo: Annotated[Repository, Depends(get_repository)],
    scope: ViewerScope,
) -> GeoJSONResponse:
    """One lead at its closest point."""
    lead = repo.get_lead(lead_id, scope)
    if lead is None:
        raise NotFoundError(f"no lead with id {lead_id!r}")
    return GeoJSONResponse(lead_feature(lead, _base(request)))
