"""Every error the API answers with is an RFC 9457 ``application/problem+json`` body.

Domain errors map to statuses through the one table in ``service/errors.py``; request
validation, unknown routes and wrong methods get the same shape.
"""

from __future__ import annotations

import json
import logging
from collections.abc import MutableMapping
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from vigia.alerts.procedure.workflow import ProcedureConflictError, ProcedureDataError
from vigia.ingest.errors import VigiaError
from vigia.service.errors import (
    ConflictError,
    StoreUnavailableError,
    TooManyRequestsError,
    status_for,
)
from vigia.zones.model import ZoneError

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_BASE = "urn:vigia:problem:"
log = logging.getLogger("vigia.api")

#: a schema for the OpenAPI document's error responses
PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "title", "status"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "feature": {"type": ["string", "null"]},
        "reason": {"type": "string"},
        "errors": {"type": "array", "items": {"type": "object"}},
        "allowed": {"type": "array", "items": {"type": "string"}},
        "field": {"type": "string"},
        "facts": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


class ProblemResponse(JSONResponse):
    """problem+json, ASCII-escaped: a detail that echoes hostile input (a lone surrogate)
    still renders."""

    media_type = PROBLEM_MEDIA_TYPE

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":"), default=str).encode()


def problem(
    status: int, code: str, detail: str, instance: str | None = None, **extra: Any
) -> JSONResponse:
    """A problem+json response."""
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + code,
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
    }
    if instance:
        body["instance"] = instance
    body.update(extra)
    # a standard scheme (RFC 6750), which GIS clients and browsers know how to answer;
    # the same key is also accepted as X-API-Key
    headers = {"WWW-Authenticate": 'Bearer realm="vigia"'} if status == 401 else None
    return ProblemResponse(body, status_code=status, headers=headers)


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries documenting problem+json errors with examples."""
    examples = {
        400: ("input-format", "the file is not CSV with lat,lon columns"),
        401: ("unauthenticated", "missing X-API-Key header"),
        403: ("forbidden", "this route needs the admin role; the key is viewer"),
        404: ("not-found", "no zone with id 'plat-p66'"),
        409: (
            "procedure-conflict",
            "a lead cannot go from new to closed; allowed moves: triaged, dismissed",
        ),
        412: ("precondition-failed", 'If-Match \'"3"\' is not the lead\'s current ETag "4"'),
        413: ("payload-too-large", "the upload has 250001 vertices; the limit is 200000"),
        422: ("invalid-request", "query.limit: Input should be greater than or equal to 1"),
        429: ("too-many-requests", "this key has 20 open event streams; the limit is 20"),
        503: ("store-unavailable", "the database does not answer"),
    }
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        code, detail = examples.get(status, ("vigia-error", HTTPStatus(status).phrase))
        out[status] = {
            "description": HTTPStatus(status).phrase,
            "content": {
                PROBLEM_MEDIA_TYPE: {
                    "schema": PROBLEM_SCHEMA,
                    "example": {
                        "type": PROBLEM_BASE + code,
                        "title": HTTPStatus(status).phrase,
                        "status": status,
                        "detail": detail,
                    },
                }
            },
        }
    return out


def safe_path(where: Request | MutableMapping[str, Any]) -> str:
    """A request path fit for a log line: percent-encoded (no terminal escapes or line
    breaks from the wire reach the log) and cut to 300 characters."""
    path = where.url.path if isinstance(where, Request) else str(where.get("path", ""))
    text = quote(path, safe="/:@!$&'()*+,;=-._~")
    return text if len(text) <= 300 else text[:300] + "..."


def _zone_extra(exc: VigiaError) -> dict[str, Any]:
    if isinstance(exc, ZoneError):
        return {"feature": exc.feature, "reason": exc.reason}
    return {}


def _ogc_read(request: Request) -> bool:
    """A read of an OGC API - Features resource: a bad query there is 400 (Part 1)."""
    return request.method in ("GET", "HEAD") and request.url.path.startswith("/collections")


async def _vigia_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, VigiaError)
    status = status_for(exc)
    if status == 422 and _ogc_read(request):
        return problem(400, "invalid-query", str(exc), request.url.path)
    detail = str(exc)
    if status >= 500:
        log.error("%s on %s: %s", type(exc).__name__, safe_path(request), exc)
        if isinstance(exc, StoreUnavailableError) and exc.__cause__ is not None:
            # the driver's text names the database host, port and driver: log it, never
            # hand it to a client
            detail = "the database does not answer; try again shortly"
    extra = _zone_extra(exc)
    if isinstance(exc, ProcedureConflictError):
        extra["allowed"] = list(exc.allowed)  # the moves a dashboard may offer instead
    if isinstance(exc, ProcedureDataError) and exc.field:
        extra["field"] = exc.field  # the body member at fault, for a client's own words
    if isinstance(exc, ProcedureDataError) and exc.reason:
        extra["reason"] = exc.reason  # why, as a code with its figures: said in words
        extra["facts"] = exc.facts
    if isinstance(exc, ConflictError) and exc.reason:
        extra["reason"] = exc.reason  # a refusal of the state, as a code with its figures
        extra["facts"] = exc.facts
    return error_problem(exc, request.url.path, detail, **extra)


def error_problem(
    exc: VigiaError, instance: str, detail: str | None = None, **extra: Any
) -> JSONResponse:
    """The problem+json answer to a domain error, its status from the one table; also for
    middleware that answers before the app's exception handlers are reached."""
    text = str(exc) if detail is None else detail
    response = problem(status_for(exc), exc.code, text, instance, **extra)
    if isinstance(exc, TooManyRequestsError):
        response.headers["Retry-After"] = str(exc.retry_after_s)
    return response


