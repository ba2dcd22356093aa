"""What the register routes share (the authorised vessels, the state vessels): the four
routes of a register (inspectors list it; admins add entries as JSON or CSV and delete
them), a CSV upload read with a size bound and parsed off the event loop, and the hook
that hands the running worker the new register."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

import anyio
from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from vigia.alerts.registers import instant_cell
from vigia.ingest.errors import InputFormatError
from vigia.ingest.records import iso_utc
from vigia.service.db.protocol import Repository
from vigia.service.errors import NotFoundError, PayloadTooLargeError, RequestInvalidError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import problem_responses

E = TypeVar("E")
M = TypeVar("M", bound=BaseModel)
#: a CSV upload larger than this is refused before it is parsed
MAX_CSV_BYTES = 2_000_000


class RegisterEntry(BaseModel):
    """What every register entry has: an MMSI, a validity window, a note."""

    mmsi: int = Field(ge=100_000_000, le=999_999_999)
    valid_from: str | None = Field(default=None, max_length=40, description="ISO 8601")
    valid_to: str | None = Field(default=None, max_length=40, description="ISO 8601")
    note: str | None = Field(default=None, max_length=1000)

    def window(self) -> tuple[float | None, float | None]:
        """The validity window as Unix seconds (InputFormatError if an end is bad)."""

        def cell(name: str) -> str | None:
            text: str | None = getattr(self, name)
            return text

        return instant_cell(cell, "valid_from"), instant_cell(cell, "valid_to")


class Entries(BaseModel, Generic[M]):
    """Entries to add, all or none."""

    entries: list[M] = Field(min_length=1, max_length=10_000)


def changed(request: Request, hook: str) -> None:
    """Call the app's ``hook`` (the runtime reloads the worker's register), if any."""
    call = getattr(request.app.state, hook, None)
    if call is not None:
        call()


def iso(t: float | None) -> str | None:
    """A validity end as the API writes it."""
    return None if t is None else iso_utc(t)


def csv_body(example: str) -> dict[str, Any]:
    """``openapi_extra`` documenting a required ``text/csv`` request body."""
    content = {"text/csv": {"schema": {"type": "string"}, "example": example}}
    return {"requestBody": {"required": True, "content": content}}


async def read_import(
    request: Request,
    parse: Callable[[str], list[E]],
    store: Callable[[list[E]], Sequence[E]],
    view: Callable[[E], dict[str, Any]],
    hook: str,
) -> Response:
    """Read the upload (at most :data:`MAX_CSV_BYTES`), then parse, store and answer it
    in a worker thread: parsing, writing and answering a large file takes seconds, and
    /healthz and every other request keep being answered meanwhile. A file ``parse``
    refuses adds nothing (:class:`InputFormatError`, naming its lines)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_CSV_BYTES:
            raise PayloadTooLargeError(f"the CSV is larger than {MAX_CSV_BYTES} bytes")
        chunks.append(chunk)

    def work() -> bytes:
        try:
            text = b"".join(chunks).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputFormatError("the CSV is not UTF-8") from None
        entries = parse(text)
        if not entries:
            raise InputFormatError("the CSV holds no entries")
        stored = store(entries)
        changed(request, hook)
        # one dumps per entry: a single dumps of 100,000 entries holds the GIL (and so
        # every other request) for the whole encoding
        items = b",".join(json.dumps(view(e)).encode() for e in stored)
        return b'{"entries":[' + items + b"]}"

    body = await anyio.to_thread.run_sync(work)
    return Response(body, status_code=201, media_type="application/json")


