"""Draft zones for admins (issue 36): upload, edit, try on past traffic, publish or drop.

A draft is validated like a zone upload (``POST /collections/zones/items``) but is not
live until published. Its backtest runs as a job: ``POST /drafts/{id}/backtests`` answers
202 at once with the job, which a client polls (``GET /backtests/{job}``) or streams
(``GET /backtests/{job}/events``, server-sent events) until it is done; the leads then
export as GeoJSON or CSV, each marked new, kept or gone against the zones in force.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Body, Depends, Path, Request, Response
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from vigia.service.db.drafts import DraftStore
from vigia.service.db.protocol import ApiKeyRecord, Repository
from vigia.service.db.repository import SqlRepository
from vigia.service.errors import RequestInvalidError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.map_layers import zone_bands
from vigia.service.http.routes.params import GEOJSON_MEDIA_TYPE, GeoJSONResponse, get_settings
from vigia.service.http.routes.zones import _as_collection, _read_upload, _zones_changed
from vigia.service.runtime.backtest import instant
from vigia.service.runtime.drafts import BacktestJobs, Job, drop, publish, wait_change
from vigia.service.settings import Settings
from vigia.zones.catalogue import parse_feature_collection, zone_to_feature

Admin = Annotated[ApiKeyRecord, Depends(require_role("admin"))]
Repo = Annotated[Repository, Depends(get_repository)]
DraftId = Annotated[int, Path(ge=1, le=2**31 - 1)]
router = APIRouter(tags=["draft zones"], dependencies=[Depends(require_role("admin"))])
_ERRORS = problem_responses(401, 403, 404, 409, 422)
_DRAFT_EXAMPLE: dict[str, Any] = {
    "id": 7, "name": "new FPSO", "state": "draft", "created_by": "admin",
    "created_at": 1764028800.0, "updated_at": 1764028800.0, "backtest": None,
    "features": {"type": "FeatureCollection", "features": []},
    "history": [{"at": 1764028800.0, "by": "admin", "action": "created", "reason": None,
                 "detail": {"zones": ["plat-new"]}}],
}  # fmt: skip
_JOB_EXAMPLE: dict[str, Any] = {
    "id": 3, "draft_id": 7, "state": "running", "stage": "tracks", "progress": 0.3,
    "error": None,
}  # fmt: skip


def _doc(status: int, example: Any, media: str = "application/json") -> dict[int | str, Any]:
    """A success with its example, and the problems every draft route can answer."""
    ok = {"description": "success", "content": {media: {"example": example}}}
    return {status: ok, **_ERRORS}


_DRAFT, _JOB = _doc(200, _DRAFT_EXAMPLE), _doc(200, _JOB_EXAMPLE)


_JOBS_LOCK = threading.Lock()
_MAX_BUDGET = 1_000_000  # an integer column on both stores


def _sql(repo: Repository) -> SqlRepository:
    assert isinstance(repo, SqlRepository)  # drafts live beside the zones, in SQL
    return repo


def _jobs(request: Request, repo: Repository) -> BacktestJobs:
    with _JOBS_LOCK:
        jobs: BacktestJobs | None = getattr(request.app.state, "backtest_jobs", None)
        if jobs is None:
            jobs = request.app.state.backtest_jobs = BacktestJobs(_sql(repo))
        return jobs


async def _features(request: Request, settings: Settings) -> dict[str, Any]:
    """The upload validated as zones are, then kept in the catalogue's own form."""
    obj = _as_collection(await _read_upload(request), settings)
    zones = await run_in_threadpool(parse_feature_collection, obj)
    return {"type": "FeatureCollection", "features": [zone_to_feature(z) for z in zones]}


@router.post(
    "/drafts",
    status_code=201,
    summary="Upload a draft (admin)",
    responses=_doc(201, _DRAFT_EXAMPLE),
)
async def create_draft(
    request: Request,
    repo: Repo,
    key: Admin,
    settings: Annotated[Settings, Depends(get_settings)],
    name: str = "",
) -> dict[str, Any]:
    """A GeoJSON Feature or FeatureCollection of zones, validated like a zone upload
    (422 naming the feature), kept as a draft: nothing is live."""
    features = await _features(request, settings)
    store = DraftStore(_sql(repo).engine)
    return await run_in_threadpool(store.create, name[:200], features, key.name)


