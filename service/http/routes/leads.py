"""Leads: a filtered, paged list, one lead, and its evidence as GeoJSON."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response

from vigia.alerts.gaps.shape import reach_ring
from vigia.alerts.lead import Lead
from vigia.alerts.procedure.workflow import STATES
from vigia.alerts.rules import CITATIONS
from vigia.ingest.records import iso_utc
from vigia.service.db.protocol import LeadQuery, Repository, Scope
from vigia.service.errors import PermissionDeniedError, RequestInvalidError
from vigia.service.http.deps import get_repository, require_role, require_scope
from vigia.service.http.doubts import page_doubts
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.paging import Cursor, cursor_links, decode_cursor
from vigia.service.http.routes.params import (
    BBOX_DESCRIPTION,
    GEOJSON_MEDIA_TYPE,
    MAX_OFFSET,
    TIME_DESCRIPTION,
    GeoJSONResponse,
    LeadId,
    check_order,
    clamp_limit,
    get_settings,
    parse_bbox,
    parse_time,
)
from vigia.service.http.routes.procedure import case_json, found, with_etag
from vigia.service.settings import Settings

viewer = require_role("viewer")
router = APIRouter(tags=["leads"], dependencies=[Depends(viewer)])
ViewerScope = Annotated[Scope, Depends(require_scope("viewer"))]

EXAMPLE_LEAD: dict[str, Any] = {
    "id": "L-3f9c2a1b7d4e5f60",
    "mmsi": 710000001,
    "vessel": {"name": "MARIA DO MAR", "ship_type": 30, "length_m": 18.0, "flag_mid": 710},
    "rule": "SEC-PLATFORM",
    "citation": "NORMAM-07/DPC 0212 f)",
    "zone_id": "plat-p66",
    "zone_kind": "platform",
    "zone_version": 1,
    "started_at": "2024-03-01T12:00:00Z",
    "ended_at": "2024-03-01T12:20:00Z",
    "min_distance_m": 212.4,
    "max_sog_kn": 6.1,
    "closest_point": {"type": "Point", "coordinates": [-40.051, -22.371]},
    "evidence": [
        {
            "t": "2024-03-01T12:00:00Z",
            "lon": -40.055,
            "lat": -22.37,
            "sog": 6.1,
            "cog": 80.0,
            "nav_status": 0,
        }
    ],
    "authority": "Capitania dos Portos do Rio de Janeiro",
    "status": "new",
}
EXAMPLE_PAGE: dict[str, Any] = {
    "leads": [EXAMPLE_LEAD],
    "numberMatched": 1,
    "numberMatchedExact": True,
    "numberReturned": 1,
    "links": [{"rel": "self", "href": "http://127.0.0.1:8000/leads?rule=SEC-PLATFORM"}],
}
EXAMPLE_EVIDENCE: dict[str, Any] = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [-40.055, -22.37]},
            "properties": {"kind": "evidence", "t": "2024-03-01T12:00:00Z", "sog": 6.1},
        }
    ],
    "properties": {"lead_id": "L-3f9c2a1b7d4e5f60", "rule": "SEC-PLATFORM"},
}
# every rule the pipeline raises has its citation, the ballast ones included: listing them
# again here named BW-EXCH-200 and BW-EXCH-50 twice (queryables, error messages)
RULE_CODES = tuple(CITATIONS)
#: the ``assignee`` filter, on GET /leads and the OGC leads' items alike
ASSIGNEE = (
    "the officer the lead is assigned to (`procedure.assignment.officer`, PUT "
    "/leads/{lead_id}/assignment): a duty officer's own leads"
)
Status = Literal[STATES]  # type: ignore[valid-type]


def evidence_geojson(lead: Lead) -> dict[str, Any]:
    """The episode as GeoJSON: its path, each evidence point, and the closest approach."""
    features: list[dict[str, Any]] = []
    # a silence (AIS-GAP) was not sailed as seen: its line is "silence", drawn dashed,
    # and the area it could reach in its time is given too (docs/gaps.md)
    silent = lead.rule == "AIS-GAP" and len(lead.evidence) == 2
    if len(lead.evidence) >= 2:
        features.append(
            {
                "type": "Feature",
                "geometry": {
                    "type": "LineString",
                    "coordinates": [[e.lon, e.lat] for e in lead.evidence],
                },
                "properties": {"kind": "silence" if silent else "path",
                               "points": len(lead.evidence)},
            }
        )  # fmt: skip
    if silent and isinstance(lead.details.get("reach_m"), int | float):
        a, b = lead.evidence
        ring = reach_ring((a.lon, a.lat), (b.lon, b.lat), float(lead.details["reach_m"]))
        features.append(
            {
                "type": "Feature",
                "geometry": {"type": "Polygon", "coordinates": [ring]},
                "properties": {"kind": "reach", "reach_m": lead.details["reach_m"]},
            }
        )
    for e in lead.evidence:
        features.append(
            {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [e.lon, e.lat]},
                "properties": {"kind": "evidence", **e.to_json()},
            }
        )
    features.append(
        {
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [lead.closest_lon, lead.closest_lat]},
            "properties": {
                "kind": "closest_point",
                "t": iso_utc(lead.closest_t),
                "distance_m": round(lead.min_distance_m, 1),
            },
        }
    )
    summary = {k: v for k, v in lead.to_json().items() if k not in ("evidence", "raw_sentences")}
    return {
        "type": "FeatureCollection",
        "features": features,
        "properties": {"lead_id": lead.id, **summary},
    }


@router.get(
    "/leads",
    summary="List leads",
    responses={
        200: {"content": {"application/json": {"example": EXAMPLE_PAGE}}},
        **problem_responses(400, 401, 403, 422),
    },
)
def list_leads(
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    settings: Annotated[Settings, Depends(get_settings)],
    scope: ViewerScope,
    rule: Annotated[str | None, Query(max_length=64, examples=["SEC-PLATFORM"])] = None,
    zone_id: Annotated[str | None, Query(max_length=200)] = None,
    mmsi: Annotated[int | None, Query(ge=0, le=999_999_999)] = None,
    status: Annotated[Status | None, Query(examples=["new"])] = None,
    start: Annotated[
        str | None, Query(description="leads still going on at or after this; " + TIME_DESCRIPTION)
    ] = None,
    end: Annotated[
        str | None, Query(description="leads started at or before this; " + TIME_DESCRIPTION)
    ] = None,
    bbox: Annotated[
        str | None, Query(description="on the closest point; " + BBOX_DESCRIPTION)
    ] = None,
    limit: Annotated[int | None, Query(ge=1, le=100_000)] = None,
    offset: Annotated[
        int, Query(ge=0, le=MAX_OFFSET, description="items to skip (old clients: follow `next`)")
    ] = 0,
    cursor: Cursor = None,
    authority: Annotated[
        str | None, Query(max_length=200, description="the Capitania / Delegacia / Agência")
    ] = None,
    assignee: Annotated[
        str | None, Query(max_length=200, description=ASSIGNEE, examples=["inspector-silva"])
    ] = None,
    sort: Annotated[
        Literal["newest", "due"],
        Query(description="`due`: soonest pending procedural deadline first"),
    ] = "newest",
    silenced: Annotated[
        bool, Query(description="include leads raised inside an inspector's silence")
    ] = False,
) -> dict[str, Any]:
    """Leads, newest first (or soonest deadline first), filtered by rule, zone, vessel,
    status, authority, assigned officer, time and bbox. A key limited to one authority
    sees only its own.

    Pages are read with cursors: follow the `next` link (its `cursor` is the last lead's
    sort key), and every page costs what the first does. `numberMatched` is exact when
    `numberMatchedExact` is true, else an estimate (docs/contract.md). A `cursor` the
    server did not write for this `sort` is a 400 problem."""
    check_authority(scope, authority)
    if rule is not None and rule not in RULE_CODES:
        # a mistyped code would otherwise look like "no leads", which misleads an inspector
        raise RequestInvalidError(f"unknown rule {rule!r}; known rules: {', '.join(RULE_CODES)}")
    t0, t1 = parse_time(start, "start"), parse_time(end, "end")
    check_order(t0, t1)
    query = LeadQuery(
        rule=rule,
        zone_id=zone_id,
        mmsi=mmsi,
        status=status,
        start=t0,
        end=t1,
        bbox=parse_bbox(bbox),
        authority=authority,
        assignee=assignee,
        include_silenced=silenced,
        sort=sort,
    )
    size = clamp_limit(limit, settings)
    after = decode_cursor(cursor, sort)
    page = repo.page_leads(query, size, scope=scope, after=after, offset=offset)
    items = [lead.to_json() for lead in page.leads]
    # a lead GNSS interference put where it is says so on the list too (issue 34)
    for item, marks in zip(items, page_doubts(repo, page.leads, scope), strict=True):
        if marks:
            item["interference"] = marks
    return {
        "leads": items,
        "numberMatched": page.total,
        "numberMatchedExact": page.exact,
        "numberReturned": len(page.leads),
        "links": cursor_links(request, page, sort, size, offset, "application/json"),
    }


def check_authority(scope: Scope, authority: str | None) -> None:
    """Refuse (403) a filter naming an authority outside the caller's scope: asking for
    another Capitania's leads is an error, not an empty answer."""
    if not scope.admits(authority if authority is not None else scope.authority):
        raise PermissionDeniedError(f"this key sees only {scope.authority!r} leads")