@dataclass(frozen=True)
class Register(Generic[E]):
    """One register as the API serves it under ``path``."""

    path: str  # "/state-vessels"
    title: str  # "register of state vessels", in the summaries
    hook: str  # the app.state hook that reloads the worker's register
    example: dict[str, Any]  # one entry as the API shows it
    csv_example: str
    body: type[BaseModel]  # {"entries": [...]} of POST
    entry: Callable[[Any], E]  # one item of ``body.entries`` (InputFormatError if bad)
    view: Callable[[E], dict[str, Any]]
    parse: Callable[[str], list[E]]  # a CSV upload
    add: Callable[[Repository, list[E]], Sequence[E]]
    listed: Callable[[Repository], Sequence[E]]
    delete: Callable[[Repository, int], bool]
    #: a CSV upload that cannot be read is a 400 (input-format) or a 422 (invalid-request)
    csv_refusal: int = 400


_Repo = Annotated[Repository, Depends(get_repository)]
_EntryId = Annotated[int, Path(ge=1, le=2**31 - 1)]


def mount(router: APIRouter, reg: Register[E]) -> None:
    """Add the register's four routes to ``router``."""
    read, admin = [Depends(require_role("inspector"))], [Depends(require_role("admin"))]
    many = {"content": {"application/json": {"example": {"entries": [reg.example]}}}}

    def list_entries(repo: _Repo) -> dict[str, Any]:
        return {"entries": [reg.view(e) for e in reg.listed(repo)]}

    def add_entries(body: Any, request: Request, repo: _Repo) -> JSONResponse:
        entries = []
        for item in body.entries:
            try:
                entries.append(reg.entry(item))
            except InputFormatError as exc:
                raise RequestInvalidError(f"mmsi {item.mmsi}: {exc}") from None
        stored = reg.add(repo, entries)
        changed(request, reg.hook)
        return JSONResponse({"entries": [reg.view(e) for e in stored]}, status_code=201)

    add_entries.__annotations__["body"] = reg.body  # the JSON body FastAPI validates

    async def import_entries(request: Request, repo: _Repo) -> Response:
        try:
            return await read_import(
                request, reg.parse, lambda es: reg.add(repo, es), reg.view, reg.hook
            )
        except InputFormatError as exc:
            if reg.csv_refusal == 400:
                raise
            raise RequestInvalidError(str(exc)) from None

    def delete_entry(entry_id: _EntryId, request: Request, repo: _Repo) -> Response:
        if not reg.delete(repo, entry_id):
            raise NotFoundError(f"no register entry with id {entry_id}")
        changed(request, reg.hook)
        return Response(status_code=204)

    router.add_api_route(
        reg.path, list_entries, methods=["GET"], summary=f"List the {reg.title} (inspector)",
        description="Every entry, oldest first, expired ones included (they still explain "
        "old leads).",
        dependencies=read, responses={200: many, **problem_responses(401, 403)},
    )  # fmt: skip
    router.add_api_route(
        reg.path, add_entries, methods=["POST"], status_code=201,
        summary=f"Add entries to the {reg.title} (admin)",
        description="Add entries (all or none); the worker applies them to the next positions.",
        dependencies=admin, responses={201: many, **problem_responses(401, 403, 422)},
    )  # fmt: skip
    columns = reg.csv_example.splitlines()[0]
    router.add_api_route(
        f"{reg.path}/import", import_entries, methods=["POST"], status_code=201,
        summary=f"Add entries to the {reg.title} from CSV (admin)",
        description=f"CSV with the header `{columns}`; a bad row refuses the whole file, "
        "naming its line.",
        dependencies=admin, openapi_extra=csv_body(reg.csv_example),
        responses={201: many, **problem_responses(reg.csv_refusal, 401, 403, 413)},
    )  # fmt: skip
    router.add_api_route(
        f"{reg.path}/{{entry_id}}", delete_entry, methods=["DELETE"], status_code=204,
        response_class=Response, summary=f"Remove an entry of the {reg.title} (admin)",
        description="Remove one entry; positions from then on are judged without it.",
        dependencies=admin,
        responses={204: {"description": "removed"}, **problem_responses(401, 403, 404)},
    )  # fmt: skip
