"""Webhooks end to end: a real receiver on 127.0.0.1 verifies every signature with
``standardwebhooks``, fails on purpose, goes down, and gets every event exactly once
after it comes back, the service having been killed with -9 meanwhile."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.live.receiver import Receiver
from tests.live.service import Service
from tests.storage.builders import lead
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository

pytestmark = pytest.mark.slow

FAST_RETRIES = {
    "VIGIA_LIVE_WEBHOOK_BACKOFF_INITIAL_S": "0.1",
    "VIGIA_LIVE_WEBHOOK_BACKOFF_MAX_S": "0.4",
    "VIGIA_LIVE_WEBHOOK_DISABLE_AFTER": "4",
}

INSPECTOR = Actor("test-inspector", "inspector")


def _until(check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_receiver_down_then_up_and_kill9_every_event_once(store_url: str, tmp_path: Path) -> None:
    rx = Receiver().start()
    store = open_repository(store_url)
    assert isinstance(store, SqlRepository)
    store.migrate()
    svc = Service(tmp_path, store_url, FAST_RETRIES).start()
    try:
        # the service refuses to call itself, loopback or metadata unless told it may
        for url in (rx.url, "http://169.254.169.254/latest", f"{svc.base}/leads", "ftp://x/"):
            status, problem = svc.request("POST", "/webhooks", {"url": url})
            assert status == 422, (url, problem)
        status, hook = svc.request(
            "POST", "/webhooks", {"url": rx.url, "allow_private": True, "events": []}
        )
        assert status == 201 and hook["secret"].startswith("whsec_")
        rx.secret = hook["secret"]
        hid = hook["id"]
        status, shown = svc.request("GET", f"/webhooks/{hid}")
        assert status == 200 and "secret" not in shown  # shown once only

        store.upsert_leads([lead(f"L-{i}") for i in range(5)])
        _until(lambda: len(rx.received) == 5)
        first = rx.received[0][1]
        assert first["specversion"] == "1.0" and first["type"] == "lead.opened"
        assert first["data"]["id"] == "L-0" and first["id"] == "1"

        rx.fail = True  # answers 500
        store.upsert_leads([lead("L-5")])
        _until(lambda: rx.refused >= 2)
        rx.stop()  # then down altogether
        store.upsert_leads([lead("L-6")])
        _until(lambda: svc.request("GET", f"/webhooks/{hid}")[1]["enabled"] is False)
        status, state = svc.request("GET", f"/webhooks/{hid}")
        assert "failures in a row" in state["disabled_reason"]

        svc.kill9()
        sar = lead("L-sar", rule="SAR-DISTRESS", mmsi=970_000_009, zone_id=None)
        store.upsert_leads([lead("L-7"), sar])  # while the service is dead
        store.move_lead("L-2", Move("triaged"), INSPECTOR, scope=EVERY_AUTHORITY)
        svc.start()
        rx.fail = False
        rx.start()
        time.sleep(1.0)
        assert len(rx.received) == 5  # disabled: nothing goes out until an admin says so
        status, _ = svc.request("PATCH", f"/webhooks/{hid}", {"enabled": True})
        assert status == 200
        _until(lambda: len(rx.received) == 10)
        time.sleep(1.0)  # nothing more may come
        status, page = svc.request("GET", f"/webhooks/{hid}/deliveries?limit=1000")
    finally:
        svc.stop()
        rx.stop()
        store.close()
    assert rx.bad_signatures == 0
    assert Counter(rx.ids()).most_common(1)[0][1] == 1, rx.dump()
    late = [e["data"]["id"] for _, e in rx.received[5:]]
    # what it missed comes in the order it happened; the distress beacon, stored in one
    # transaction with L-7, got the smaller id of the two
    assert late == ["L-5", "L-6", "L-sar", "L-7", "L-2"], late
    assert [e["type"] for _, e in rx.received].count("lead.status") == 1

    attempts = page["attempts"]
    assert {a["status_code"] for a in attempts if not a["ok"]} >= {500, None}
    assert any("Connect" in (a["error"] or "") for a in attempts)
    assert sum(a["ok"] for a in attempts) == 10
    assert page["webhook"]["deliveries"] == {"delivered": 10}


def test_reenabled_endpoint_gets_what_it_missed_in_event_order_and_pending_is_true(
    store_url: str, tmp_path: Path
) -> None:
    rx = Receiver().start()
    store = open_repository(store_url)
    assert isinstance(store, SqlRepository)
    store.migrate()
    svc = Service(tmp_path, store_url, FAST_RETRIES).start()
    try:
        status, hook = svc.request("POST", "/webhooks", {"url": rx.url, "allow_private": True})
        assert status == 201
        rx.secret, hid = hook["secret"], hook["id"]
        store.upsert_leads([lead("L-0")])
        _until(lambda: len(rx.received) == 1)
        status, _ = svc.request("PATCH", f"/webhooks/{hid}", {"enabled": False})
        assert status == 200

        # written one change at a time, so this list is the order they happened in;
        # the distress beacon comes in the middle, after lower-priority events
        sar = lead("L-sar", rule="SAR-DISTRESS", mmsi=970_000_009, zone_id=None)
        missed: list[tuple[str, str]] = []
        for step in ("a", "b", "a!", "sar", "c", "b!", "d", "c!", "sar!"):
            lead_id = "L-sar" if step.startswith("sar") else f"L-{step[0]}"
            if step.endswith("!"):
                store.move_lead(lead_id, Move("triaged"), INSPECTOR, scope=EVERY_AUTHORITY)
                missed.append(("lead.status", lead_id))
            else:
                store.upsert_leads([sar if step == "sar" else lead(lead_id)])
                missed.append(("lead.opened", lead_id))
        time.sleep(1.0)  # the dispatcher has had its rounds: a disabled endpoint gets nothing
        assert len(rx.received) == 1
        status, shown = svc.request("GET", f"/webhooks/{hid}")
        assert shown["deliveries"] == {"pending": 9, "delivered": 1}, shown
        status, listed = svc.request("GET", "/webhooks")
        assert listed["webhooks"][0]["deliveries"] == {"pending": 9, "delivered": 1}

        status, _ = svc.request("PATCH", f"/webhooks/{hid}", {"enabled": True})
        assert status == 200
        _until(lambda: len(rx.received) == 10)
        time.sleep(0.5)  # nothing more may come
        status, shown = svc.request("GET", f"/webhooks/{hid}")
    finally:
        svc.stop()
        rx.stop()
        store.close()
    assert rx.bad_signatures == 0 and len(rx.received) == 10
    late = [e for _, e in rx.received[1:]]
    assert [(e["type"], e["subject"]) for e in late] == missed
    ids = [int(e["id"]) for e in late]
    assert ids == sorted(ids) and len(set(ids)) == 9
    assert shown["deliveries"] == {"delivered": 10}
