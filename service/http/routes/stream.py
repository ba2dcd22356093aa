"""``GET /leads/stream``: leads as Server-Sent Events, resumable from the store.

Every lead event has its event-log id as the SSE ``id``; a client that reconnects with
``Last-Event-ID`` (browsers do it by themselves) gets every event after it, read from the
store, so a restart of the service loses nothing. Without it the stream starts at the
newest event. ``vessel.position`` events (only with ``positions=true``) carry no id:
positions are live only, not replayed.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, Header, Query, Request
from sse_starlette import EventSourceResponse
from starlette.types import Receive, Scope, Send

from vigia.ingest.records import iso_utc
from vigia.service.db.events import payload
from vigia.service.db.live_store import LiveStore
from vigia.service.db.protocol import ApiKeyRecord, LeadQuery, Repository
from vigia.service.db.protocol import Scope as LeadScope
from vigia.service.errors import RequestInvalidError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.leads import RULE_CODES, check_authority
from vigia.service.http.routes.params import BBOX_DESCRIPTION, get_settings, parse_bbox
from vigia.service.http.stream_limits import StreamLimits
from vigia.service.http.stream_token import issue
from vigia.service.runtime.live import EventFilter, LiveHub, Subscription, sse_frame
from vigia.service.runtime.live_feed import SharedFeed
from vigia.service.settings import Settings

router = APIRouter(tags=["live"], dependencies=[Depends(require_role("viewer"))])

#: sent first when the client's Last-Event-ID cannot be placed (data: why, the current
#: leads, and the id the stream resumes after)
RESET = "stream.reset"
STREAM_EXAMPLE = (
    'id: 42\nevent: lead.opened\ndata: {"id": "L-3f9c2a1b7d4e5f60", "rule": '
    '"SEC-PLATFORM", "priority": 50, ...}\n\n'
)


def _resume_from(header: str | None, query: int | None) -> int | None:
    if query is not None:
        return query
    if header is None or header.strip() == "":
        return None
    text = header.strip()
    if not text.isdigit() or len(text) > 18:
        raise RequestInvalidError(f"Last-Event-ID {text[:40]!r} is not an event id")
    return int(text)


def _resume(
    store: LiveStore,
    repo: Repository,
    start: int | None,
    query: LeadQuery,
    wanted: EventFilter,
    scope: LeadScope,
    limit: int,
) -> tuple[int, bytes | None]:
    """Where the stream starts, and the ``stream.reset`` frame to send first when the
    store cannot place the client's last id (above its newest, or lost in a restore:
    docs/operations.md). Resuming from such an id would skip every event up to it in
    silence, so the client is told, given the current leads, and resumes at the head."""
    if start is None:
        return store.last_event_id(), None
    reason = store.unplaceable_event(start)
    if reason is None:
        return start, None
    head = store.last_event_id()
    leads, total = repo.list_leads(query, limit, scope=scope)
    current = [payload(lead) for lead in leads]
    data = {
        "reason": reason,
        "last_event_id": start,
        "resume_after": head,
        "leads": [d for d in current if d["priority"] >= wanted.min_priority],
        "leads_total": total,
    }
    return head, sse_frame(json.dumps(data, separators=(",", ":")), RESET, head)


class _Stream(EventSourceResponse):
    """The event stream; gives its slot back however it ends."""

    def __init__(self, *args: Any, release: Callable[[], None], **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


async def _events(
    feed: SharedFeed,
    sub: Subscription,
    cursor: int,
    wanted: EventFilter,
    scope: LeadScope,
    settings: Settings,
    shutdown: anyio.Event,
    reset: bytes | None = None,
) -> AsyncIterator[bytes]:
    batch_size, poll = settings.live.sse_batch, settings.live.poll_s
    positions_every = settings.live.sse_positions_interval_s
    try:
        if reset is not None:
            yield reset
        # on shutdown the stream ends here, between events, so the response is closed
        # properly; the client reconnects elsewhere with Last-Event-ID and loses nothing
        while not shutdown.is_set():
            page = await feed.after(cursor, batch_size)
            if page:
                cursor = page[-1].event.id
                # frames encoded once by the feed; one write per page, not per event
                # the feed is shared by every authority's streams: each keeps its own leads
                chunk = b"".join(
                    f.data for f in page if wanted(f.event) and scope.admits(f.event.authority)
                )
                if chunk:
                    yield chunk
            if len(page) == batch_size:
                # replaying a backlog: let every other request run between pages
                await anyio.sleep(0)
                continue  # catching up: read on before sending positions
            if sub.positions:
                while sub.positions:
                    n = min(len(sub.positions), batch_size)
                    yield b"".join(sub.positions.popleft() for _ in range(n))
                    await anyio.sleep(0)
                sub.hold_positions(positions_every)
            await sub.wait(poll)
    finally:
        sub.close()


def _shared(request: Request, store: LiveStore, hub: LiveHub, settings: Settings) -> SharedFeed:
    """The app's one feed (made on first use, on the event loop it serves)."""
    feed: SharedFeed | None = getattr(request.app.state, "live_feed", None)
    if feed is None:
        live = settings.live
        feed = SharedFeed(store, hub, live.poll_s, replay_pages_per_s=live.sse_replay_pages_per_s)
        request.app.state.live_feed = feed
    return feed