@router.get("/drafts", summary="List drafts (admin)", responses=_doc(200, {"drafts": []}))
def list_drafts(repo: Repo) -> dict[str, Any]:
    """Every draft, newest first, without its features."""
    return {"drafts": DraftStore(_sql(repo).engine).all()}


@router.get(
    "/drafts/zones/{zone_id}/history",
    summary="A zone's draft history (admin)",
    responses=_doc(200, {"zone_id": "plat-new", "history": []}),
)
def zone_history(zone_id: Annotated[str, Path(max_length=200)], repo: Repo) -> dict[str, Any]:
    """Every draft event that named the zone: publications with their stated reasons."""
    return {"zone_id": zone_id, "history": DraftStore(_sql(repo).engine).zone_history(zone_id)}


@router.get(
    "/drafts/{draft_id}",
    summary="One draft with its history (admin)",
    responses=_doc(200, _DRAFT_EXAMPLE),
)
def get_draft(draft_id: DraftId, repo: Repo) -> dict[str, Any]:
    """The draft, its features, its latest backtest's report and its history."""
    return DraftStore(_sql(repo).engine).get(draft_id)


@router.get(
    "/drafts/{draft_id}/map",
    summary="A draft's zones with their rule bands, for maps (admin)",
    response_class=GeoJSONResponse,
    responses=_doc(200, {"type": "FeatureCollection", "features": []}, GEOJSON_MEDIA_TYPE),
)
def draft_map(draft_id: DraftId, repo: Repo) -> GeoJSONResponse:
    """The draft's zones drawn as ``/map/zones`` draws the zones in force: each one's
    reference geometry (``role: reference``) and the bands its rules measure."""
    draft = DraftStore(_sql(repo).engine).get(draft_id)
    zones = parse_feature_collection(draft["features"])
    return GeoJSONResponse(zone_bands(zones), media_type=GEOJSON_MEDIA_TYPE)


@router.put(
    "/drafts/{draft_id}", summary="Edit a draft (admin)", responses=_doc(200, _DRAFT_EXAMPLE)
)
async def edit_draft(
    draft_id: DraftId,
    request: Request,
    repo: Repo,
    key: Admin,
    settings: Annotated[Settings, Depends(get_settings)],
) -> dict[str, Any]:
    """Replace the draft's zones; its backtest no longer holds and is cleared."""
    features = await _features(request, settings)
    store = DraftStore(_sql(repo).engine)
    return await run_in_threadpool(store.edit, draft_id, features, key.name)


@router.delete(
    "/drafts/{draft_id}", summary="Drop a draft (admin)", responses=_doc(200, _DRAFT_EXAMPLE)
)
def drop_draft(draft_id: DraftId, repo: Repo, key: Admin, reason: str = "") -> dict[str, Any]:
    """The draft is given up; it stays listed, with its history."""
    return drop(_sql(repo), draft_id, key.name, reason or None)


@router.post(
    "/drafts/{draft_id}/publish",
    summary="Publish a draft (admin)",
    responses=_doc(200, _DRAFT_EXAMPLE),
)
def publish_draft(
    draft_id: DraftId,
    request: Request,
    repo: Repo,
    key: Admin,
    body: Annotated[dict[str, Any] | None, Body()] = None,
) -> dict[str, Any]:
    """Put the draft's zones in force (new versions). It must have been tried as it
    stands (409 otherwise); when that backtest exceeds a zone's lead budget, a
    ``reason`` is required (409 without one) and kept in the history."""
    reason = (body or {}).get("reason")
    if reason is not None and not isinstance(reason, str):
        raise RequestInvalidError("reason must be a string")
    return publish(_sql(repo), draft_id, key.name, reason, lambda: _zones_changed(request))


