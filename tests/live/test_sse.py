"""``GET /leads/stream`` over real HTTP: every event exactly once across a client that
disconnects and a service killed with -9, filters, priority and positions."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.live.service import Service, SseClient
from tests.storage.builders import lead
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository

pytestmark = pytest.mark.slow

INSPECTOR = Actor("test-inspector", "inspector")


def _writer(url: str) -> SqlRepository:
    r = open_repository(url)
    assert isinstance(r, SqlRepository)
    r.migrate()
    return r


def test_every_event_once_across_disconnect_and_kill9(store_url: str, tmp_path: Path) -> None:
    store = _writer(store_url)  # another process writing leads, as a bus consumer would
    svc = Service(tmp_path, store_url).start()
    stream = f"{svc.base}/leads/stream"
    try:
        first = SseClient(stream)
        assert first.connected.wait(20) and first.error is None
        store.upsert_leads([lead(f"L-{i:02d}") for i in range(10)])
        got = first.wait_for(10)
        first.close()
        assert len(got) >= 10
        seen = got[:6]  # the client keeps what it processed, and reconnects after it
        store.upsert_leads([lead(f"L-{i:02d}") for i in range(10, 15)])

        second = SseClient(stream, last_id=seen[-1][0])
        seen += second.wait_for(9)
        second.close()

        svc.kill9()
        store.upsert_leads([lead(f"L-{i:02d}") for i in range(15, 20)])  # while it is down
        store.move_lead("L-03", Move("triaged"), INSPECTOR, scope=EVERY_AUTHORITY)
        svc.start()
        third = SseClient(stream, last_id=seen[-1][0])
        seen += third.wait_for(6)
        store.upsert_leads([lead("L-20")])
        seen += third.wait_for(7)[6:]
        third.close()
    finally:
        svc.stop()
        store.close()
    ids = [int(i) for i, _, _ in seen]
    assert ids == sorted(set(ids)) and len(ids) == 22, ids
    assert [d["id"] for _, kind, d in seen if kind == "lead.opened"] == [
        f"L-{i:02d}" for i in range(21)
    ]
    assert [(kind, d["id"], d["status"]) for _, kind, d in seen if kind == "lead.status"] == [
        ("lead.status", "L-03", "triaged")
    ]


def test_filters_priority_and_positions(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'v.sqlite'}"
    store = _writer(url)
    svc = Service(tmp_path, url).start()
    try:
        sar_only = SseClient(f"{svc.base}/leads/stream?min_priority=100")
        platform = SseClient(f"{svc.base}/leads/stream?rule=SEC-PLATFORM&zone_id=plat-p50")
        everything = SseClient(f"{svc.base}/leads/stream")
        for c in (sar_only, platform, everything):
            assert c.connected.wait(20) and c.error is None
        sar = lead("L-sar", rule="SAR-DISTRESS", mmsi=970_000_001, zone_id=None)
        other = lead("L-other", zone_id="plat-p66")
        store.upsert_leads([lead("L-p50"), other, sar])
        all_three = everything.wait_for(3)
        # the distress beacon goes out first although it was written last
        assert [d["id"] for _, _, d in all_three] == ["L-sar", "L-p50", "L-other"]
        assert [d["id"] for _, _, d in sar_only.wait_for(1)] == ["L-sar"]
        assert [d["id"] for _, _, d in platform.wait_for(1)] == ["L-p50"]
        assert len(sar_only.events) == 1 and len(platform.events) == 1
        for c in (sar_only, platform, everything):
            c.close()

        status, problem = svc.request("GET", "/leads/stream?rule=NOPE")
        assert status == 422 and "unknown rule" in problem["detail"]
        status, _ = svc.request("GET", "/leads/stream?positions=true")
        assert status == 422

        # a clean shutdown with a client still connected: the stream ends, the service exits
        lingering = SseClient(f"{svc.base}/leads/stream")
        assert lingering.connected.wait(20)
        t0 = time.monotonic()
        assert svc.stop() in (0, -signal.SIGTERM)
        assert time.monotonic() - t0 < 15
        # closed as a stream should be (the last chunk sent), not cut mid-body
        assert lingering.ended(5) and lingering.error is None, lingering.error
        lingering.close()
    finally:
        svc.stop()
        store.close()
