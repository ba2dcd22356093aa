"""The identity history in broker mode (issue 34): the hand-built capture of
tests/support/identity_capture.py through the ingest and two evaluation workers leaves
the rows written down by hand; ingested a second time (a rerun: every message again,
new broker sequence numbers), not one row more. Each partition stores its vessels'
changes with their static data before it commits its state (service/runtime/bus)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import identity_capture as cap
from tests.support.bus_rig import run_in_broker, worker_env
from vigia.alerts.identity.history import DAY_CAP
from vigia.service.db.store import open_repository
from vigia.service.http.app import Runtime
from vigia.service.runtime.bus.codec import partition_of
from vigia.service.settings import BusSettings, Settings

pytestmark = [pytest.mark.postgis, pytest.mark.slow]


def _stored(url: str) -> tuple[dict[int, list[tuple[Any, ...]]], list[tuple[int, int, int]]]:
    repo = open_repository(url)
    try:
        rows = {
            m: sorted(
                (c.t, c.field, c.before, c.after) for c in repo.identity_history(m, 1_000).changes
            )
            for m in cap.EXPECTED
        }
        return rows, repo.identity_history(cap.C, 1).not_kept
    finally:
        repo.close()


def test_broker_mode_stores_the_history_once(
    tmp_path: Path, fresh_pg_url: str, bus: BusSettings
) -> None:
    capture = tmp_path / "identity.nmea"
    capture.write_text("".join(line + "\n" for line in cap.nmea_lines()))
    # the four vessels in more than one partition: two workers share the work
    assert len({partition_of(m, bus.partitions) for m in cap.EXPECTED}) > 1
    settings = Settings()
    settings.database.url = fresh_pg_url
    Runtime.start(settings, with_worker=False).close()  # migrate and load zones once
    want = {m: sorted(rows) for m, rows in cap.EXPECTED.items()}
    day = (int(cap.T0 // 86_400), 119, DAY_CAP)
    env = worker_env(fresh_pg_url, bus)
    run_in_broker(env, bus, tmp_path, capture)
    assert _stored(fresh_pg_url) == (want, [day])
    run_in_broker(env, bus, tmp_path, capture)  # the same capture again
    assert _stored(fresh_pg_url) == (want, [day])