@router.put(
    "/zone-budgets/{zone_id}",
    summary="Set a zone's lead budget (admin)",
    responses=_doc(200, {"zone_id": "plat-new", "leads_per_day": 20}),
)
def set_budget(
    zone_id: Annotated[str, Path(max_length=200)],
    repo: Repo,
    key: Admin,
    body: Annotated[dict[str, Any], Body(examples=[{"leads_per_day": 20}])],
) -> dict[str, Any]:
    """How many leads a day the zone may raise before publishing it needs a reason."""
    n = body.get("leads_per_day")
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= _MAX_BUDGET:
        raise RequestInvalidError(f"leads_per_day must be a whole number, 0 to {_MAX_BUDGET}")
    DraftStore(_sql(repo).engine).set_budget(zone_id, n, key.name)
    return {"zone_id": zone_id, "leads_per_day": n}


@router.post(
    "/drafts/{draft_id}/backtests",
    status_code=202,
    summary="Try a draft (admin)",
    responses=_doc(202, _JOB_EXAMPLE),
)
def start_backtest(
    draft_id: DraftId,
    request: Request,
    response: Response,
    repo: Repo,
    key: Admin,
    body: Annotated[dict[str, Any], Body(examples=[{"since": "30d"}])],
) -> dict[str, Any]:
    """Start a backtest of the draft over [since, until] (``since``: ``30d``, ``12h`` or
    an instant; ``until``: an instant, default now). Answers at once with the job."""
    now = time.time()
    since = instant(str(body.get("since", "30d")), now)
    until = now if body.get("until") is None else instant(str(body["until"]), now)
    if until < since:
        raise RequestInvalidError("until is before since")
    job = _jobs(request, repo).start(draft_id, since, until, key.name)
    response.headers["Location"] = f"/backtests/{job.id}"
    return job.view()


def _job(request: Request, repo: Repository, job_id: int) -> Job:
    return _jobs(request, repo).get(job_id)


@router.get(
    "/backtests/{job_id}", summary="A backtest job (admin)", responses=_doc(200, _JOB_EXAMPLE)
)
def get_backtest(job_id: DraftId, request: Request, repo: Repo) -> dict[str, Any]:
    """The job's stage and progress; its report once done."""
    return _job(request, repo, job_id).view()


@router.get(
    "/backtests/{job_id}/events",
    summary="A backtest's progress as SSE (admin)",
    response_class=EventSourceResponse,
    responses=_doc(
        200, 'event: progress\ndata: {"id": 3, "state": "running"}\n\n', "text/event-stream"
    ),
)
async def backtest_events(job_id: DraftId, request: Request, repo: Repo) -> EventSourceResponse:
    """``progress`` events as the job moves, then one ``done`` (with the report) or
    ``failed`` event, and the stream ends."""
    job = _job(request, repo, job_id)

    async def events() -> AsyncIterator[dict[str, str]]:
        seen = ("", "", -1.0)
        while True:
            seen = await anyio.to_thread.run_sync(wait_change, job, seen, 5.0)
            state = seen[0]
            event = "progress" if state == "running" else state
            yield {"event": event, "data": json.dumps(job.view())}
            if state != "running" or await request.is_disconnected():
                return

    return EventSourceResponse(events())


@router.get(
    "/backtests/{job_id}/leads.geojson",
    summary="A backtest's leads as GeoJSON",
    response_class=GeoJSONResponse,
    responses=_doc(200, {"type": "FeatureCollection", "features": []}, GEOJSON_MEDIA_TYPE),
)
def backtest_geojson(job_id: DraftId, request: Request, repo: Repo) -> GeoJSONResponse:
    """One point a lead (its closest approach), marked new, kept or gone."""
    out = _job(request, repo, job_id).export("geojson")
    assert isinstance(out, dict)
    return GeoJSONResponse(out, media_type=GEOJSON_MEDIA_TYPE)


@router.get(
    "/backtests/{job_id}/leads.csv",
    summary="A backtest's leads as CSV",
    response_class=Response,
    responses=_doc(200, "id,change,mmsi,rule,zone_id,...\n", "text/csv"),
)
def backtest_csv(job_id: DraftId, request: Request, repo: Repo) -> Response:
    """One row a lead, marked new, kept or gone."""
    out = _job(request, repo, job_id).export("csv")
    assert isinstance(out, str)
    return Response(out, media_type="text/csv; charset=utf-8")
