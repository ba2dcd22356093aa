"""The webhook dispatcher: delivers lead events from the store's outbox to endpoints.

Each round, for every enabled endpoint whose backoff has expired: fan out the events
after its cursor into pending deliveries (one transaction, so a crash owes them once),
then send its pending deliveries, the most urgent first, as CloudEvents 1.0 JSON signed
the Standard Webhooks way. A delivery is marked done only after a 2xx; a failure stops
that endpoint's round and sets its next attempt after an exponential backoff with
jitter; after ``webhook_disable_after`` failures in a row it is disabled until an admin
re-enables it, and what it missed is still owed then.

Delivery is at least once: a crash between a receiver's 2xx and the store marking it
leaves it owed, and it is sent again with the same ``webhook-id`` (the Standard Webhooks
idempotency key), so a receiver that remembers ids sees every event exactly once.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import httpx
from standardwebhooks import Webhook

from vigia.ingest.records import iso_utc
from vigia.service.db.events import LeadEvent
from vigia.service.db.live_store import LiveStore, PendingDelivery, WebhookRecord
from vigia.service.runtime.live import EventFilter
from vigia.service.runtime.webhook_url import WebhookUrlError, check_webhook_url
from vigia.service.settings import LiveSettings

log = logging.getLogger("vigia.webhooks")
SOURCE = "/vigia/leads"
_ROUND = 100  # deliveries sent per endpoint per round, so one busy endpoint cannot starve


def cloud_event(event: LeadEvent) -> dict[str, Any]:
    """The CloudEvents 1.0 structured-mode JSON of a lead event."""
    return {
        "specversion": "1.0",
        "id": str(event.id),
        "source": SOURCE,
        "type": event.type,
        "subject": event.lead_id,
        "time": iso_utc(event.created_at),
        "datacontenttype": "application/json",
        "vigiapriority": event.priority,
        "data": event.data,
    }


def signed_request(secret: str, event: LeadEvent, now: float) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a delivery (``webhook-id`` is the same on every retry)."""
    body = json.dumps(cloud_event(event), separators=(",", ":"))
    msg_id = f"vigia-evt-{event.id}"
    stamp = datetime.fromtimestamp(int(now), tz=UTC)
    headers = {
        "content-type": "application/cloudevents+json; charset=utf-8",
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now)),
        "webhook-signature": Webhook(secret).sign(msg_id, stamp, body),
        "user-agent": "vigia-webhooks/1",
    }
    return body.encode(), headers


def event_filter(hook: WebhookRecord) -> EventFilter:
    """What an endpoint asked for."""
    f = hook.filters
    return EventFilter(
        rule=f.get("rule"),
        zone_id=f.get("zone_id"),
        authority=f.get("authority"),
        min_priority=int(f.get("min_priority") or 0),
        types=frozenset(hook.events) if hook.events else None,
    )


class WebhookDispatcher:
    """Runs delivery rounds on a thread; ``wake()`` starts one now (new events)."""

    def __init__(self, store: LiveStore, settings: LiveSettings) -> None:
        self._store = store
        self._settings = settings
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(settings.webhook_workers, "vigia-webhook")
        self._client = httpx.Client(
            timeout=settings.webhook_timeout_s, follow_redirects=False, trust_env=False
        )
        self._thread = threading.Thread(target=self._run, name="vigia-webhooks", daemon=True)

    def start(self) -> None:
        """Start delivering."""
        self._thread.start()

    def wake(self, _last_id: int = 0) -> None:
        """New events were committed: run a round now."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Finish the current round and stop (what is owed stays owed in the store)."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.run_once()
            except Exception:  # the store may be away; try again next round
                log.exception("webhook round failed")
            self._wake.wait(self._settings.poll_s)
            self._wake.clear()

    def run_once(self) -> None:
        """One round over every due endpoint (in parallel, each in order)."""
        hooks = self._store.due_webhooks(time.time())
        for future in [self._pool.submit(self._serve, h) for h in hooks]:
            future.result()

    def _serve(self, hook: WebhookRecord) -> None:
        self._store.fan_out(hook, event_filter(hook))
        for delivery in self._store.pending_deliveries(hook.id, _ROUND):
            if self._stop.is_set() or not self._send(hook, delivery):
                return

    def _send(self, hook: WebhookRecord, delivery: PendingDelivery) -> bool:
        now = time.time()
        body, headers = signed_request(hook.secret, delivery.event, now)
        status: int | None = None
        error: str | None = None
        t0 = time.perf_counter()
        try:
            check_webhook_url(hook.url, allow_private=hook.allow_private)
            response = self._client.post(hook.url, content=body, headers=headers)
            status = response.status_code
            if not 200 <= status < 300:
                error = f"HTTP {status}"
        except WebhookUrlError as exc:
            error = str(exc)
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"[:500]
        ok = error is None
        retry_at = None if ok else time.time() + self._backoff(hook.failures + 1)
        updated = self._store.record_attempt(
            delivery,
            ok=ok,
            status_code=status,
            error=error,
            duration_ms=(time.perf_counter() - t0) * 1000.0,
            retry_at=retry_at,
            disable_after=self._settings.webhook_disable_after,
        )
        if updated is not None and not updated.enabled:
            log.warning("webhook %d disabled: %s", hook.id, updated.disabled_reason)
        return ok

    def _backoff(self, failures: int) -> float:
        """Exponential in the failures so far, capped, with "equal jitter" so endpoints
        that failed together do not all come back at once."""
        s = self._settings
        full = min(
            s.webhook_backoff_max_s, s.webhook_backoff_initial_s * 2 ** min(failures - 1, 30)
        )
        return float(full / 2 + random.uniform(0, full / 2))
