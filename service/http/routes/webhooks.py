"""Webhook endpoints for admins: register (the secret is shown once), list, re-enable,
replay, delete, and every delivery attempt."""

from __future__ import annotations

import base64
import secrets
from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, Body, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from vigia.ingest.records import iso_utc
from vigia.service.db.events import LEAD_EVENT_TYPES
from vigia.service.db.live_store import LiveStore, WebhookRecord
from vigia.service.errors import NotFoundError, RequestInvalidError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.leads import RULE_CODES
from vigia.service.runtime.webhook_url import check_webhook_url
from vigia.service.runtime.webhooks import event_filter

router = APIRouter(tags=["webhooks"], dependencies=[Depends(require_role("admin"))])
EventType = Literal["lead.opened", "lead.updated", "lead.status"]
_ALL_TYPES: tuple[EventType, ...] = ("lead.opened", "lead.updated", "lead.status")
assert set(_ALL_TYPES) == set(LEAD_EVENT_TYPES)
WebhookId = Annotated[int, Path(ge=1, le=2**31 - 1)]
EXAMPLE_HOOK: dict[str, Any] = {
    "id": 1,
    "url": "https://cismar.example.mil.br/vigia/hook",
    "events": ["lead.opened", "lead.status"],
    "filters": {"min_priority": 50},
    "allow_private": False,
    "enabled": True,
    "disabled_reason": None,
    "failures": 0,
    "created_at": "2026-12-01T07:00:00Z",
    "deliveries": {"pending": 0, "delivered": 12},
}

EXAMPLE_ATTEMPTS: dict[str, Any] = {
    "webhook": EXAMPLE_HOOK,
    "attempts": [
        {
            "id": 7,
            "delivery_id": 5,
            "event_id": 42,
            "at": "2026-12-01T07:01:02Z",
            "duration_ms": 38.2,
            "status_code": 503,
            "error": "HTTP 503",
            "ok": False,
            "delivery_status": "pending",
            "delivery_attempts": 1,
        }
    ],
}


class HookFilters(BaseModel):
    """Which lead events the endpoint receives (all must match)."""

    rule: str | None = Field(default=None, max_length=64)
    zone_id: str | None = Field(default=None, max_length=200)
    authority: str | None = Field(default=None, max_length=200)
    min_priority: int = Field(default=0, ge=0, le=100)


class NewHook(BaseModel):
    """A webhook endpoint to register."""

    url: str = Field(max_length=2000, examples=["https://cismar.example.mil.br/vigia/hook"])
    events: list[EventType] = Field(
        default_factory=lambda: list(_ALL_TYPES), max_length=3, description="empty: all"
    )
    filters: HookFilters = Field(default_factory=HookFilters)
    allow_private: bool = Field(
        default=False,
        description=(
            "allow a URL on this host or in private, shared or special-use address space"
            " (RFC 1918, 100.64/10, fc00::/7, loopback, link-local...; refused otherwise)"
        ),
    )


class HookState(BaseModel):
    """Enable or disable an endpoint."""

    enabled: bool
    replay: bool = Field(
        default=True, description="on re-enabling: deliver what it missed (else skip it)"
    )


class Replay(BaseModel):
    """Send again every event after an id (0: everything it was ever owed)."""

    after_event_id: int = Field(ge=0, le=2**62)


def _store(request: Request) -> LiveStore:
    repo = get_repository(request)
    if not isinstance(repo, LiveStore):
        raise RequestInvalidError("this store keeps no webhooks")
    return repo


def hook_json(hook: WebhookRecord, counts: dict[str, int] | None = None) -> dict[str, Any]:
    """An endpoint without its secret."""
    out = {
        "id": hook.id,
        "url": hook.url,
        "events": hook.events,
        "filters": hook.filters,
        "allow_private": hook.allow_private,
        "enabled": hook.enabled,
        "disabled_reason": hook.disabled_reason,
        "failures": hook.failures,
        "created_at": iso_utc(hook.created_at),
    }
    if counts is not None:
        out["deliveries"] = counts
    return out


def _counts(store: LiveStore, hook: WebhookRecord) -> dict[str, int]:
    """Its deliveries by state. Events past its cursor are owed too (a disabled endpoint
    is not fanned out by the dispatcher), so they are turned into deliveries first:
    ``pending`` is then everything it is owed, not only what was fanned out so far."""
    store.fan_out(hook, event_filter(hook), to_head=True)
    return store.delivery_counts(hook.id)


def _get(store: LiveStore, webhook_id: int) -> WebhookRecord:
    hook = store.get_webhook(webhook_id)
    if hook is None:
        raise NotFoundError(f"no webhook with id {webhook_id}")
    return hook


def _wake(request: Request) -> None:
    dispatcher = getattr(request.app.state, "dispatcher", None)
    if dispatcher is not None:
        dispatcher.wake()


