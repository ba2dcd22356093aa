"""/metrics reports SSE streams, webhook attempts by result, endpoints by state and the
outbox's backlog and age, read with prometheus-client's own text parser (the way
Prometheus reads it), on both stores."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.live.receiver import Receiver
from tests.live.service import ADMIN_KEY, Service, SseClient
from tests.storage.builders import lead
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository
from vigia.service.http.probe import ProbeServer

pytestmark = pytest.mark.slow


def _scrape(svc: Service) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = httpx.get(f"{svc.base}/metrics", headers={"X-API-Key": ADMIN_KEY}, timeout=10)
    assert r.status_code == 200
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def _until(check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_metrics_show_streams_webhooks_and_the_outbox(store_url: str, tmp_path: Path) -> None:
    rx = Receiver().start()
    store = open_repository(store_url)
    assert isinstance(store, SqlRepository)
    store.migrate()
    svc = Service(tmp_path, store_url).start()
    clients: list[SseClient] = []
    try:
        _, good = svc.request("POST", "/webhooks", {"url": rx.url, "allow_private": True})
        rx.secret = good["secret"]
        _, off = svc.request("POST", "/webhooks", {"url": rx.url, "allow_private": True})
        assert svc.request("PATCH", f"/webhooks/{off['id']}", {"enabled": False})[0] == 200
        clients = [
            SseClient(f"{svc.base}/leads/stream"),
            SseClient(f"{svc.base}/leads/stream"),
            SseClient(f"{svc.base}/leads/stream?positions=true&bbox=-50,-30,-30,-10"),
        ]
        for c in clients:
            assert c.connected.wait(10)
        before = time.time()
        store.upsert_leads([lead("L-1")])
        store.upsert_leads([lead("L-2")])
        store.upsert_leads([lead("L-3")])
        after = time.time()
        _until(lambda: len(rx.received) == 3)
        time.sleep(0.3)  # the success is recorded after the receiver's answer
        scraped_at = time.time()
        m = _scrape(svc)
        clients[0].close()
        time.sleep(0.5)
        m_later = _scrape(svc)
    finally:
        for c in clients:
            c.close()
        svc.stop()
        rx.stop()
        store.close()

    assert m[("vigia_sse_clients", (("kind", "leads"),))] == 2
    assert m[("vigia_sse_clients", (("kind", "leads_and_positions"),))] == 1
    assert m_later[("vigia_sse_clients", (("kind", "leads"),))] == 1
    assert m[("vigia_webhook_deliveries_total", (("result", "delivered"),))] == 3
    assert m[("vigia_webhook_deliveries_total", (("result", "timeout"),))] == 0
    assert m[("vigia_webhook_endpoints", (("state", "enabled"),))] == 1
    assert m[("vigia_webhook_endpoints", (("state", "disabled"),))] == 1
    good_l, off_l = (("webhook", str(good["id"])),), (("webhook", str(off["id"])),)
    assert m[("vigia_webhook_backlog_events", good_l)] == 0
    assert m[("vigia_webhook_backlog_events", off_l)] == 3  # all it missed, though disabled
    assert m[("vigia_webhook_backlog_age_seconds", good_l)] == 0
    # the oldest owed event (L-1) was stored between ``before`` and ``after``
    age = m[("vigia_webhook_backlog_age_seconds", off_l)]
    assert scraped_at - after - 0.05 <= age <= time.time() - before, age
    # units in the names (Prometheus naming); the old unitless name is gone
    names = {name for name, _ in m}
    assert "vigia_write_buffer_records" in names and "vigia_write_buffer" not in names


def test_broker_probe_names_carry_units() -> None:
    """A stat in seconds is exposed as ``_seconds``; counters end in ``_total``."""
    stats = {"e2e_latency_p95_s": 1.5, "lag_messages": 3, "redeliveries": 2}
    probe = ProbeServer("127.0.0.1", 0, "w0", lambda: (True, {}), lambda: stats).start()
    try:
        r = httpx.get(f"http://127.0.0.1:{probe.port}/metrics", timeout=10)
    finally:
        probe.close()
    samples = {s.name: s.value for f in text_string_to_metric_families(r.text) for s in f.samples}
    assert samples["vigia_bus_e2e_latency_p95_seconds"] == 1.5
    assert samples["vigia_bus_lag_messages"] == 3
    assert samples["vigia_bus_redeliveries_total"] == 2
    assert not any(name.endswith("_s") for name in samples)
