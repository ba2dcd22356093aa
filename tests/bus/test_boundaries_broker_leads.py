"""Broker mode against leads written down by hand (not against single-process mode, which
shares the judgement and would agree with it on any bug).

Three ships pass one platform (0212 f): 500 m) at 8 kn on a straight course, a fix every
10 s, abeam at fix 50. Flat geometry is exact to centimetres at these sizes: a fix k
fixes from abeam lies sqrt(off^2 + (k x 41.156 m)^2) from the platform (8 kn is
4.1156 m/s). 300 m abeam: within 500 m for |k| <= 9 (476.6 m; k = 10 is 509.3 m), so
the lead runs from fix 41 to fix 59. 200 m abeam: |k| <= 11 (494.9 m; 12 is 532.9 m),
fixes 39 to 61. 600 m abeam never comes within 500 m: no lead. Each ship steams on for
100 fixes (1,000 s) after abeam, longer than the 600 s hysteresis; a fourth ship far
from the platform then reports for the 2 h lateness bound (issue 31) and a minute more,
so the stream clock less the bound passes every hold: every lead is closed, ``ended_at``
at its last fix within 500 m.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts import aisgen
from tests.support.bus_rig import run_in_broker, worker_env
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.db.store import open_repository
from vigia.service.http.app import Runtime
from vigia.service.settings import BusSettings, Settings, ZoneSettings

pytestmark = [pytest.mark.postgis, pytest.mark.slow]

T0 = 1_767_261_600.0  # 2026-01-01T10:00:00Z
P52 = (-39.735712, -21.906566)
STEP_M = 8.0 * aisgen.KN * 10.0  # 41.156 m between fixes

# mmsi: (metres abeam, first fix time) and the expected lead, by hand (module docstring)
SHIPS = {710000301: (300.0, T0), 710000302: (600.0, T0 + 300), 710000303: (200.0, T0 + 1000)}
EXPECTED = [
    (710000301, "SEC-PLATFORM", "bus-p52", T0 + 410, T0 + 590),
    (710000303, "SEC-PLATFORM", "bus-p52", T0 + 1000 + 390, T0 + 1000 + 610),
]
CLOSEST = {710000301: 300.0, 710000303: 200.0}


def _capture(path: Path) -> None:
    lines: list[tuple[float, str]] = []
    for mmsi, (off, t0) in SHIPS.items():
        abeam = aisgen.fwd(*P52, 0.0, off)
        fixes = [
            aisgen.Fix(t0 + 10 * i, *aisgen.fwd(*abeam, 90.0, (i - 50) * STEP_M), 8.0, 90.0)
            for i in range(151)
        ]
        lines += list(aisgen.lines_for(mmsi, fixes))
    # the clock's ship, 20 km off: to T0 + 1000 + 1500 + 7200 + 60 (past every bound)
    far = aisgen.fwd(*P52, 180.0, 20_000.0)
    clock = [aisgen.Fix(T0 + 60.0 * i, *far, 0.0, 0.0) for i in range(int(9_760 / 60) + 2)]
    lines += list(aisgen.lines_for(710000399, clock))
    path.write_text("\n".join(text for _, text in sorted(lines, key=lambda x: x[0])) + "\n")


def test_broker_mode_raises_the_leads_worked_out_by_hand(
    tmp_path: Path, fresh_pg_url: str, bus: BusSettings
) -> None:
    zones = tmp_path / "zones"
    zones.mkdir()
    platform = {
        "type": "Feature",
        "properties": {"id": "bus-p52", "kind": "platform"},
        "geometry": {"type": "Point", "coordinates": list(P52)},
    }
    (zones / "z.geojson").write_text(
        json.dumps({"type": "FeatureCollection", "features": [platform]})
    )
    capture = tmp_path / "pass.nmea"
    _capture(capture)

    settings = Settings()
    settings.database.url = fresh_pg_url
    settings.zones = ZoneSettings(zones_dir=str(zones))
    Runtime.start(settings, with_worker=False).close()  # migrate, load the one zone
    env = worker_env(fresh_pg_url, bus)
    env["VIGIA_ZONES_DIR"] = str(zones)
    run_in_broker(env, bus, tmp_path, capture)
    repo = open_repository(fresh_pg_url)
    try:
        leads, total = repo.list_leads(LeadQuery(), 100, scope=EVERY_AUTHORITY)
    finally:
        repo.close()
    assert total == len(leads)
    got = sorted((ld.mmsi, ld.rule, ld.zone_id, ld.started_at, ld.ended_at) for ld in leads)
    assert got == EXPECTED
    for ld in leads:
        assert ld.min_distance_m == pytest.approx(CLOSEST[ld.mmsi], abs=1.0)
