"""Fault tests of broker mode under load, on a real nats-server and real PostgreSQL.

Each test publishes a fleet built from a real capture at a steady rate while something
breaks: a worker is killed with SIGKILL and restarted, the broker restarts, PostgreSQL
goes away for 30 s, a worker joins and another leaves. Afterwards every accepted position
is stored exactly once and every lead single-process mode raises is there once, same id,
same evidence.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.storage.pgcluster import PrivateCluster, private_cluster
from tests.support.bus_rig import (
    PrivateNats,
    WorkerProc,
    batches,
    demo_records,
    fleet,
    publish,
    reference_leads,
    stored_positions,
    wait_drained,
    worker_env,
)
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.db.store import open_repository
from vigia.service.http.app import Runtime
from vigia.service.settings import BusSettings, Settings

pytestmark = [pytest.mark.postgis, pytest.mark.slow]

COPIES = 40  # 40 fleets of the capture: ~22,000 records, ~200 leads
RATE = 4_000.0  # records/s while the fault happens
Hook = Callable[[], Awaitable[None]]


@pytest.fixture(scope="module")
def load() -> list[list[object]]:
    return batches(fleet(demo_records(), COPIES), 1_000)  # type: ignore[return-value]


class Fleet:
    """The evaluation workers of one test, started and stopped as the scenario says."""

    def __init__(self, db_url: str, bus: BusSettings, logs: Path) -> None:
        self.env = worker_env(db_url, bus)
        self.logs = logs
        self.live: dict[str, WorkerProc] = {}

    def add(self, name: str) -> None:
        self.live[name] = WorkerProc(self.env, name, self.logs)

    def kill9(self, name: str) -> None:
        self.live.pop(name).kill9()

    def stop(self, name: str) -> None:
        self.live.pop(name).stop()

    def stop_all(self) -> None:
        for name in list(self.live):
            self.stop(name)


def _prepare(db_url: str) -> None:
    settings = Settings()
    settings.database.url = db_url
    Runtime.start(settings, with_worker=False).close()  # migrate, load zones


def _run(
    load: list[list[object]],
    db_url: str,
    bus: BusSettings,
    logs: Path,
    workers: list[str],
    hooks: Callable[[Fleet], dict[int, Hook]],
) -> None:
    _prepare(db_url)
    fleet_ = Fleet(db_url, bus, logs)
    try:
        for name in workers:
            fleet_.add(name)
        asyncio.run(publish(bus, load, rate=RATE, at=hooks(fleet_)))  # type: ignore[arg-type]
        wait_drained(bus, 180)
    finally:
        fleet_.stop_all()
    _check(load, db_url, logs)


def _check(load: list[list[object]], db_url: str, logs: Path) -> None:
    want_leads = reference_leads(load)  # type: ignore[arg-type]
    want_pos = stored_positions([r for b in load for r in b])  # type: ignore[misc]
    engine = create_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT mmsi, t FROM positions")).all()
    engine.dispose()
    got_pos = [(int(m), float(t)) for m, t in rows]
    assert len(got_pos) == len(set(got_pos)), "a position was stored twice"
    assert set(got_pos) == want_pos, f"{len(want_pos - set(got_pos))} positions lost"
    repo = open_repository(db_url)
    try:
        leads, total = repo.list_leads(LeadQuery(), 100_000, scope=EVERY_AUTHORITY)
    finally:
        repo.close()
    got = {lead.id: lead for lead in leads}
    assert total == len(leads) == len(got)
    assert sorted(got) == sorted(want_leads), (logs, len(got), len(want_leads))
    for lead_id, lead in want_leads.items():
        assert got[lead_id].to_json() == lead.to_json(), lead_id


def test_worker_killed_with_sigkill_mid_stream_then_restarted(
    load: list[list[object]], fresh_pg_url: str, bus: BusSettings, tmp_path: Path
) -> None:
    def hooks(f: Fleet) -> dict[int, Hook]:
        async def kill() -> None:
            f.kill9("w0")

        async def restart() -> None:
            await asyncio.to_thread(f.add, "w0-restarted")

        return {len(load) // 3: kill, len(load) // 2: restart}

    _run(load, fresh_pg_url, bus, tmp_path, ["w0", "w1"], hooks)


def test_worker_paused_past_its_lease_then_resumed(
    load: list[list[object]], fresh_pg_url: str, bus: BusSettings, tmp_path: Path
) -> None:
    """A worker frozen mid-batch (SIGSTOP) for three lease lifetimes while traffic flows:
    the other takes its partitions; when it wakes it still holds fetched, uncommitted
    work and a checkpoint in flight. Nothing of it may reach the store or the bus."""
    pending: list[asyncio.Task[None]] = []

    def hooks(f: Fleet) -> dict[int, Hook]:
        async def freeze() -> None:
            frozen = f.live["w0"]
            frozen.pause()

            async def thaw() -> None:
                await asyncio.sleep(3 * bus.lease_ttl_s + 2)
                frozen.resume()

            pending.append(asyncio.create_task(thaw()))

        async def wait_thawed() -> None:
            await asyncio.gather(*pending)

        return {len(load) // 3: freeze, len(load) - 1: wait_thawed}

    _run(load, fresh_pg_url, bus, tmp_path, ["w0", "w1"], hooks)


def test_broker_restart_mid_stream(
    load: list[list[object]],
    fresh_pg_url: str,
    bus: BusSettings,
    private_nats: PrivateNats,
    tmp_path: Path,
) -> None:
    def hooks(f: Fleet) -> dict[int, Hook]:
        async def restart() -> None:
            await asyncio.to_thread(private_nats.stop)
            await asyncio.sleep(2)
            await asyncio.to_thread(private_nats.start)

        return {len(load) // 3: restart}

    _run(load, fresh_pg_url, bus, tmp_path, ["w0", "w1"], hooks)


@pytest.fixture
def private_pg() -> Iterator[PrivateCluster]:
    yield from private_cluster()


def test_database_unreachable_for_30_s_mid_stream(
    load: list[list[object]], private_pg: PrivateCluster, bus: BusSettings, tmp_path: Path
) -> None:
    pending: list[asyncio.Task[None]] = []

    def hooks(f: Fleet) -> dict[int, Hook]:
        async def outage() -> None:
            await asyncio.to_thread(private_pg.stop)
            start = time.monotonic()

            async def back() -> None:
                await asyncio.sleep(30 - (time.monotonic() - start))
                await asyncio.to_thread(private_pg.start)

            pending.append(asyncio.create_task(back()))

        async def wait_back() -> None:
            await asyncio.gather(*pending)

        return {len(load) // 4: outage, len(load) - 1: wait_back}

    _run(load, private_pg.url, bus, tmp_path, ["w0", "w1"], hooks)


def test_worker_added_then_one_removed_while_traffic_flows(
    load: list[list[object]], fresh_pg_url: str, bus: BusSettings, tmp_path: Path
) -> None:
    def hooks(f: Fleet) -> dict[int, Hook]:
        async def add() -> None:
            await asyncio.to_thread(f.add, "w1")

        async def remove() -> None:
            await asyncio.to_thread(f.stop, "w0")

        return {len(load) // 4: add, (2 * len(load)) // 3: remove}

    _run(load, fresh_pg_url, bus, tmp_path, ["w0"], hooks)
