"""Broker mode fed the same capture twice (what an operator does after `vigia ingest
--bus` died mid-file), then a satellite-like delivery of it: two workers store exactly
the leads `vigia replay` gives on the time-sorted file, same ids, and every position
once (issue 31). Real nats-server, real PostGIS, real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scripts import aisgen
from tests.support import orders
from tests.support.bus_rig import (
    DEMO,
    WorkerProc,
    demo_records,
    ingest_files,
    stored_positions,
    wait_drained,
    worker_env,
)
from vigia.alerts.episodes import EpisodeConfig
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.db.store import open_repository
from vigia.service.http.app import Runtime
from vigia.service.settings import BusSettings, Settings

pytestmark = [pytest.mark.postgis, pytest.mark.slow]

VIGIA = [sys.executable, "-m", "vigia.service.cli"]


def _replay(*paths: Path) -> dict[str, dict[str, Any]]:
    done = subprocess.run(
        [*VIGIA, "replay", *map(str, paths)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return {x["id"]: x for x in map(json.loads, done.stdout.splitlines())}


def _same_episode(stored: dict[str, Any], replayed: dict[str, Any]) -> None:
    for k in ("mmsi", "rule", "zone_id", "started_at", "ended_at", "min_distance_m"):
        assert stored[k] == replayed[k], k
    assert stored["closest_t"] == replayed["closest_t"]
    assert stored["evidence"] == replayed["evidence"]


def _clock(path: Path, after: float) -> Path:
    """A vessel far from every zone reporting each minute from ``after`` until the
    lateness bound and the hold have passed: the stream clock moves on and every
    episode of the capture is settled (closed) in the store, as the replay closes them
    at the end of its input."""
    spot = (-38.0, -30.0)  # the open South Atlantic
    n = int((EpisodeConfig().lateness_s + 1_200.0) // 60.0)
    fixes = [aisgen.Fix(after + 60.0 * k, *spot, 10.0, 90.0) for k in range(1, n + 1)]
    path.write_text("".join(line + "\n" for _, line in aisgen.lines_for(710_999_900, fixes)))
    return path


def test_the_same_capture_twice_then_late_and_shuffled_stores_the_replay_leads_once(
    tmp_path: Path, fresh_pg_url: str, bus: BusSettings
) -> None:
    msgs = orders.messages(DEMO)
    by_time = sorted(msgs, key=lambda m: m[1])
    sorted_file = orders.write(tmp_path / "sorted.nmea", by_time)
    sat_file = orders.write(tmp_path / "sat.nmea", orders.satellite(by_time, seed=11))
    clock = _clock(tmp_path / "clock.nmea", by_time[-1][1])
    want = _replay(sorted_file)
    assert _replay(sorted_file, clock) == want  # the clock's vessel raises nothing
    assert len(want) >= 5

    settings = Settings()
    settings.database.url = fresh_pg_url
    Runtime.start(settings, with_worker=False).close()  # migrate and load zones once
    env = worker_env(fresh_pg_url, bus)
    workers = [WorkerProc(env, f"w{i}", tmp_path) for i in range(2)]
    try:
        ingest_files(env, sorted_file)
        wait_drained(bus, 120)
        ingest_files(env, sorted_file)  # the rerun
        ingest_files(env, sat_file)  # and the same records late, shuffled, some twice
        ingest_files(env, clock)  # then time runs on past the lateness bound
        wait_drained(bus, 120)
    finally:
        for w in workers:
            w.stop()  # graceful: final checkpoint stores the episodes still open
    repo = open_repository(fresh_pg_url)
    try:
        leads, total = repo.list_leads(LeadQuery(), 10_000, scope=EVERY_AUTHORITY)
        mmsis = {m for m, _, _ in msgs}
        assert {x.ended_at is not None for x in leads} == {True}, [  # all settled
            (x.mmsi, x.rule, x.details, x.evidence[-1].t) for x in leads
        ]
        rows = [(p.mmsi, p.t) for m in mmsis for p in repo.track(m, None, None)]
    finally:
        repo.close()
    got = {x.id: x.to_json() for x in leads if x.mmsi != 710_999_900}
    assert total == len(got) and sorted(got) == sorted(want)
    for lead_id, lead in want.items():
        _same_episode(got[lead_id], lead)
    # every position once: one row per storable position of the file, none twice
    assert len(rows) == len(set(rows))
    assert set(rows) == stored_positions(demo_records())
