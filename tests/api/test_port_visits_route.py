"""GET /vessels/{mmsi}/port-visits (issue 33) on both stores: the visits the pipeline
settles from a hand-laid track (tests/alerts/test_port_visits.py) stored once, served
to a viewer, filtered by time."""

from __future__ import annotations

from typing import Any

import pytest

from tests.alerts.scenario_kit import T0, bundled_index
from tests.alerts.test_port_visits import ANCH_ID, SHIP, _anchoring, _passing
from tests.api.conftest import Api
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.registry import VesselRegistry
from vigia.service.runtime.port_visits import expire_and_store

pytestmark = pytest.mark.postgis
ARRIVAL, DEPARTURE = T0 + 510, T0 + 23_070  # worked out in tests/alerts/test_port_visits.py


@pytest.fixture(scope="module")
def loaded(shared_api: Api) -> Api:
    pipe = LeadPipeline(bundled_index(), VesselRegistry())
    recs = sorted([*_anchoring(), *_passing()], key=lambda r: r.t)
    for i in range(0, len(recs), 40):
        pipe.process(recs[i : i + 40])
        expire_and_store(pipe, shared_api.repo, pipe.stream_time)
    # the bound (2 h) past the exit: the worker's tick on a quiet feed
    expire_and_store(pipe, shared_api.repo, DEPARTURE + 7_201)
    assert pipe.take_port_visits() == []  # all went to the store
    return shared_api


def _get(api: Api, mmsi: int, query: str = "", role: str = "viewer") -> Any:
    return api.client.get(f"/vessels/{mmsi}/port-visits{query}", headers=api.h(role))


def test_the_visit_is_stored_once_and_served(loaded: Api) -> None:
    r = _get(loaded, SHIP)
    assert r.status_code == 200, r.text
    (v,) = r.json()["visits"]
    assert v["zone_id"] == ANCH_ID and v["zone_kind"] == "anchorage"
    assert (v["arrival"], v["departure"]) == ("2026-01-01T10:08:30Z", "2026-01-01T16:24:30Z")
    assert v["duration_s"] == 22_560.0 and len(v["stops"]) == 1
    assert v["stops"][0]["start"] == "2026-01-01T10:15:00Z"
    # a rerun stores nothing new (the id is the key)
    (visit,) = loaded.repo.port_visits(SHIP)
    assert loaded.repo.add_port_visits([visit]) == 0
    assert len(loaded.repo.port_visits(SHIP)) == 1


def test_the_time_window_and_the_passing_ship(loaded: Api) -> None:
    # overlapping: from the departure second on, and up to the arrival second
    assert len(_get(loaded, SHIP, f"?start={DEPARTURE:.0f}").json()["visits"]) == 1
    assert _get(loaded, SHIP, f"?start={DEPARTURE + 1:.0f}").json()["visits"] == []
    assert len(_get(loaded, SHIP, f"?end={ARRIVAL:.0f}").json()["visits"]) == 1
    assert _get(loaded, SHIP, f"?end={ARRIVAL - 1:.0f}").json()["visits"] == []
    assert _get(loaded, 710_000_302).json() == {"mmsi": 710_000_302, "visits": []}
    bad = _get(loaded, SHIP, f"?start={DEPARTURE:.0f}&end={ARRIVAL:.0f}")
    assert bad.status_code == 422 and bad.headers["content-type"].startswith(
        "application/problem+json"
    )


def test_a_key_is_needed(loaded: Api) -> None:
    assert loaded.client.get(f"/vessels/{SHIP}/port-visits").status_code == 401
