"""Liveness (no key), readiness and Prometheus metrics."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse

from vigia.service.db.protocol import Repository
from vigia.service.errors import StoreUnavailableError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.metrics import CONTENT_TYPE, ServiceMetrics
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.params import get_settings
from vigia.service.settings import Settings

router = APIRouter(tags=["health"])


# a coroutine, not a plain function: FastAPI runs plain ones on the thread pool, whose 40
# threads are handed out first come, first served to every request, so under a flood (1,500
# requests of one viewer key on as many sockets) liveness waited seconds behind the flood's
# queue. On the event loop it needs no thread and answers in milliseconds
@router.get(
    "/healthz",
    summary="Liveness",
    responses={200: {"content": {"application/json": {"example": {"status": "ok"}}}}},
)
async def healthz() -> dict[str, str]:
    """The process answers; needs no key."""
    return {"status": "ok"}


def _store_answers(repo: Repository) -> bool:
    try:
        return bool(repo.ping())
    except Exception:  # a dead store may raise anything from its driver; that is the answer
        return False


@router.get(
    "/readyz",
    summary="Readiness",
    dependencies=[Depends(require_role("viewer"))],
    responses={
        200: {
            "content": {
                "application/json": {
                    "example": {
                        "ready": True,
                        "database": "ok",
                        "worker": "running",
                        "last_message_age_s": 0.4,
                    }
                }
            }
        },
        **problem_responses(401, 403, 503),
    },
)
def readyz(
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    settings: Annotated[Settings, Depends(get_settings)],
) -> JSONResponse:
    """Ready when the database answers and, if a limit is set, messages are fresh."""
    worker = getattr(request.app.state, "worker", None)
    snap = worker.snapshot() if worker is not None else None
    age = None if snap is None else snap.last_message_age_s
    if not _store_answers(repo):
        raise StoreUnavailableError("the database does not answer")
    max_age = settings.ingest.ready_max_message_age_s
    if max_age is not None and worker is not None and (age is None or age > max_age):
        raise StoreUnavailableError(
            f"no message for {'ever' if age is None else f'{age:.0f} s'}; the limit is {max_age} s"
        )
    body: dict[str, Any] = {
        "ready": True,
        "database": "ok",
        "worker": "running" if worker is not None else "off",
        "last_message_age_s": None if age is None else round(age, 3),
    }
    runtime = getattr(request.app.state, "runtime", None)
    checked = None if runtime is None else runtime.archive_check
    if checked is not None:
        # a day lost from the archive does not stop the service, but must not be silent
        body["archive"] = {"missing_days": checked.holes}
    return JSONResponse(body)


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    dependencies=[Depends(require_role("viewer"))],
    response_class=Response,
    responses={
        200: {
            "content": {
                "text/plain": {
                    "example": 'vigia_sentences_total{result="ok"} 1180.0\n'
                    "vigia_positions_stored_total 950.0\n"
                }
            }
        },
        **problem_responses(401, 403),
    },
)
def metrics(request: Request) -> Response:
    """Sentences by result, decode errors by reason, positions stored, leads by rule, lag."""
    registry: ServiceMetrics = request.app.state.metrics
    return Response(registry.render(), media_type=CONTENT_TYPE)
