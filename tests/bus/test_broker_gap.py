"""Going dark in broker mode, end to end: a partition hears only its own vessels, so the
coverage that tells a vessel's silence from a receiver's comes from the ingest, which
sends every partition the rows it has not had yet (alerts/gaps/coverage.py ``heard``).

The expected lead is worked out from the scene, not from Vigia: the dark vessel's last
fix before the silence is at t0 + 359 x 10 s and its first after at t0 + 3,590 + 2,700 s
(the scene of tests/alerts/test_gaps.py). One capture file, so the single-process run
reads it in one order (three files on concurrent readers interleave by arrival, and a
capture stamped months before the others is then judged against a stream clock already
past it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts import aisgen
from tests.support.bus_rig import run_in_broker, worker_env
from vigia.alerts.lead import Lead
from vigia.ingest.sources import FileSource
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.db.store import open_repository
from vigia.service.http.app import Runtime, current_zones
from vigia.service.runtime.bus.codec import partition_of
from vigia.service.runtime.worker import IngestWorker
from vigia.service.settings import BusSettings, IngestSettings, Settings

pytestmark = [pytest.mark.postgis, pytest.mark.slow]

DARK, SUPPLY, FAR = 710_000_101, 710_000_102, 710_000_103
T0 = 1_767_261_600.0  # 2026-01-01 10:00 UTC
SILENCE = (T0 + 3_590, T0 + 3_590 + 2_700)


def _scene(path: Path) -> Path:
    """A vessel silent 45 min beside a bundled Campos platform while a supply boat is
    heard 2 km from it and a far ship on the same receiver; the far ship sails on for
    2.5 h more, so the stream's clock passes the silence's end by more than the lateness
    bound and broker mode judges the gap before the stream ends."""
    plat, kn = (-39.735712, -21.906566), aisgen.KN
    west = aisgen.fwd(*plat, 270, 1_500)
    before = aisgen.run(*aisgen.fwd(*west, 180, 6 * kn * 3_590), course=0.0, sog_kn=6.0,
                        t0=T0, dt_s=10.0, n=360)  # fmt: skip
    after = aisgen.run(*aisgen.fwd(*plat, 90, 1_500), course=0.0, sog_kn=6.0,
                       t0=SILENCE[1], dt_s=10.0, n=60)  # fmt: skip
    supply = aisgen.hold(*aisgen.fwd(*plat, 180, 2_000), t0=T0, dt_s=10.0, n=700, nav_status=0)
    far = aisgen.run(*aisgen.fwd(*plat, 0, 60_000), course=90.0, sog_kn=10.0, t0=T0,
                     dt_s=30.0, n=1_500)  # fmt: skip
    lines = aisgen.merge(
        aisgen.lines_for(DARK, [*before, *after]),
        aisgen.lines_for(SUPPLY, supply),
        aisgen.lines_for(FAR, far),
    )
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    return path


def _gaps(url_or_path: str) -> list[Lead]:
    repo = open_repository(url_or_path)
    try:
        leads, _ = repo.list_leads(LeadQuery(), 1_000, scope=EVERY_AUTHORITY)
    finally:
        repo.close()
    return sorted((x for x in leads if x.rule == "AIS-GAP"), key=lambda x: x.mmsi)


def _single_process(capture: Path, tmp: Path) -> list[Lead]:
    settings = Settings()
    settings.database.sqlite_path = str(tmp / "single.sqlite")
    runtime = Runtime.start(settings, with_worker=False)
    try:
        repo = runtime.repository
        worker = IngestWorker(
            repo, IngestSettings(), current_zones(repo), sources=[FileSource(capture)]
        )
        worker.start()
        assert worker.wait_idle(120)
        worker.stop()
    finally:
        runtime.close()
    return _gaps(f"sqlite:///{tmp / 'single.sqlite'}")


def _expected(gaps: list[Lead]) -> None:
    """One lead: the dark vessel, over its silence, beside the platforms; neither the supply
    boat nor the far ship, which were heard throughout."""
    assert [(g.mmsi, g.started_at, g.ended_at) for g in gaps] == [(DARK, *SILENCE)]
    assert gaps[0].details["duration_s"] == 2_700.0
    zones = gaps[0].details["zones"]
    assert gaps[0].zone_id in zones and all(z.startswith("platform-") for z in zones)


def test_a_partition_alone_with_the_dark_vessel_raises_its_gap(
    tmp_path: Path, fresh_pg_url: str, bus: BusSettings
) -> None:
    capture = _scene(tmp_path / "dark.nmea")
    # the dark vessel's partition holds no other vessel of the scene: without the
    # ingest's coverage rows it hears nobody and calls the silence a coverage gap
    parts = {m: partition_of(m, bus.partitions) for m in (DARK, SUPPLY, FAR)}
    assert parts[DARK] not in {parts[SUPPLY], parts[FAR]}, parts

    single = _single_process(capture, tmp_path)
    _expected(single)

    settings = Settings()
    settings.database.url = fresh_pg_url
    Runtime.start(settings, with_worker=False).close()  # migrate and load zones once
    run_in_broker(worker_env(fresh_pg_url, bus), bus, tmp_path, capture)
    broker = _gaps(fresh_pg_url)
    _expected(broker)
    assert broker[0].to_json() == single[0].to_json()
