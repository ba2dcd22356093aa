"""A meeting at sea through `vigia serve` (issue 37): the app's own worker replays the
generated scenarios (two ships drifting together 3 h about 30 km off the coast, two
passing at 12 kn, a supply vessel at its FPSO) into the store, and GET /leads answers one
STS-ENCOUNTER naming both ships, with the partner's evidence; the others raise none."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts import encounter_scenarios as es
from tests.api.conftest import make_settings, start
from vigia.service.settings import IngestSettings
from vigia.zones.catalogue import bundled_zones_dir

pytestmark = pytest.mark.postgis


def test_the_api_serves_one_meeting_naming_both_ships(store_url: str, tmp_path: Path) -> None:
    scs = es.build(1, seed=21, kinds=("meeting", "passing", "supply"))
    capture = tmp_path / "meetings.nmea"
    capture.write_text("".join(x + "\n" for x in es.lines(scs)))
    settings = make_settings(store_url, tmp_path)
    # the bundled zones: the supply vessel's FPSO is the charted P-52
    settings.zones.zones_dir = str(bundled_zones_dir())
    settings.ingest = IngestSettings(worker=True, files=[str(capture)], flush_interval_s=0.2)
    for api in start(settings):
        worker = api.client.app.state.worker  # type: ignore[attr-defined]
        assert worker.wait_idle(120)
        h = api.h("viewer")
        got = api.client.get("/leads?rule=STS-ENCOUNTER", headers=h).json()["leads"]
        meeting = next(sc for sc in scs if sc.name == "meeting")
        assert [x["mmsi"] for x in got] == [meeting.mmsis[0]]
        lead = api.client.get(f"/leads/{got[0]['id']}", headers=h).json()
        assert [v["mmsi"] for v in lead["details"]["vessels"]] == list(meeting.mmsis)
        assert lead["details"]["partner_mmsi"] == meeting.mmsis[1]
        assert lead["details"]["partner_evidence"] and lead["evidence"]
        assert lead["regime"] == "pollution"
        # a live worker never reaches an end of input: the meeting is open until the bound
        # passes it, shown as far as the records go (the early view)
        assert lead["ended_at"] is None and lead["details"]["duration_s"] >= 7_200.0
        assert lead["details"]["provisional"] is False
