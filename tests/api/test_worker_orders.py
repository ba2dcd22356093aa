"""`vigia serve`'s worker (one process) fed a capture twice, then late and shuffled as a
satellite feed delivers it, then time past the lateness bound: it stores exactly the
leads `vigia replay` gives on the time-sorted file, once each (issue 31), on both
stores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from scripts import aisgen
from tests.api.conftest import make_settings, start
from tests.support import orders
from tests.support.bus_rig import DEMO
from vigia.alerts.episodes import EpisodeConfig
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.settings import IngestSettings, ZoneSettings
from vigia.zones.catalogue import bundled_zones_dir

CLOCK_MMSI = 710_999_900


def _replay(*paths: Path) -> dict[str, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "vigia.service.cli", "replay", *map(str, paths)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return {x["id"]: x for x in map(json.loads, done.stdout.splitlines())}


def _clock(path: Path, after: float) -> Path:
    """A vessel in the open South Atlantic reporting each minute until the lateness
    bound and the hold have passed the capture's end: every episode settles."""
    n = int((EpisodeConfig().lateness_s + 1_200.0) // 60.0)
    fixes = [aisgen.Fix(after + 60.0 * k, -38.0, -30.0, 10.0, 90.0) for k in range(1, n + 1)]
    path.write_text("".join(line + "\n" for _, line in aisgen.lines_for(CLOCK_MMSI, fixes)))
    return path


def test_serve_stores_the_replay_leads_however_the_capture_arrives(
    store_url: str, tmp_path: Path
) -> None:
    msgs = sorted(orders.messages(DEMO), key=lambda m: m[1])
    by_time = orders.write(tmp_path / "sorted.nmea", msgs)
    sat = orders.write(tmp_path / "sat.nmea", orders.satellite(msgs, seed=21))
    clock = _clock(tmp_path / "clock.nmea", msgs[-1][1])
    want = _replay(by_time, clock)
    assert len(want) >= 5
    settings = make_settings(store_url, tmp_path)
    settings.zones = ZoneSettings(zones_dir=str(bundled_zones_dir()))  # as the replay's
    # the satellite delivery first, then the sorted file twice (a rerun), then time on,
    # as one feed (files given apart are read at once, by one thread each)
    feed = tmp_path / "feed.nmea"
    feed.write_text("".join(f.read_text() for f in (sat, by_time, by_time, clock)))
    settings.ingest = IngestSettings(worker=True, files=[str(feed)])
    for api in start(settings):
        assert api.client.app.state.worker.wait_idle(60)  # type: ignore[attr-defined]
        repo = api.client.app.state.repository  # type: ignore[attr-defined]
        leads, total = repo.list_leads(LeadQuery(), 10_000, scope=EVERY_AUTHORITY)
    got = {x.id: x.to_json() for x in leads if x.mmsi != CLOCK_MMSI}
    assert total == len(leads) and sorted(got) == sorted(want)
    for lead_id, lead in want.items():
        stored = got[lead_id]
        for k in ("rule", "started_at", "ended_at", "min_distance_m", "closest_t", "evidence"):
            assert stored[k] == lead[k], (lead_id, k)
