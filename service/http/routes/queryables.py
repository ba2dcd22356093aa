"""Queryables of the OGC API collections (OGC API - Features Part 3, "Queryables" and
"Queryables as query parameters"): a JSON Schema per collection naming the properties its
items can be filtered on, and which query parameter filters each one.

Only what the items route really filters on is listed (``additionalProperties: false``):
the geometry (``bbox``), the temporal property that ``datetime`` is compared with, and the
leads' ``rule`` and ``status``. A client such as QGIS or OWSLib offers exactly these.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse

from vigia.alerts.procedure.workflow import STATES
from vigia.service.errors import NotFoundError
from vigia.service.http.deps import require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.leads import RULE_CODES
from vigia.service.http.routes.params import public_base

router = APIRouter(tags=["ogc"], dependencies=[Depends(require_role("viewer"))])
SCHEMA_MEDIA_TYPE = "application/schema+json"
#: the link relation a collection uses to point at its queryables (Part 3)
QUERYABLES_REL = "http://www.opengis.net/def/rel/ogc/1.0/queryables"
JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def _instant(title: str, role: str, parameter: str = "datetime") -> dict[str, Any]:
    return {
        "title": title,
        "type": "string",
        "format": "date-time",
        "x-ogc-role": role,
        "description": f"filtered by `{parameter}`",
    }


def _geometry(kind: str, title: str) -> dict[str, Any]:
    return {
        "title": title,
        "format": f"geometry-{kind}",
        "x-ogc-role": "primary-geometry",
        "description": "filtered by `bbox`",
    }


QUERYABLES: dict[str, tuple[str, dict[str, dict[str, Any]]]] = {
    "zones": (
        "NORMAM-07 zones",
        {
            "geometry": _geometry("any", "the zone's area, line or point"),
            # `datetime` keeps the zones in force at some moment of it
            "valid_from": _instant("in force from", "primary-interval-start"),
            "valid_to": _instant("in force until", "primary-interval-end"),
        },
    ),
    "leads": (
        "Infraction leads",
        {
            "geometry": _geometry("point", "the closest point to the zone"),
            # `datetime` keeps the episodes overlapping it
            "started_at": _instant("episode start", "primary-interval-start"),
            "ended_at": _instant("episode end (none while open)", "primary-interval-end"),
            "rule": {
                "title": "rule broken",
                "type": "string",
                "enum": list(RULE_CODES),
                "description": "filtered by `rule`",
            },
            "status": {
                "title": "procedure state",
                "type": "string",
                "enum": list(STATES),
                "description": "filtered by `status`",
            },
        },
    ),
    "vessels": (
        "Vessels",
        {
            "geometry": _geometry("point", "the latest position"),
            # a vessel feature is the vessel at its latest position: `datetime` keeps the
            # vessels last seen then (docs/live-delivery.md)
            "t": _instant("time of the latest position", "primary-instant"),
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
    return JSONResponse(queryables_json(public_base(request), layer), media_type=SCHEMA_MEDIA_TYPE)
