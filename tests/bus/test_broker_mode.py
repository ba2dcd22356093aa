"""Broker mode end to end: real nats-server, real PostGIS, workers and ingest as real
processes; the leads must be those single-process mode raises on the same files."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path

import nats
import pytest

from tests.support.bus_rig import (
    DEMO,
    WorkerProc,
    ingest_files,
    stored_positions,
    wait_drained,
    worker_env,
)
from vigia.alerts.lead import Lead
from vigia.ingest.decoder import Ingestor
from vigia.ingest.sources import FileSource
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery, Repository
from vigia.service.db.store import open_repository
from vigia.service.http.app import Runtime
from vigia.service.runtime.bus.codec import Subjects
from vigia.service.runtime.worker import IngestWorker
from vigia.service.settings import BusSettings, IngestSettings, Settings

pytestmark = [pytest.mark.postgis, pytest.mark.slow]


def _all_leads(repo: Repository) -> dict[str, Lead]:
    leads, total = repo.list_leads(LeadQuery(), 10_000, scope=EVERY_AUTHORITY)
    assert len(leads) == total
    return {lead.id: lead for lead in leads}


def _per_vessel(repo: Repository, mmsis: set[int]) -> dict[int, int]:
    """Stored positions per vessel (a capture without timestamps gets them on receipt,
    so two runs agree on how many rows, not on their times)."""
    return {m: len(repo.track(m, None, None)) for m in sorted(mmsis)}


def _mmsis(files: list[Path]) -> set[int]:
    ing = Ingestor()
    return {r.mmsi for f in files for r in ing.feed_many(FileSource(f).lines())}


def _single_process(files: list[Path], tmp: Path) -> tuple[dict[str, Lead], dict[int, int]]:
    """Leads and stored positions of `vigia serve` (one process) on these files."""
    settings = Settings()
    settings.database.sqlite_path = str(tmp / "single.sqlite")
    runtime = Runtime.start(settings, with_worker=False)
    repo = runtime.repository
    try:
        from vigia.service.http.app import current_zones

        worker = IngestWorker(
            repo, IngestSettings(), current_zones(repo), sources=[FileSource(f) for f in files]
        )
        worker.start()
        assert worker.wait_idle(120)
        worker.stop()
        return _all_leads(repo), _per_vessel(repo, _mmsis(files))
    finally:
        runtime.close()


def _metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return str(r.read().decode())


def _health(port: int) -> dict[str, object]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
        return dict(json.loads(r.read()))


async def _lead_messages(bus: BusSettings) -> list[dict[str, object]]:
    nc = await nats.connect(bus.url)
    js = nc.jetstream()
    names = Subjects(bus.prefix)
    sub = await js.pull_subscribe(names.leads_all, stream=names.lead_stream)
    out: list[dict[str, object]] = []
    while True:
        try:
            msgs = await sub.fetch(500, timeout=1)
        except (TimeoutError, nats.errors.TimeoutError):
            break
        for m in msgs:
            out.append(json.loads(m.data))
            await m.ack()
    await nc.close()
    return out


def test_two_workers_raise_the_same_leads_as_one_process(
    tmp_path: Path, fixtures: Path, fresh_pg_url: str, bus: BusSettings
) -> None:
    files = [DEMO, fixtures / "pyais_nmea_data_sample.txt"]
    want, want_rows = _single_process(files, tmp_path)
    assert len(want) >= 5  # the capture has real leads to lose

    settings = Settings()
    settings.database.url = fresh_pg_url
    Runtime.start(settings, with_worker=False).close()  # migrate and load zones once
    env = worker_env(fresh_pg_url, bus)
    workers = [WorkerProc(env, f"w{i}", tmp_path) for i in range(2)]
    try:
        ingest_files(env, *files)
        wait_drained(bus, 120)
        # every process kind reports on its own port
        # the stream may drain before the second worker's membership round has handed
        # it its share (a round every lease_ttl/3): wait for the share-out to settle
        end = time.monotonic() + 30
        while True:
            health = [_health(w.port) for w in workers]
            held = sorted(p for h in health for p in h["partitions"])  # type: ignore[attr-defined]
            if held == list(range(bus.partitions)) or time.monotonic() > end:
                break
            time.sleep(0.5)
        assert all(h["status"] == "ok" for h in health), health
        assert held == list(range(bus.partitions))  # shared out, none twice
        text = "\n".join(_metrics(w.port) for w in workers)
        assert 'vigia_bus_partitions_held{worker="w0"}' in text
        assert "vigia_bus_lag_messages" in text and "vigia_bus_redeliveries" in text
    finally:
        for w in workers:
            w.stop()  # graceful: final checkpoint stores the episodes still open
    repo = open_repository(fresh_pg_url)
    try:
        got = _all_leads(repo)
        got_rows = _per_vessel(repo, _mmsis(files))
        demo = {(p.mmsi, p.t) for m in _mmsis([DEMO]) for p in repo.track(m, None, None)}
    finally:
        repo.close()
    assert sorted(got) == sorted(want)
    for lead_id, lead in want.items():
        assert got[lead_id].to_json() == lead.to_json()
    assert got_rows == want_rows and sum(got_rows.values()) > 500
    ing = Ingestor()
    assert demo == stored_positions(list(ing.feed_many(FileSource(DEMO).lines())))
    # and the leads went out on the bus for other systems
    published = asyncio.run(_lead_messages(bus))
    assert {m["id"] for m in published} == set(want)