@router.post(
    "/webhooks",
    status_code=201,
    summary="Register a webhook endpoint (admin; the secret is shown once)",
    responses={
        201: {"content": {"application/json": {"example": {**EXAMPLE_HOOK, "secret": "whsec_…"}}}},
        **problem_responses(401, 403, 422),
    },
)
async def create_webhook(request: Request, new: Annotated[NewHook, Body()]) -> JSONResponse:
    """Deliveries are CloudEvents 1.0 JSON signed per Standard Webhooks (`webhook-id`,
    `webhook-timestamp`, `webhook-signature` with this secret); the endpoint receives
    events from now on."""
    store = _store(request)
    if new.filters.rule is not None and new.filters.rule not in RULE_CODES:
        raise RequestInvalidError(f"unknown rule {new.filters.rule!r}")
    await anyio.to_thread.run_sync(
        lambda: check_webhook_url(new.url, allow_private=new.allow_private)
    )
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    filters = new.filters.model_dump(exclude_defaults=True)
    hook = await anyio.to_thread.run_sync(
        lambda: store.add_webhook(new.url, list(new.events), filters, secret, new.allow_private)
    )
    return JSONResponse({**hook_json(hook), "secret": secret}, status_code=201)


@router.get(
    "/webhooks",
    summary="List webhook endpoints",
    responses={
        200: {"content": {"application/json": {"example": {"webhooks": [EXAMPLE_HOOK]}}}},
        **problem_responses(401, 403),
    },
)
def list_webhooks(request: Request) -> dict[str, Any]:
    """Every endpoint, with whether it is enabled and why not (never the secrets)."""
    store = _store(request)
    return {"webhooks": [hook_json(h, _counts(store, h)) for h in store.list_webhooks()]}


@router.get(
    "/webhooks/{webhook_id}",
    summary="One webhook endpoint",
    responses={
        200: {"content": {"application/json": {"example": EXAMPLE_HOOK}}},
        **problem_responses(401, 403, 404),
    },
)
def get_webhook(request: Request, webhook_id: WebhookId) -> dict[str, Any]:
    """The endpoint, its state and its delivery counts."""
    store = _store(request)
    hook = _get(store, webhook_id)
    return hook_json(hook, _counts(store, hook))


@router.patch(
    "/webhooks/{webhook_id}",
    summary="Enable or disable an endpoint",
    responses={
        200: {"content": {"application/json": {"example": EXAMPLE_HOOK}}},
        **problem_responses(401, 403, 404, 422),
    },
)
def set_webhook_state(
    request: Request, webhook_id: WebhookId, state: Annotated[HookState, Body()]
) -> dict[str, Any]:
    """Re-enabling resets its failures; with `replay` (the default) it then receives
    everything it missed while disabled."""
    store = _store(request)
    reason = None if state.enabled else "disabled by an admin"
    hook = store.set_webhook_enabled(webhook_id, state.enabled, reason, replay=state.replay)
    if hook is None:
        raise NotFoundError(f"no webhook with id {webhook_id}")
    _wake(request)
    return hook_json(hook, _counts(store, hook))


@router.post(
    "/webhooks/{webhook_id}/replay",
    summary="Deliver again every event after an id",
    responses={
        200: {"content": {"application/json": {"example": {"reopened": 12}}}},
        **problem_responses(401, 403, 404, 422),
    },
)
def replay_webhook(
    request: Request, webhook_id: WebhookId, replay: Annotated[Replay, Body()]
) -> dict[str, Any]:
    """Deliveries of events after `after_event_id` are owed again (same `webhook-id`,
    so a receiver that remembers ids can tell)."""
    store = _store(request)
    _get(store, webhook_id)
    n = store.replay_webhook(webhook_id, replay.after_event_id)
    _wake(request)
    return {"reopened": n}


@router.delete(
    "/webhooks/{webhook_id}",
    status_code=204,
    summary="Remove an endpoint",
    responses=problem_responses(401, 403, 404),
)
def delete_webhook(request: Request, webhook_id: WebhookId) -> Response:
    """The endpoint, its deliveries and their attempts are removed."""
    if not _store(request).delete_webhook(webhook_id):
        raise NotFoundError(f"no webhook with id {webhook_id}")
    return Response(status_code=204)


@router.get(
    "/webhooks/{webhook_id}/deliveries",
    summary="Every delivery attempt, newest first",
    responses={
        200: {"content": {"application/json": {"example": EXAMPLE_ATTEMPTS}}},
        **problem_responses(401, 403, 404, 422),
    },
)
def list_deliveries(
    request: Request,
    webhook_id: WebhookId,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    before: Annotated[int | None, Query(ge=1, description="attempts older than this id")] = None,
) -> dict[str, Any]:
    """Each attempt: when, which event, the HTTP status or error, how long it took, and
    the delivery's state (`pending`, `delivered`, `skipped`)."""
    store = _store(request)
    hook = _get(store, webhook_id)
    rows = store.list_attempts(webhook_id, limit, before)
    attempts = [
        {
            "id": r["id"],
            "delivery_id": r["delivery_id"],
            "event_id": r["event_id"],
            "at": iso_utc(r["at"]),
            "duration_ms": round(r["duration_ms"], 1),
            "status_code": r["status_code"],
            "error": r["error"],
            "ok": bool(r["ok"]),
            "delivery_status": r["status"],
            "delivery_attempts": r["attempts"],
        }
        for r in rows
    ]
    return {"webhook": hook_json(hook, _counts(store, hook)), "attempts": attempts}
