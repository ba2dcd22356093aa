"""Silences (inspector): keep known, reviewed situations from raising leads again; and
the NORMAM-07 0310 watch-list of detained or sealed vessels."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from fastapi.responses import JSONResponse, Response
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from vigia.ingest.records import iso_utc
from vigia.service.db.protocol import ApiKeyRecord, Repository, Scope
from vigia.service.errors import NotFoundError
from vigia.service.http.deps import get_repository, require_role, require_scope
from vigia.service.http.problems import problem_responses

viewer, inspector = require_role("viewer"), require_role("inspector")
router = APIRouter(tags=["silences"], dependencies=[Depends(viewer)])
Repo = Annotated[Repository, Depends(get_repository)]
Inspector = Annotated[ApiKeyRecord, Depends(inspector)]
# the caller's authority: what it lists, and what its silences and entries may touch
ViewerScope = Annotated[Scope, Depends(require_scope("viewer"))]
InspectorScope = Annotated[Scope, Depends(require_scope("inspector"))]
EXAMPLE_SILENCE: dict[str, Any] = {
    "id": 1,
    "mmsi": 710000001,
    "zone_id": None,
    "starts_at": None,
    "until": "2026-03-01T00:00:00Z",
    "reason": "survey vessel under contract with the port authority",
    "authority": "Capitania dos Portos do Rio de Janeiro",
    "created_by": "inspector-silva",
    "created_at": "2026-02-01T12:00:00Z",
}
EXAMPLE_WATCH: dict[str, Any] = {
    "id": 1,
    "mmsi": 710000001,
    "lon": -43.17,
    "lat": -22.9,
    "radius_m": 150.0,
    "reason": "lacre 12/2026",
    "authority": "Capitania dos Portos do Rio de Janeiro",
    "created_by": "inspector-silva",
    "created_at": "2026-02-01T12:00:00Z",
    "active": True,
}


def _ok(status: int, example: dict[str, Any]) -> dict[int | str, dict[str, Any]]:
    return {status: {"description": "OK", "content": {"application/json": {"example": example}}}}


_MIN, _MAX = dt.datetime(2000, 1, 1, tzinfo=dt.UTC), dt.datetime(2100, 1, 1, tzinfo=dt.UTC)


class NewSilence(BaseModel):
    """A vessel, a zone, or a vessel in a zone, silenced until a time, for a reason."""

    model_config = ConfigDict(extra="forbid")
    mmsi: Annotated[int, Field(ge=0, le=999_999_999)] | None = None
    zone_id: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    starts_at: AwareDatetime | None = Field(
        default=None, description="positions before this are not silenced (default: any)"
    )
    until: AwareDatetime = Field(description="positions after this raise leads again")
    reason: str = Field(min_length=3, max_length=2000)

    @model_validator(mode="after")
    def _check(self) -> NewSilence:
        if self.mmsi is None and self.zone_id is None:
            raise ValueError("a silence names a vessel (mmsi), a zone (zone_id) or both")
        for t in (self.starts_at, self.until):
            if t is not None and not _MIN <= t <= _MAX:
                raise ValueError("times must fall between 2000 and 2100")
        if self.starts_at is not None and self.starts_at >= self.until:
            raise ValueError("starts_at must come before until")
        return self


class NewWatch(BaseModel):
    """A detained or sealed vessel held at a position (0310)."""

    model_config = ConfigDict(extra="forbid")
    mmsi: Annotated[int, Field(ge=1, le=999_999_999)]
    lon: Annotated[float, Field(ge=-180, le=180, description="where it is held")]
    lat: Annotated[float, Field(ge=-90, le=90)]
    radius_m: Annotated[float, Field(gt=0, le=10_000)] = 150.0
    reason: str = Field(min_length=3, max_length=2000)
    authority: Annotated[str, Field(max_length=200)] | None = None


def _silence_json(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **row,
        "starts_at": None if row["starts_at"] is None else iso_utc(row["starts_at"]),
        "until": iso_utc(row["until"]),
        "created_at": iso_utc(row["created_at"]),
    }


@router.post(
    "/silences",
    summary="Silence a vessel, a zone or a vessel in a zone (inspector)",
    status_code=201,
    responses={**_ok(201, EXAMPLE_SILENCE), **problem_responses(401, 403, 422)},
)
def create_silence(
    new: NewSilence, repo: Repo, caller: Inspector, scope: InspectorScope
) -> JSONResponse:
    """Leads whose first position falls in the window are stored, marked silenced, and
    never pushed; judged on the position's time, so a replay stays quiet too. A key
    limited to one authority silences only that authority's leads."""
    row = {
        "mmsi": new.mmsi,
        "zone_id": new.zone_id,
        "starts_at": None if new.starts_at is None else new.starts_at.timestamp(),
        "until": new.until.timestamp(),
        "reason": new.reason,
    }
    silence_id = repo.add_silence(row, caller.name, scope)
    found = next(s for s in repo.list_silences(scope) if s["id"] == silence_id)
    return JSONResponse(_silence_json(found), status_code=201)


@router.get(
    "/silences",
    summary="List silences",
    responses={**_ok(200, {"silences": [EXAMPLE_SILENCE]}), **problem_responses(401, 403)},
)
def list_silences(repo: Repo, scope: ViewerScope) -> dict[str, Any]:
    """The caller's authority's silences (every silence for an unlimited key), newest
    first."""
    return {"silences": [_silence_json(s) for s in repo.list_silences(scope)]}


@router.post(
    "/watchlist",
    summary="Put a detained or sealed vessel on the watch-list (inspector)",
    status_code=201,
    responses={**_ok(201, EXAMPLE_WATCH), **problem_responses(401, 403, 422)},
)
def create_watch(
    new: NewWatch, repo: Repo, caller: Inspector, scope: InspectorScope
) -> JSONResponse:
    """Any AIS report beyond ``radius_m`` of where it is held raises a lead at once. A key
    limited to one authority keeps only that authority's entries (403 for another)."""
    entry_id = repo.add_watch(new.model_dump(), caller.name, scope)
    found = next(w for w in repo.list_watch(scope) if w["id"] == entry_id)
    return JSONResponse({**found, "created_at": iso_utc(found["created_at"])}, status_code=201)


@router.get(
    "/watchlist",
    summary="List the watch-list",
    responses={**_ok(200, {"watchlist": [EXAMPLE_WATCH]}), **problem_responses(401, 403)},
)
def list_watch(repo: Repo, scope: ViewerScope) -> dict[str, Any]:
    """The caller's authority's entries (all for an unlimited key), newest first;
    ``active`` false once released or once it raised a lead."""
    rows = repo.list_watch(scope)
    return {"watchlist": [{**w, "created_at": iso_utc(w["created_at"])} for w in rows]}


@router.delete(
    "/watchlist/{entry_id}",
    summary="Release a vessel from the watch-list (inspector)",
    status_code=204,
    response_class=Response,
    responses={204: {"description": "released"}, **problem_responses(401, 403, 404)},
)
def release_watch(
    entry_id: Annotated[int, Path(ge=1, le=2**31 - 1)], repo: Repo, scope: InspectorScope
) -> Response:
    """The vessel was released: its movements raise nothing from now on (another
    authority's entry is not found)."""
    if not repo.release_watch(entry_id, scope):
        raise NotFoundError(f"no watch-list entry {entry_id}")
    return Response(status_code=204)
