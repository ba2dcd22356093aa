"""Live-delivery metrics: SSE streams open, webhook attempts by result, endpoints by
state, and what the outbox still owes each endpoint and for how long.

Read at scrape time from the hub, the dispatcher and the store. Events a disabled
endpoint missed are turned into deliveries first (as ``GET /webhooks/{id}`` does), so
the backlog counts everything owed, not only what the dispatcher has fanned out.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from vigia.service.db.live_store import LiveStore
from vigia.service.runtime.live import LiveHub
from vigia.service.runtime.webhooks import RESULTS, WebhookDispatcher, event_filter

log = logging.getLogger(__name__)


@dataclass(slots=True)
class LiveSources:
    """What the live collector reads (any may be absent: no hub, no dispatcher)."""

    hub: LiveHub | None = None
    dispatcher: WebhookDispatcher | None = None
    store: LiveStore | None = None
    clock: Callable[[], float] = field(default=time.time)


class LiveCollector(Collector):
    """Turns the live sources into metric families."""

    def __init__(self, source: Callable[[], LiveSources]) -> None:
        self._source = source

    def collect(self) -> Iterator[Metric]:
        src = self._source()
        # a family shows only where its source lives (not in ``serve --worker-only``)
        if src.hub is not None:
            streams, with_positions = src.hub.clients()
            sse = GaugeMetricFamily(
                "vigia_sse_clients", "Server-Sent Events streams open now, by kind", labels=["kind"]
            )
            sse.add_metric(["leads"], streams - with_positions)
            sse.add_metric(["leads_and_positions"], with_positions)
            yield sse
        if src.dispatcher is not None:
            yield self._attempts(src.dispatcher)
        if src.store is not None:
            yield from self._backlog(src.store, src.clock())

    @staticmethod
    def _attempts(dispatcher: WebhookDispatcher) -> Metric:
        results = dispatcher.results()
        attempts = CounterMetricFamily(
            "vigia_webhook_deliveries",
            "Webhook delivery attempts made by this process, by result (delivered, "
            "http_error: a non-2xx answer, timeout, network_error, url_refused)",
            labels=["result"],
        )
        for result in RESULTS:
            attempts.add_metric([result], results.get(result, 0))
        return attempts

    @staticmethod
    def _backlog(store: LiveStore, now: float) -> Iterator[Metric]:
        endpoints = GaugeMetricFamily(
            "vigia_webhook_endpoints", "Webhook endpoints registered, by state", labels=["state"]
        )
        owed = GaugeMetricFamily(
            "vigia_webhook_backlog_events",
            "Events the outbox still owes each webhook endpoint",
            labels=["webhook"],
        )
        age = GaugeMetricFamily(
            "vigia_webhook_backlog_age_seconds",
            "Age of the oldest event the outbox still owes each endpoint (0: owes nothing)",
            labels=["webhook"],
        )
        try:
            for hook in store.list_webhooks():
                store.fan_out(hook, event_filter(hook), to_head=True)
            rows = store.webhook_backlog()
        except Exception:  # the store may be away: the other families still report
            log.exception("webhook backlog not readable")
            return
        enabled = sum(1 for r in rows if r[1])
        endpoints.add_metric(["enabled"], enabled)
        endpoints.add_metric(["disabled"], len(rows) - enabled)
        for hook_id, _on, pending, oldest in rows:
            owed.add_metric([str(hook_id)], pending)
            age.add_metric([str(hook_id)], 0.0 if oldest is None else max(0.0, now - oldest))
        yield endpoints
        yield owed
        yield age