def _where(loc: tuple[Any, ...] | list[Any]) -> str:
    return ".".join(str(p) for p in loc)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": _where(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": e.get("type")}
        for e in exc.errors()
    ]
    detail = "; ".join(f"{e['loc']}: {e['msg']}" for e in errors) or "invalid request"
    if _ogc_read(request):
        return problem(400, "invalid-query", detail, request.url.path, errors=errors)
    return problem(422, "invalid-request", detail, request.url.path, errors=errors)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = {404: "not-found", 405: "method-not-allowed"}.get(exc.status_code, "http-error")
    detail = str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"no route {request.url.path}"
    elif exc.status_code == 405:
        detail = f"{request.method} is not allowed on {request.url.path}"
    response = problem(exc.status_code, code, detail, request.url.path)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s", safe_path(request), exc_info=exc)
    return problem(500, "internal", "an unexpected error occurred", request.url.path)


def document_problems(doc: dict[str, Any], open_paths: frozenset[str]) -> None:
    """Make the OpenAPI document say what the handlers do: every error is problem+json,
    and every route but ``open_paths`` takes an API key and may answer 401 or 403."""
    doc.setdefault("components", {}).setdefault("securitySchemes", {})["ApiKey"] = {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "roles: viewer < inspector < admin (`vigia apikey create`)",
    }
    # GIS clients (GDAL's OAPIF driver, QGIS) can send only standard headers
    doc["components"]["securitySchemes"]["BearerKey"] = {
        "type": "http",
        "scheme": "bearer",
        "description": "the same API key as `Authorization: Bearer <key>`",
    }
    for path, item in doc.get("paths", {}).items():
        for op in item.values():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            responses = op["responses"]
            has_422 = "422" in responses or 422 in responses
            keep = PROBLEM_MEDIA_TYPE in (responses.get("422") or {}).get("content", {})
            wanted = [422] if has_422 and not keep else []
            if path not in open_paths:
                op["security"] = [{"ApiKey": []}, {"BearerKey": []}]
                wanted += [401, 403]
            for status, entry in problem_responses(*wanted).items():
                responses[str(status)] = entry
    schemas = doc.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        referenced = name in str(doc.get("paths"))
        if not referenced:
            schemas.pop(name, None)


def install_problem_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every error into problem+json."""
    app.add_exception_handler(VigiaError, _vigia_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
