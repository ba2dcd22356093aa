"""Queryables of the OGC API collections (OGC API - Features Part 3, "Queryables"): a
JSON Schema per collection naming the properties a CQL2 ``filter`` on its items may use.

Exactly the columns the stores translate a filter onto are listed (``LAYER_FIELDS`` in
``service/db/layers.py``; ``additionalProperties: false``), so a client such as QGIS,
GDAL or OWSLib offers only what runs on the server.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse

from vigia.alerts.procedure.register import offices
from vigia.alerts.procedure.workflow import STATES
from vigia.service.errors import NotFoundError
from vigia.service.http.deps import require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.leads import RULE_CODES
from vigia.service.http.routes.params import public_base
from vigia.zones.model import ZoneKind

router = APIRouter(tags=["ogc"], dependencies=[Depends(require_role("viewer"))])
SCHEMA_MEDIA_TYPE = "application/schema+json"
#: the link relation a collection uses to point at its queryables (Part 3)
QUERYABLES_REL = "http://www.opengis.net/def/rel/ogc/1.0/queryables"
JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def _instant(title: str, role: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"title": title, "type": "string", "format": "date-time"}
    if role is not None:
        entry["x-ogc-role"] = role
    return entry


def _typed(title: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"title": title, "type": kind, **extra}


def _geometry(kind: str, title: str) -> dict[str, Any]:
    return {"title": title, "format": f"geometry-{kind}", "x-ogc-role": "primary-geometry"}


# No interval roles on zones and leads: a client such as GDAL turns a `-where` on a
# property with the role `primary-interval-start` into `datetime=X/..`, which keeps the
# episodes or validity windows overlapping X, including those that began before it. As
# plain date-times, a comparison on them goes to the server as a CQL2 `filter` and runs
# exactly. `datetime` still keeps what overlaps it (docs/live-delivery.md).
QUERYABLES: dict[str, tuple[str, dict[str, dict[str, Any]]]] = {
    "zones": (
        "NORMAM-07 zones",
        {
            "geometry": _geometry("any", "the zone's area, line or point"),
            "id": _typed("zone id", "string"),
            "kind": _typed("kind of zone", "string", enum=[k.value for k in ZoneKind]),
            "name": _typed("name", "string"),
            "version": _typed("version", "integer"),
            "valid_from": _instant("in force from"),
            "valid_to": _instant("in force until"),
        },
    ),
    "leads": (
        "Infraction leads",
        {
            "geometry": _geometry("point", "the closest point to the zone"),
            "started_at": _instant("episode start"),
            "ended_at": _instant("episode end (none while open)"),
            "closest_t": _instant("time of the closest point"),
            "rule": _typed("rule broken", "string", enum=list(RULE_CODES)),
            "status": _typed("procedure state", "string", enum=list(STATES)),
            "mmsi": _typed("vessel MMSI", "integer"),
            "zone_id": _typed("zone id (none for rules without a zone)", "string"),
            # the register's offices, so a client can offer every one (a page's filter
            # reached only the authorities of the leads it had loaded); a jurisdiction
            # zone an admin uploads may route to a name outside it, so this is no closed
            # list for filters, which take any name
            "authority": _typed(
                "office the lead is routed to (the register's offices listed)",
                "string",
                examples=sorted({o.name for o in offices()}),
            ),
            "min_distance_m": _typed("closest distance to the zone, metres", "number"),
            "max_sog_kn": _typed("highest speed over ground, knots", "number"),
            "assignee": _typed("officer assigned (procedure.assignment.officer)", "string"),
        },
    ),
    "vessels": (
        "Vessels",
        {
            "geometry": _geometry("point", "the latest position"),
            # a vessel feature is the vessel at its latest position, an instant: `datetime`
            # keeps the vessels last seen then, which is exactly `t` in the interval
            "t": _instant("time of the latest position", "primary-instant"),
            "mmsi": _typed("MMSI", "integer"),
            "name": _typed("name", "string"),
            "ship_type": _typed("ship type (ITU-R M.1371)", "integer"),
            "sog": _typed("speed over ground, knots", "number"),
            "cog": _typed("course over ground, degrees", "number"),
            "heading": _typed("true heading, degrees", "integer"),
            "nav_status": _typed("navigational status", "integer"),
        },
    ),
}


def queryables_json(base: str, layer: str) -> dict[str, Any]:
    """The queryables document of ``layer``."""
    title, properties = QUERYABLES[layer]
    return {
        "$schema": JSON_SCHEMA_2020_12,
        "$id": f"{base}/collections/{layer}/queryables",
        "type": "object",
        "title": title,
        "properties": properties,
        "additionalProperties": False,
        # the draft's list of queryables, where GDAL's OAPIF driver (3.12 still) looks for
        # the properties it may send in a filter; JSON Schema ignores the extra keyword
        "queryables": [{"id": name} for name in properties],
    }


@router.get(
    "/collections/{layer}/queryables",
    summary="Queryables of one collection",
    responses={
        200: {"content": {SCHEMA_MEDIA_TYPE: {"example": {"type": "object"}}}},
        **problem_responses(401, 403, 404),
    },
)
def queryables(request: Request, layer: Annotated[str, Path(max_length=64)]) -> JSONResponse:
    """The properties a collection's items can be filtered on, as JSON Schema."""
    if layer not in QUERYABLES:
        raise NotFoundError(f"no collection {layer!r}; there are {', '.join(QUERYABLES)}")
    return JSONResponse(queryables_json(public_base(request), layer), media_type=_media(request))


def _media(request: Request) -> str:
    """JSON Schema's media type, or plain JSON for a client that accepts only that
    (GDAL's OAPIF driver drops a queryables document of any other type)."""
    accept = request.headers.get("accept", "")
    if "application/json" in accept and not any(
        kind in accept for kind in (SCHEMA_MEDIA_TYPE, "*/*", "application/*")
    ):
        return "application/json"
    return SCHEMA_MEDIA_TYPE
