"""``POST /zones/imports`` (admin): one source of ``vigia zones import`` uploaded as the
request body, imported into the store exactly as the command does (docs/zones-import.md).

The body is the file itself (bounded by ``VIGIA_API_MAX_UPLOAD_BYTES`` like every
upload); ``name`` says what it is by its suffix: a register (``.csv``), a GeoJSON layer
extract (``CELL_CLASS.geojson``) or a zip of S-57 cells (``.zip``, unpacking to at most
:data:`MAX_UNZIPPED_BYTES`), sent base64-encoded (RFC 4648) because the request guard
admits no NUL byte in any body. The name is the register's scope, so uploading a
register of the same name again replaces what the last upload of it made.
"""

from __future__ import annotations

import base64
import binascii
import tempfile
from pathlib import Path as FsPath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from vigia.service.db.protocol import Repository
from vigia.service.errors import RequestInvalidError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.registers import changed
from vigia.service.runtime.zone_import import store_import
from vigia.zones.importer import import_sources, parse_edition

router = APIRouter(tags=["zones"], dependencies=[Depends(require_role("admin"))])
#: a zip of cells may unpack to this much (an ENC cell is at most 5 MB: S-57 Appendix
#: B.1, 5.5); more is a zip bomb, not an exchange set
MAX_UNZIPPED_BYTES = 100_000_000
#: a file name: no folders, no leading dot, a known suffix
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.(csv|geojson|zip)$"
_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "text/csv": {
                "schema": {"type": "string"},
                "example": "kind,name,lat,lon,operator,status,source,date\n"
                "platform,P-66,-22.37,-40.05,Petrobras,producing,ANP SIGEP,2026-12-01\n",
            },
            "application/geo+json": {"schema": {"type": "object"}},
            "text/plain": {
                "schema": {"type": "string", "contentEncoding": "base64"},
                "example": "UEsDBBQAAAAIAA...",
            },
        },
    }
}


#: a register of two platforms imported once, one row without a position skipped
_EXAMPLE: dict[str, Any] = {
    "zones": 2,
    "skipped": [{"where": "platforms.csv row 4", "reason": "no position"}],
    "counts": {"added": 2, "updated": 0, "unchanged": 0, "retired": 0, "kept_edited": 0,
               "kept_foreign": 0},
    "added": ["platform-p-70", "platform-p-71"], "updated": [], "unchanged": [],
    "retired": [], "kept_edited": [], "kept_foreign": [],
}  # fmt: skip


@router.post(
    "/zones/imports",
    summary="Import zones from a chart or register file (admin)",
    openapi_extra=_BODY,
    responses={
        200: {"content": {"application/json": {"example": _EXAMPLE}}},
        **problem_responses(401, 403, 409, 413, 422),
    },
)
async def import_zones(
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    name: Annotated[
        str,
        Query(
            pattern=NAME_PATTERN,
            description="the file's name: platforms.csv, BR323000_ACHARE.geojson, cells.zip",
        ),
    ],
    force: Annotated[bool, Query(description="replace zones edited by hand too")] = False,
    edition: Annotated[
        list[str] | None,
        Query(max_length=50, description="CELL=EDITION:YYYY-MM-DD for extracts"),
    ] = None,
    date: Annotated[
        str | None,
        Query(pattern=r"^\d{4}-\d{2}-\d{2}$", description="date of a register's rows"),
    ] = None,
) -> JSONResponse:
    """Import the body; the report says what was added, updated, left unchanged,
    retired, kept because edited by hand or held by a zone from elsewhere, and skipped."""
    body = await request.body()  # capped in bytes by the guard
    if name.endswith(".zip"):
        try:
            body = base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            raise RequestInvalidError("a zip is sent base64-encoded (RFC 4648)") from None
    editions = {info.cell: info for info in map(parse_edition, edition or [])}

    def work() -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="vigia-import-") as tmp:
            path = FsPath(tmp) / name
            path.write_bytes(body)
            result = import_sources(
                [path], editions=editions, register_date=date, max_unzipped=MAX_UNZIPPED_BYTES
            )
        report = store_import(repo, result, force=force)
        changed(request, "on_zones_changed")
        return report.json()

    return JSONResponse(await run_in_threadpool(work))
