"""Issue 21 item 9: ``vigia evaluate`` processes starting together on an empty PostGIS
database all come up, and the bundled zones are stored once (the second used to die on
``UniqueViolation pk_zone_versions``)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.support.bus_rig import WorkerProc, worker_env
from vigia.service.settings import BusSettings
from vigia.zones.catalogue import bundled_zones_dir

pytestmark = [pytest.mark.postgis, pytest.mark.slow]


def _bundled_ids() -> list[str]:
    """The zone ids written in the bundled files (read as plain JSON, not by the loader)."""
    return sorted(
        f["properties"]["id"]
        for path in bundled_zones_dir().glob("*.geojson")
        for f in json.loads(path.read_text())["features"]
    )


def test_workers_starting_together_on_an_empty_store_seed_the_zones_once(
    fresh_pg_url: str, bus: BusSettings, tmp_path: Path
) -> None:
    env = worker_env(fresh_pg_url, bus)
    with ThreadPoolExecutor(3) as pool:
        futures = [pool.submit(WorkerProc, env, f"seed{i}", tmp_path) for i in range(3)]
    workers = [f.result() for f in futures if f.exception() is None]
    try:
        for f in futures:
            f.result()  # WorkerProc raises with the log tail if its process died
        assert all(w.proc.poll() is None for w in workers)
    finally:
        for w in workers:
            w.stop()
    assert [w.proc.returncode for w in workers] == [0, 0, 0]
    engine = create_engine(fresh_pg_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT zone_id, version FROM zone_versions")).all()
    finally:
        engine.dispose()
    assert sorted(r.zone_id for r in rows) == _bundled_ids()
    assert {r.version for r in rows} == {1}