def _limits(request: Request, settings: Settings) -> StreamLimits:
    limits: StreamLimits | None = getattr(request.app.state, "stream_limits", None)
    if limits is None:
        live = settings.live
        limits = StreamLimits(live.sse_max_per_key, live.sse_max_total, live.sse_retry_after_s)
        request.app.state.stream_limits = limits
    return limits


@router.get(
    "/leads/stream",
    summary="Leads as they happen (Server-Sent Events)",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {"example": STREAM_EXAMPLE}}},
        **problem_responses(401, 403, 422, 429),
    },
)
async def lead_stream(
    request: Request,
    settings: Annotated[Settings, Depends(get_settings)],
    key: Annotated[ApiKeyRecord, Depends(require_role("viewer"))],
    rule: Annotated[str | None, Query(max_length=64, examples=["SAR-DISTRESS"])] = None,
    zone_id: Annotated[str | None, Query(max_length=200)] = None,
    authority: Annotated[str | None, Query(max_length=200)] = None,
    min_priority: Annotated[
        int, Query(ge=0, le=100, description="100 is a distress beacon; 50 a security area")
    ] = 0,
    positions: Annotated[
        bool, Query(description="also send `vessel.position` events (needs `bbox`)")
    ] = False,
    bbox: Annotated[str | None, Query(description=BBOX_DESCRIPTION)] = None,
    last_event_id: Annotated[
        int | None,
        Query(ge=0, le=2**62, description="resume after this id (as the header would)"),
    ] = None,
    last_event_id_header: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
    token: Annotated[
        str | None,
        Query(
            max_length=1000,
            description="a stream token from `POST /leads/stream/token`, for clients that "
            "cannot send a header (a browser's EventSource); read by the key check",
        ),
    ] = None,
) -> EventSourceResponse:
    """`lead.opened`, `lead.updated` and `lead.status` events (data: the lead JSON with
    its `priority`), each with an increasing `id`; reconnect with `Last-Event-ID` to get
    everything missed, across restarts. Keep-alive comments every few seconds."""
    del token  # checked with the key (deps.require_role), declared here for the docs
    if rule is not None and rule not in RULE_CODES:
        raise RequestInvalidError(f"unknown rule {rule!r}; known rules: {', '.join(RULE_CODES)}")
    # the key itself (not only its scope): the stream limits count per key
    scope = LeadScope(key.authority)
    check_authority(scope, authority)
    box = parse_bbox(bbox)
    if positions and box is None:
        raise RequestInvalidError("positions=true needs a bbox: the whole coast is too much")
    store = get_repository(request)
    hub: LiveHub | None = getattr(request.app.state, "live_hub", None)
    if hub is None or not isinstance(store, LiveStore):
        raise RequestInvalidError("this store keeps no event log")
    start = _resume_from(last_event_id_header, last_event_id)
    limits = _limits(request, settings)
    limits.acquire(key.id)  # a 429 before anything is subscribed
    # subscribe before reading the head, so nothing committed in between is missed
    sub = hub.subscribe(box, positions=positions)
    wanted = EventFilter(rule, zone_id, authority, min_priority)
    try:
        query = LeadQuery(rule=rule, zone_id=zone_id, authority=authority)
        cursor, reset = await anyio.to_thread.run_sync(
            _resume, store, store, start, query, wanted, scope, settings.live.sse_batch
        )
    except BaseException:
        sub.close()
        limits.release(key.id)
        raise
    headers: dict[str, Any] = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    shutdown = anyio.Event()
    return _Stream(
        _events(
            _shared(request, store, hub, settings),
            sub,
            cursor,
            wanted,
            scope,
            settings,
            shutdown,
            reset,
        ),
        release=lambda: limits.release(key.id),
        ping=settings.live.sse_ping_s,
        headers=headers,
        send_timeout=30.0,
        # sse-starlette sets the event when the server stops, then waits this long for
        # the generator to end on its own (it notices within one poll) before cancelling
        shutdown_event=shutdown,
        shutdown_grace_period=settings.live.poll_s + 1.0,
    )


TOKEN_EXAMPLE = {
    "token": "eyJhdXRob3JpdHkiOm51bGwsLi4ufQ.3q2-7w",
    "expires_at": "2026-01-10T14:05:00Z",
    "expires_in": 300,
    "stream": "/leads/stream?token=eyJhdXRob3JpdHkiOm51bGwsLi4ufQ.3q2-7w",
}


@router.post(
    "/leads/stream/token",
    summary="A short-lived, read-only token that opens the lead stream (for EventSource)",
    responses={
        200: {"content": {"application/json": {"example": TOKEN_EXAMPLE}}},
        **problem_responses(401, 403),
    },
)
def stream_token(
    request: Request,
    settings: Annotated[Settings, Depends(get_settings)],
    caller: Annotated[ApiKeyRecord, Depends(require_role("viewer"))],
) -> dict[str, Any]:
    """A browser's `EventSource` can send no header: ask for a token with the key, then
    open `/leads/stream?token=...` (add `&last_event_id=N` to resume). The token opens
    only the stream, for `VIGIA_AUTH_STREAM_TOKEN_TTL_S` (300 s), with the asking key's
    authority; a stream it opened stays open after that. It is not accepted anywhere
    else, and not to ask for another token."""
    ttl = settings.auth.stream_token_ttl_s
    out = issue(caller, request.app.state.stream_token_secret, ttl, time.time())
    return {
        "token": out.token,
        "expires_at": iso_utc(out.expires_at),
        "expires_in": int(ttl),
        "stream": f"/leads/stream?token={out.token}",
    }
