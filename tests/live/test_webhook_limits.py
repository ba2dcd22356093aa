"""The dispatcher against hostile receivers (real sockets on 127.0.0.1): a 400 MiB
answer is not read, a trickling receiver is cut off at the attempt's deadline, a slow
endpoint never delays a healthy one, and delivery connects to the address it checked."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from tests.live.hostile_receiver import RawReceiver, healthy, huge_answer, trickle
from tests.storage.builders import lead
from vigia.service.db.repository import SqlRepository
from vigia.service.runtime.webhooks import WebhookDispatcher
from vigia.service.settings import LiveSettings

pytestmark = pytest.mark.slow
MiB = 2**20


def _settings(**kw: Any) -> LiveSettings:
    base: dict[str, Any] = {
        "poll_s": 0.1,
        "webhook_backoff_initial_s": 60.0,  # one attempt per endpoint in these tests
        "webhook_backoff_max_s": 60.0,
        "webhook_disable_after": 0,
    }
    return LiveSettings(**(base | kw))


def _until(check: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _attempts(store: SqlRepository, hook_id: int) -> list[dict[str, Any]]:
    return store.list_attempts(hook_id, 100)


def test_a_huge_answer_is_not_read(store: SqlRepository) -> None:
    rx = RawReceiver(huge_answer(400 * MiB))
    hook = store.add_webhook(rx.url, [], {}, "whsec_" + "A" * 32, True)
    d = WebhookDispatcher(store, _settings(webhook_timeout_s=30.0))
    d.start()
    try:
        store.upsert_leads([lead("L-1")])
        _until(lambda: _attempts(store, hook.id), 30)
    finally:
        d.stop()
        rx.close()
    (attempt,) = _attempts(store, hook.id)
    assert attempt["ok"] and attempt["status_code"] == 200
    # 64 KiB read, then the connection dropped: what the receiver got out is the read
    # part plus the kernel's socket buffers (a few MiB), never the 400 MiB
    assert rx.bytes_sent < 32 * MiB, rx.bytes_sent
    assert d.results()["delivered"] == 1


def test_a_trickling_receiver_is_cut_off_at_the_deadline(store: SqlRepository) -> None:
    rx = RawReceiver(trickle(every_s=0.3))  # each read well inside httpx's read timeout
    hook = store.add_webhook(rx.url, [], {}, "whsec_" + "A" * 32, True)
    d = WebhookDispatcher(store, _settings(webhook_timeout_s=1.5))
    d.start()
    try:
        t0 = time.monotonic()
        store.upsert_leads([lead("L-1")])
        _until(lambda: _attempts(store, hook.id), 10)
        took = time.monotonic() - t0
    finally:
        d.stop()
        rx.close()
    (attempt,) = _attempts(store, hook.id)
    assert not attempt["ok"] and "1.5 s" in attempt["error"]
    assert 1.4 < took < 3.0, took
    assert d.results()["timeout"] == 1


def test_a_slow_endpoint_never_delays_a_healthy_one(store: SqlRepository) -> None:
    slow = RawReceiver(trickle(every_s=0.5))
    good = RawReceiver(healthy)
    slow_hooks = [store.add_webhook(slow.url, [], {}, "whsec_" + "A" * 32, True) for _ in range(6)]
    good_hook = store.add_webhook(good.url, [], {}, "whsec_" + "B" * 32, True)
    d = WebhookDispatcher(store, _settings(webhook_timeout_s=20.0, webhook_workers=2))
    d.start()
    delays: list[float] = []
    try:
        for i in range(5):
            t0 = time.monotonic()
            store.upsert_leads([lead(f"L-{i}")])
            _until(lambda n=i: len(good.arrivals) > n, 10)
            delays.append(good.arrivals[i] - t0)
            time.sleep(0.2)
        counts = store.delivery_counts(good_hook.id)
        assert counts == {"delivered": 5}
        assert all(not _attempts(store, h.id) for h in slow_hooks)  # all still hanging
    finally:
        d.stop()
        slow.close()
        good.close()
    # the healthy endpoint's events arrive within a poll, however long the slow ones hang
    assert max(delays) < 1.0, delays


def test_delivery_connects_to_the_checked_address(store: SqlRepository) -> None:
    good = RawReceiver(healthy)
    answers = {"hook.example": "127.0.0.1"}

    def resolver(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[host], port))]

    # a name no DNS knows: reaching the receiver proves httpx did not resolve it again
    allowed = store.add_webhook(
        f"http://hook.example:{good.port}/hook", [], {}, "whsec_" + "A" * 32, True
    )
    # registered while it resolved to a public address; now it resolves to loopback
    rebound = store.add_webhook(
        f"http://hook.example:{good.port}/other", [], {}, "whsec_" + "A" * 32, False
    )
    d = WebhookDispatcher(store, _settings(webhook_timeout_s=5.0), resolver=resolver)
    d.start()
    try:
        store.upsert_leads([lead("L-1")])
        _until(lambda: _attempts(store, allowed.id) and _attempts(store, rebound.id), 10)
    finally:
        d.stop()
        good.close()
    assert good.hosts == [f"hook.example:{good.port}"]
    (refused,) = _attempts(store, rebound.id)
    assert not refused["ok"] and "127.0.0.1" in refused["error"]
    assert d.results()["url_refused"] == 1 and d.results()["delivered"] == 1