@router.get(
    "/leads/{lead_id}",
    summary="One lead",
    responses={
        200: {
            "content": {
                "application/json": {"example": EXAMPLE_LEAD},
                GEOJSON_MEDIA_TYPE: {"example": EXAMPLE_EVIDENCE},
            }
        },
        **problem_responses(401, 403, 404),
    },
)
def get_lead(
    lead_id: LeadId,
    repo: Annotated[Repository, Depends(get_repository)],
    scope: ViewerScope,
    f: Annotated[
        Literal["json", "geojson"] | None,
        Query(description="`geojson` for the evidence as a FeatureCollection"),
    ] = None,
) -> Response:
    """The lead JSON (docs/contract.md, section 3), or its evidence as GeoJSON (f=geojson)."""
    lead = found(repo.get_lead(lead_id, scope), lead_id)
    if f == "geojson":
        return with_etag(GeoJSONResponse(evidence_geojson(lead)), lead)
    return with_etag(JSONResponse(case_json(repo, lead, scope)), lead)


@router.get(
    "/leads/{lead_id}/evidence",
    summary="A lead's evidence as GeoJSON",
    response_class=GeoJSONResponse,
    responses={
        200: {"content": {GEOJSON_MEDIA_TYPE: {"example": EXAMPLE_EVIDENCE}}},
        **problem_responses(401, 403, 404),
    },
)
def lead_evidence(
    lead_id: LeadId, repo: Annotated[Repository, Depends(get_repository)], scope: ViewerScope
) -> GeoJSONResponse:
    """The episode's path, evidence points and closest approach as a FeatureCollection."""
    return GeoJSONResponse(evidence_geojson(found(repo.get_lead(lead_id, scope), lead_id)))
