"""The webhook dispatcher: delivers lead events from the store's outbox to endpoints.

Every enabled endpoint whose backoff has expired is served by its own task, so a slow
or hostile receiver never delays another: fan out the events after its cursor into
pending deliveries (one transaction, so a crash owes them once), then send its pending
deliveries in event-id order as CloudEvents 1.0 JSON signed the Standard Webhooks way.
A delivery is marked done only after a 2xx; a failure stops that endpoint and sets its
next attempt after an exponential backoff with jitter; after ``webhook_disable_after``
failures in a row it is disabled until an admin re-enables it, and what it missed is
still owed then, in event-id order.

Each attempt has one total deadline (``webhook_timeout_s``: resolving, connecting,
sending and reading the answer together; httpx's own timeouts are per read, which a
receiver trickling a byte at a time never trips), reads at most
``webhook_max_answer_bytes`` of the answer and drops the rest with the connection, and
connects to the address it has just checked (``webhook_url``).

Delivery is at least once: a crash between a receiver's 2xx and the store marking it
leaves it owed, and it is sent again with the same ``webhook-id`` (the Standard Webhooks
idempotency key), so a receiver that remembers ids sees every event exactly once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import random
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import httpx
from standardwebhooks import Webhook

from vigia.ingest.records import iso_utc
from vigia.service.db.events import LeadEvent
from vigia.service.db.live_store import LiveStore, PendingDelivery, WebhookRecord
from vigia.service.runtime.live import EventFilter
from vigia.service.runtime.webhook_url import (
    Resolver,
    WebhookUrlError,
    resolve_webhook_url,
)
from vigia.service.settings import LiveSettings

log = logging.getLogger("vigia.webhooks")
SOURCE = "/vigia/leads"
_BATCH = 100  # deliveries read from the store at a time per endpoint
#: results counted in ``WebhookDispatcher.results`` (``vigia_webhook_deliveries_total``)
RESULTS = ("delivered", "http_error", "timeout", "network_error", "url_refused")


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
    """Serves endpoints on an event loop of its own thread; ``wake()`` looks for work now
    (new events). Store calls run on a small thread pool (``webhook_workers``)."""

    def __init__(
        self, store: LiveStore, settings: LiveSettings, resolver: Resolver = socket.getaddrinfo
    ) -> None:
        self._store = store
        self._settings = settings
        self._resolver = resolver
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._ready = threading.Event()
        self._pool = ThreadPoolExecutor(settings.webhook_workers, "vigia-webhook")
        self._thread = threading.Thread(target=self._main, name="vigia-webhooks", daemon=True)
        self._counts: Counter[str] = Counter()
        self._counts_lock = threading.Lock()

    def start(self) -> None:
        """Start delivering."""
        self._thread.start()
        self._ready.wait(10)

    def wake(self, _last_id: int = 0) -> None:
        """New events were committed: look for work now (any thread)."""
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop has just closed
                loop.call_soon_threadsafe(wake.set)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop: attempts in flight are cancelled (what is owed stays owed in the store)."""
        self._stop.set()
        self.wake()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def results(self) -> dict[str, int]:
        """Attempts made by this process so far, by result (every result present)."""
        with self._counts_lock:
            return {r: self._counts[r] for r in RESULTS}

    def _main(self) -> None:
        asyncio.run(self._run())

    async def _db(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: fn(*args, **kwargs))

    async def _run(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._ready.set()
        tasks: dict[int, asyncio.Task[None]] = {}
        again: set[int] = set()
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=20)
        async with httpx.AsyncClient(
            timeout=self._settings.webhook_timeout_s,
            follow_redirects=False,
            trust_env=False,
            limits=limits,
        ) as client:
            while not self._stop.is_set():
                self._wake.clear()
                try:
                    hooks = await self._db(self._store.due_webhooks, time.time())
                except Exception:  # the store may be away; try again soon
                    log.exception("webhook round failed")
                    hooks = []
                for hook in hooks:
                    if hook.id in tasks:  # one task per endpoint: each in order
                        # it may have looked for work before this wake-up's events
                        # were committed: look again as soon as it ends
                        again.add(hook.id)
                        continue
                    task = asyncio.create_task(self._serve(client, hook))
                    tasks[hook.id] = task
                    task.add_done_callback(functools.partial(self._ended, tasks, again, hook.id))
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._settings.poll_s):
                        await self._wake.wait()
            for task in list(tasks.values()):
                task.cancel()
            await asyncio.gather(*tasks.values(), return_exceptions=True)

    def _ended(
        self, tasks: dict[int, asyncio.Task[None]], again: set[int], hook_id: int, _t: object
    ) -> None:
        tasks.pop(hook_id, None)
        if hook_id in again and self._wake is not None:
            again.discard(hook_id)
            self._wake.set()

    async def _serve(self, client: httpx.AsyncClient, hook: WebhookRecord) -> None:
        """Deliver what the endpoint is owed until none is left or an attempt fails."""
        try:
            while not self._stop.is_set():
                await self._db(self._store.fan_out, hook, event_filter(hook))
                batch = await self._db(self._store.pending_deliveries, hook.id, _BATCH)
                if not batch:
                    return
                for delivery in batch:
                    if self._stop.is_set() or not await self._send(client, hook, delivery):
                        return
                fresh = await self._db(self._store.get_webhook, hook.id)
                if fresh is None or not fresh.enabled:  # an admin disabled or deleted it
                    return
                hook = fresh
        except Exception:
            log.exception("webhook %d: round failed", hook.id)

    async def _attempt(
        self, client: httpx.AsyncClient, hook: WebhookRecord, delivery: PendingDelivery
    ) -> tuple[str, int | None, str | None]:
        """One POST under one total deadline: (result, HTTP status, error)."""
        limit = self._settings.webhook_timeout_s
        cap = self._settings.webhook_max_answer_bytes
        body, headers = signed_request(hook.secret, delivery.event, time.time())
        try:
            async with asyncio.timeout(limit):
                # on the loop's own executor: a slow DNS answer must not hold the
                # threads every endpoint's store calls use
                target = await asyncio.to_thread(
                    resolve_webhook_url,
                    hook.url,
                    allow_private=hook.allow_private,
                    resolver=self._resolver,
                )
                request = client.build_request(
                    "POST",
                    target.url,
                    content=body,
                    headers=headers | {"host": target.host},
                    extensions={"sni_hostname": target.server_name},
                )
                response = await client.send(request, stream=True)
                try:
                    read = 0
                    async for chunk in response.aiter_raw():
                        read += len(chunk)
                        if read >= cap:  # the answer is not used: never hold more
                            break
                finally:
                    await response.aclose()
        except WebhookUrlError as exc:
            return "url_refused", None, str(exc)
        except TimeoutError:
            return "timeout", None, f"no complete answer within {limit:g} s"
        except httpx.TimeoutException as exc:
            return "timeout", None, f"{type(exc).__name__}: {exc}"[:500]
        except httpx.HTTPError as exc:
            return "network_error", None, f"{type(exc).__name__}: {exc}"[:500]
        status = response.status_code
        if 200 <= status < 300:
            return "delivered", status, None
        return "http_error", status, f"HTTP {status}"

    async def _send(
        self, client: httpx.AsyncClient, hook: WebhookRecord, delivery: PendingDelivery
    ) -> bool:
        t0 = time.perf_counter()
        result, status, error = await self._attempt(client, hook, delivery)
        with self._counts_lock:
            self._counts[result] += 1
        ok = result == "delivered"
        retry_at = None if ok else time.time() + self._backoff(hook.failures + 1)
        updated = await self._db(
            self._store.record_attempt,
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
