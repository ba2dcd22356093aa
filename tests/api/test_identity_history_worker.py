"""`vigia serve`'s worker stores the identity history (issue 34): the hand-built capture
of tests/support/identity_capture.py as NMEA, fed in time order, or late and shuffled as
a satellite feed delivers it and then twice more (a rerun), leaves the same rows, the
ones written down by hand, on both stores; the route answers them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import make_settings, start
from tests.support import identity_capture as cap
from tests.support import orders
from vigia.alerts.identity.history import DAY_CAP
from vigia.ingest.records import iso_utc
from vigia.service.settings import IngestSettings

pytestmark = pytest.mark.postgis


@pytest.mark.parametrize("feed", ["sorted", "satellite-then-twice"])
def test_the_worker_stores_the_history_written_by_hand(
    store_url: str, tmp_path: Path, feed: str
) -> None:
    capture = tmp_path / "capture.nmea"
    capture.write_text("".join(line + "\n" for line in cap.nmea_lines()))
    msgs = sorted(orders.messages(capture), key=lambda m: m[1])
    files = [orders.write(tmp_path / "sorted.nmea", msgs)]
    if feed != "sorted":
        sat = orders.write(tmp_path / "sat.nmea", orders.satellite(msgs, seed=34))
        files = [sat, files[0], files[0]]
    # one feed (files given apart are read at once, by one thread each)
    one = tmp_path / "feed.nmea"
    one.write_text("".join(f.read_text() for f in files))
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(worker=True, files=[str(one)])
    for api in start(settings):
        assert api.client.app.state.worker.wait_idle(60)  # type: ignore[attr-defined]
        got: dict[int, list[tuple[Any, ...]]] = {}
        for mmsi in cap.EXPECTED:
            r = api.client.get(f"/vessels/{mmsi}/identity?limit=1000", headers=api.h("viewer"))
            assert r.status_code == 200, r.text
            got[mmsi] = [(x["t"], x["field"], x["before"], x["after"]) for x in r.json()["history"]]
            assert {x["msg_type"] for x in r.json()["history"]} == {5}
            assert {x["source"] for x in r.json()["history"]} == {str(one)}
        busy = api.client.get(f"/vessels/{cap.C}/identity", headers=api.h("viewer")).json()
    want = {
        m: sorted((iso_utc(t), f, a, b) for t, f, a, b in rows) for m, rows in cap.EXPECTED.items()
    }
    assert {m: sorted(rows) for m, rows in got.items()} == want
    assert busy["history_not_kept"] == [{"day": "2026-01-01", "changes": 119, "kept": DAY_CAP}]
