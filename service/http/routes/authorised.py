"""The authorised-vessel register (NORMAM-07 0212 f)): inspectors read it, admins edit
it. Entries authorise an MMSI at one platform zone or at every zone of an operator, for
a validity window; the running worker judges with the new register at once."""

from __future__ import annotations

import json
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from vigia.alerts.authorised import Authorisation, check, parse_csv, parse_instant
from vigia.ingest.errors import InputFormatError
from vigia.ingest.records import iso_utc
from vigia.service.db.protocol import Repository
from vigia.service.errors import NotFoundError, PayloadTooLargeError, RequestInvalidError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import problem_responses

router = APIRouter(tags=["authorised vessels"])
_read = [Depends(require_role("inspector"))]
_admin = [Depends(require_role("admin"))]
#: a CSV upload larger than this is refused before it is parsed
MAX_CSV_BYTES = 2_000_000

EXAMPLE_ENTRY: dict[str, Any] = {
    "id": 7,
    "mmsi": 710001234,
    "zone_id": "platform-BR322900-1433363740",
    "operator": None,
    "valid_from": "2026-01-01T00:00:00Z",
    "valid_to": "2026-12-31T23:59:59Z",
    "note": "supply vessel under contract 123/2026",
}


class Entry(BaseModel):
    """One register entry: an MMSI and either a zone id or an operator."""

    mmsi: int = Field(ge=100_000_000, le=999_999_999)
    zone_id: str | None = Field(default=None, min_length=1, max_length=200)
    operator: str | None = Field(default=None, min_length=1, max_length=200)
    valid_from: str | None = Field(default=None, max_length=40, description="ISO 8601")
    valid_to: str | None = Field(default=None, max_length=40, description="ISO 8601")
    note: str | None = Field(default=None, max_length=1000)


class Entries(BaseModel):
    """Entries to add, all or none."""

    entries: list[Entry] = Field(min_length=1, max_length=10_000)


def entry_json(e: Authorisation) -> dict[str, Any]:
    """The API's view of one entry."""
    return {
        "id": e.id,
        "mmsi": e.mmsi,
        "zone_id": e.zone_id,
        "operator": e.operator,
        "valid_from": None if e.valid_from is None else iso_utc(e.valid_from),
        "valid_to": None if e.valid_to is None else iso_utc(e.valid_to),
        "note": e.note,
    }


def _changed(request: Request) -> None:
    hook = getattr(request.app.state, "on_register_changed", None)
    if hook is not None:
        hook()


def _when(text: str | None, what: str) -> float | None:
    return None if text is None else parse_instant(text, what)


def _to_entry(e: Entry) -> Authorisation:
    try:
        return check(
            Authorisation(
                mmsi=e.mmsi,
                zone_id=e.zone_id,
                operator=e.operator,
                valid_from=None
                if e.valid_from is None
                else parse_instant(e.valid_from, "valid_from"),
                valid_to=None if e.valid_to is None else parse_instant(e.valid_to, "valid_to"),
                note=e.note,
            )
        )
    except InputFormatError as exc:
        raise RequestInvalidError(f"mmsi {e.mmsi}: {exc}") from None


@router.get(
    "/authorised-vessels",
    summary="List the authorised-vessel register (inspector)",
    dependencies=_read,
    responses={
        200: {"content": {"application/json": {"example": {"entries": [EXAMPLE_ENTRY]}}}},
        **problem_responses(401, 403),
    },
)
def list_entries(repo: Annotated[Repository, Depends(get_repository)]) -> dict[str, Any]:
    """Every entry, oldest first, expired ones included (they still explain old leads)."""
    return {"entries": [entry_json(e) for e in repo.list_authorisations()]}


@router.post(
    "/authorised-vessels",
    summary="Add register entries (admin)",
    status_code=201,
    dependencies=_admin,
    responses={
        201: {"content": {"application/json": {"example": {"entries": [EXAMPLE_ENTRY]}}}},
        **problem_responses(401, 403, 422),
    },
)
def add_entries(
    body: Entries, request: Request, repo: Annotated[Repository, Depends(get_repository)]
) -> JSONResponse:
    """Add entries (all or none); the worker applies them to the next positions."""
    stored = repo.add_authorisations([_to_entry(e) for e in body.entries])
    _changed(request)
    return JSONResponse({"entries": [entry_json(e) for e in stored]}, status_code=201)


@router.post(
    "/authorised-vessels/import",
    summary="Add register entries from CSV (admin)",
    status_code=201,
    dependencies=_admin,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "text/csv": {
                    "schema": {"type": "string"},
                    "example": "mmsi,zone_id,operator,valid_from,valid_to,note\n"
                    "710001234,,Petrobras,2026-01-01T00:00:00Z,2026-12-31T23:59:59Z,supply\n",
                }
            },
        }
    },
    responses={
        201: {"content": {"application/json": {"example": {"entries": [EXAMPLE_ENTRY]}}}},
        **problem_responses(400, 401, 403, 413),
    },
)
async def import_csv(
    request: Request, repo: Annotated[Repository, Depends(get_repository)]
) -> Response:
    """CSV with the header ``mmsi,zone_id,operator,valid_from,valid_to,note``; a bad row
    refuses the whole file with its line number."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_CSV_BYTES:
            raise PayloadTooLargeError(f"the CSV is larger than {MAX_CSV_BYTES} bytes")
        chunks.append(chunk)
    # parsing, writing and answering a large file takes seconds: done in a worker
    # thread, so /healthz and every other request keep being answered meanwhile
    body = await anyio.to_thread.run_sync(_import, b"".join(chunks), repo, request)
    return Response(body, status_code=201, media_type="application/json")


def _import(data: bytes, repo: Repository, request: Request) -> bytes:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputFormatError("the CSV is not UTF-8") from None
    entries = parse_csv(text)
    if not entries:
        raise InputFormatError("the CSV holds no entries")
    stored = repo.add_authorisations(entries)
    _changed(request)
    # one dumps per entry: a single dumps of 100,000 entries holds the GIL (and so every
    # other request) for the whole encoding
    items = b",".join(json.dumps(entry_json(e)).encode() for e in stored)
    return b'{"entries":[' + items + b"]}"


@router.delete(
    "/authorised-vessels/{entry_id}",
    summary="Remove a register entry (admin)",
    status_code=204,
    response_class=Response,
    dependencies=_admin,
    responses={204: {"description": "removed"}, **problem_responses(401, 403, 404)},
)
def delete_entry(
    entry_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
) -> Response:
    """Remove one entry; positions from then on are judged without it."""
    if not repo.delete_authorisation(entry_id):
        raise NotFoundError(f"no register entry with id {entry_id}")
    _changed(request)
    return Response(status_code=204)
