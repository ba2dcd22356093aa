"""The repository's live-delivery part: reading the event log, waking listeners when
events are committed, and the webhook tables (endpoints, deliveries, attempts)."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.engine import Connection

from vigia.ingest.records import Position
from vigia.service.db import epochs
from vigia.service.db import events as ev
from vigia.service.db.events import LeadEvent
from vigia.service.db.outbox_models import (
    LeadEventRow,
    WebhookAttemptRow,
    WebhookDeliveryRow,
    WebhookRow,
)
from vigia.service.db.protocol import EVERY_AUTHORITY, Scope

log = logging.getLogger(__name__)
_W, _D, _A = WebhookRow, WebhookDeliveryRow, WebhookAttemptRow


@dataclass(slots=True, frozen=True)
class WebhookRecord:
    """A registered webhook endpoint (the secret is only handed out at creation)."""

    id: int
    url: str
    events: list[str]
    filters: dict[str, Any]
    secret: str
    allow_private: bool
    enabled: bool
    disabled_reason: str | None
    failures: int
    next_attempt_at: float
    cursor: int
    created_at: float


@dataclass(slots=True, frozen=True)
class PendingDelivery:
    """An event still owed to a webhook."""

    id: int
    webhook_id: int
    event: LeadEvent
    attempts: int


def _record(r: Any) -> WebhookRecord:
    return WebhookRecord(
        id=int(r.id),
        url=r.url,
        events=list(r.events),
        filters=dict(r.filters),
        secret=r.secret,
        allow_private=bool(r.allow_private),
        enabled=bool(r.enabled),
        disabled_reason=r.disabled_reason,
        failures=int(r.failures),
        next_attempt_at=float(r.next_attempt_at),
        cursor=int(r.cursor),
        created_at=float(r.created_at),
    )


_WCOLS = tuple(_W.__table__.columns)


class LiveStore:
    """Mixed into SqlRepository: needs ``_tx()`` and ``_pg``."""

    _pg: bool
    _tx: Callable[[], AbstractContextManager[Connection]]
    _insert: Callable[[Any], Any]

    def _init_live(self) -> None:
        self._listeners: list[Callable[[int], None]] = []
        self._position_listeners: list[Callable[[Sequence[Position]], None]] = []
        self._listen_lock = threading.Lock()

    # listeners: in-process wake-ups; the store stays the source of truth
    def add_event_listener(self, callback: Callable[[int], None]) -> Callable[[], None]:
        """Call ``callback(last_id)`` after each commit that wrote events; returns a
        function that removes it. Callbacks run on the writer's thread: keep them short."""
        with self._listen_lock:
            self._listeners.append(callback)

        def remove() -> None:
            with self._listen_lock, contextlib.suppress(ValueError):
                self._listeners.remove(callback)

        return remove

    def add_position_listener(
        self, callback: Callable[[Sequence[Position]], None]
    ) -> Callable[[], None]:
        """Call ``callback(batch)`` after each committed batch of positions."""
        with self._listen_lock:
            self._position_listeners.append(callback)

        def remove() -> None:
            with self._listen_lock, contextlib.suppress(ValueError):
                self._position_listeners.remove(callback)

        return remove

    def _notify_events(self, last_id: int) -> None:
        if not last_id:
            return
        with self._listen_lock:
            listeners = list(self._listeners)
        for cb in listeners:
            try:
                cb(last_id)
            except Exception:  # a listener must never fail a write
                log.exception("event listener failed")

    def _notify_positions(self, batch: Sequence[Position]) -> None:
        with self._listen_lock:
            listeners = list(self._position_listeners)
        for cb in listeners:
            try:
                cb(batch)
            except Exception:
                log.exception("position listener failed")

    # the event log
    def events_after(self, after_id: int, limit: int = 500, *, scope: Scope) -> list[LeadEvent]:
        """Stored events of leads in ``scope`` with an id above ``after_id``, oldest first."""
        with self._tx() as conn:
            return ev.after(conn, after_id, limit, scope)

    def last_event_id(self) -> int:
        """The highest stored event id (0 when none)."""
        with self._tx() as conn:
            return ev.head(conn)

    def unplaceable_event(self, event_id: int) -> str | None:
        """Why a client cannot resume after ``event_id`` here (None: it can): an id
        above the newest, or one the store lost in a restore (``epochs``)."""
        with self._tx() as conn:
            return epochs.unplaceable(conn, event_id)

    # webhooks
    def add_webhook(
        self,
        url: str,
        events: list[str],
        filters: dict[str, Any],
        secret: str,
        allow_private: bool,
    ) -> WebhookRecord:
        """Register an endpoint; it receives events from now on."""
        now = time.time()
        with self._tx() as conn:
            head = ev.head(conn)
            new_id = conn.execute(
                insert(_W)
                .values(
                    url=url,
                    events=events,
                    filters=filters,
                    secret=secret,
                    allow_private=allow_private,
                    enabled=True,
                    failures=0,
                    next_attempt_at=0.0,
                    cursor=head,
                    created_at=now,
                )
                .returning(_W.id)
            ).scalar_one()
            return _record(conn.execute(select(*_WCOLS).where(_W.id == new_id)).one())

    def get_webhook(self, webhook_id: int) -> WebhookRecord | None:
        """One endpoint."""
        with self._tx() as conn:
            row = conn.execute(select(*_WCOLS).where(_W.id == webhook_id)).first()
        return None if row is None else _record(row)

    def list_webhooks(self) -> list[WebhookRecord]:
        """Every endpoint, oldest first."""
        with self._tx() as conn:
            return [_record(r) for r in conn.execute(select(*_WCOLS).order_by(_W.id))]

    def delete_webhook(self, webhook_id: int) -> bool:
        """Remove an endpoint with its deliveries and attempts."""
        with self._tx() as conn:
            conn.execute(delete(_A).where(_A.webhook_id == webhook_id))
            conn.execute(delete(_D).where(_D.webhook_id == webhook_id))
            return bool(conn.execute(delete(_W).where(_W.id == webhook_id)).rowcount)

    def set_webhook_enabled(
        self, webhook_id: int, enabled: bool, reason: str | None = None, *, replay: bool = True
    ) -> WebhookRecord | None:
        """Enable (failures reset; with ``replay`` what it missed is still owed, else
        skipped) or disable an endpoint."""
        with self._tx() as conn:
            values: dict[str, Any] = {"enabled": enabled, "disabled_reason": reason}
            if enabled:
                values |= {"failures": 0, "next_attempt_at": 0.0, "disabled_reason": None}
                if not replay:
                    values["cursor"] = ev.head(conn)
                    conn.execute(
                        update(_D)
                        .where(_D.webhook_id == webhook_id, _D.status == "pending")
                        .values(status="skipped")
                    )
            done = conn.execute(update(_W).where(_W.id == webhook_id).values(**values))
            if not done.rowcount:
                return None
            return _record(conn.execute(select(*_WCOLS).where(_W.id == webhook_id)).one())

    def replay_webhook(self, webhook_id: int, after_event_id: int) -> int:
        """Owe the endpoint again every event after ``after_event_id`` (already delivered
        ones included); returns how many deliveries were reopened or added."""
        with self._tx() as conn:
            reopened = conn.execute(
                update(_D)
                .where(_D.webhook_id == webhook_id, _D.event_id > after_event_id)
                .values(status="pending", delivered_at=None)
            ).rowcount
            # events past the cursor are owed anyway once fanned out
            return int(reopened or 0)

    def due_webhooks(self, now: float) -> list[WebhookRecord]:
        """Enabled endpoints whose backoff has expired."""
        with self._tx() as conn:
            rows = conn.execute(
                select(*_WCOLS).where(_W.enabled, _W.next_attempt_at <= now).order_by(_W.id)
            )
            return [_record(r) for r in rows]

    def fan_out(
        self, hook: WebhookRecord, wanted: Callable[[LeadEvent], bool], *, to_head: bool = False
    ) -> int:
        """Add a pending delivery for each new event the endpoint wants and move its
        cursor, a page at a time, each in one transaction (all pages up to the newest
        event with ``to_head``); returns how many were added. Safe to run concurrently
        (the dispatcher and a count): a delivery is added once, the cursor only grows."""
        added = 0
        while True:
            with self._tx() as conn:
                cursor = conn.execute(
                    select(_W.cursor).where(_W.id == hook.id).with_for_update()
                ).scalar()
                if cursor is None:
                    return added
                # an endpoint is an admin's: its own filters choose the authority
                batch = ev.after(conn, int(cursor), 1000, EVERY_AUTHORITY)
                if not batch:
                    return added
                rows = [
                    {
                        "webhook_id": hook.id,
                        "event_id": e.id,
                        "priority": e.priority,
                        "status": "pending",
                        "attempts": 0,
                        "created_at": time.time(),
                    }
                    for e in batch
                    if wanted(e)
                ]
                if rows:
                    conn.execute(
                        self._insert(_D)
                        .values(rows)
                        .on_conflict_do_nothing(index_elements=["webhook_id", "event_id"])
                    )
                conn.execute(
                    update(_W)
                    .where(_W.id == hook.id, _W.cursor < batch[-1].id)
                    .values(cursor=batch[-1].id)
                )
                added += len(rows)
            if not to_head:
                return added

    def pending_deliveries(self, webhook_id: int, limit: int) -> list[PendingDelivery]:
        """Owed deliveries in event-id order (the order the events were committed in,
        across leads), so a receiver that was away gets its backlog as it happened."""
        with self._tx() as conn:
            rows = conn.execute(
                select(_D.id, _D.event_id, _D.attempts)
                .where(_D.webhook_id == webhook_id, _D.status == "pending")
                .order_by(_D.event_id)
                .limit(limit)
            ).all()
            found = ev.by_ids(conn, [int(r.event_id) for r in rows])
        return [
            PendingDelivery(int(r.id), webhook_id, found[int(r.event_id)], int(r.attempts))
            for r in rows
            if int(r.event_id) in found
        ]

    def record_attempt(
        self,
        delivery: PendingDelivery,
        *,
        ok: bool,
        status_code: int | None,
        error: str | None,
        duration_ms: float,
        retry_at: float | None = None,
        disable_after: int = 0,
    ) -> WebhookRecord | None:
        """Store one attempt; on success mark the delivery done and reset the endpoint's
        failures; on failure count it, set the backoff, and disable the endpoint once it
        has failed ``disable_after`` times in a row. Returns the endpoint."""
        now = time.time()
        wid = delivery.webhook_id
        with self._tx() as conn:
            conn.execute(
                insert(_A).values(
                    webhook_id=wid,
                    delivery_id=delivery.id,
                    event_id=delivery.event.id,
                    at=now,
                    duration_ms=duration_ms,
                    status_code=status_code,
                    error=error,
                    ok=ok,
                )
            )
            done: dict[str, Any] = {"attempts": _D.attempts + 1}
            if ok:
                done |= {"status": "delivered", "delivered_at": now}
            conn.execute(update(_D).where(_D.id == delivery.id).values(**done))
            if ok:
                hook_values: dict[str, Any] = {"failures": 0, "next_attempt_at": 0.0}
            else:
                hook_values = {"failures": _W.failures + 1, "next_attempt_at": retry_at or now}
            conn.execute(update(_W).where(_W.id == wid).values(**hook_values))
            if not ok and disable_after:
                conn.execute(
                    update(_W)
                    .where(_W.id == wid, _W.failures >= disable_after)
                    .values(enabled=False, disabled_reason=f"{disable_after} failures in a row")
                )
            row = conn.execute(select(*_WCOLS).where(_W.id == wid)).first()
        return None if row is None else _record(row)

    def list_attempts(
        self, webhook_id: int, limit: int, before_id: int | None = None
    ) -> list[dict[str, Any]]:
        """Attempts at an endpoint, newest first, with their delivery's state."""
        conds = [_A.webhook_id == webhook_id]
        if before_id is not None:
            conds.append(_A.id < before_id)
        with self._tx() as conn:
            rows = conn.execute(
                select(
                    _A.id,
                    _A.delivery_id,
                    _A.event_id,
                    _A.at,
                    _A.duration_ms,
                    _A.status_code,
                    _A.error,
                    _A.ok,
                    _D.status,
                    _D.attempts,
                )
                .join(_D, _D.id == _A.delivery_id)
                .where(and_(*conds))
                .order_by(_A.id.desc())
                .limit(limit)
            ).all()
        return [dict(r._mapping) for r in rows]

    def delivery_counts(self, webhook_id: int) -> dict[str, int]:
        """How many deliveries of the endpoint are pending, delivered, skipped."""
        with self._tx() as conn:
            rows = conn.execute(
                select(_D.status, func.count())
                .where(_D.webhook_id == webhook_id)
                .group_by(_D.status)
            ).all()
        return {str(r[0]): int(r[1]) for r in rows}

    def webhook_backlog(self) -> list[tuple[int, bool, int, float | None]]:
        """Per endpoint: its id, whether it is enabled, how many deliveries it is owed,
        and when the oldest owed event was stored (None: owed nothing)."""
        with self._tx() as conn:
            rows = conn.execute(
                select(_W.id, _W.enabled, func.count(_D.id), func.min(LeadEventRow.created_at))
                .select_from(_W)
                .outerjoin(_D, and_(_D.webhook_id == _W.id, _D.status == "pending"))
                .outerjoin(LeadEventRow, LeadEventRow.id == _D.event_id)
                .group_by(_W.id, _W.enabled)
                .order_by(_W.id)
            ).all()
        return [
            (int(r[0]), bool(r[1]), int(r[2]), None if r[3] is None else float(r[3])) for r in rows
        ]
