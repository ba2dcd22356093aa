"""The port calls a ballast audit names (issue 33): the last port visit left at or
before the first declared exchange, the first entered at or after the last, each bound
on both sides and at it; and in a stored audit on both stores, from stored visits."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import Api
from tests.ballast.test_api import point, track
from vigia.alerts.ballast.port_calls import port_calls
from vigia.alerts.ports.visits import PortVisit
from vigia.ingest.records import iso_utc

T = 1_767_261_600.0  # 2026-01-01T10:00:00Z
MMSI = 636_012_399


def _visit(zone: str, arrival: float, departure: float, mmsi: int = MMSI) -> PortVisit:
    return PortVisit(mmsi, zone, zone.title(), "port_facility", arrival, -43.2, -22.9,
                     departure, -43.1, -22.95)  # fmt: skip


def test_the_last_port_left_and_the_first_entered_at_their_bounds() -> None:
    start, end = T + 86_400, T + 2 * 86_400
    santos = _visit("santos", T, start)  # left at the very second the exchange starts
    late = _visit("sepetiba", T + 3_600, start + 1)  # left a second after: not before
    rio = _visit("rio", end, end + 3_600)  # entered at the very second it ends
    early = _visit("vitoria", end - 1, end + 7_200)  # entered a second before: not after
    got = port_calls([rio, late, early, santos], start, end)
    assert got["last_port_before_exchange"]["zone_id"] == "santos"
    assert got["arrival_port"]["zone_id"] == "rio"
    assert port_calls([late, early], start, end) == {
        "last_port_before_exchange": None,
        "arrival_port": None,
        "basis": got["basis"],
    }
    # of two calls before, the one left later; order of the input does not matter
    older = _visit("paranagua", T - 86_400, T - 3_600)
    assert port_calls([santos, older], start, end) == port_calls([older, santos], start, end)
    assert port_calls([older], start, end)["last_port_before_exchange"]["zone_id"] == "paranagua"


@pytest.mark.postgis
def test_a_stored_audit_names_the_calls_from_the_store(shared_api: Api) -> None:
    # from the abyss toward Rio, a fix every 10 min (tests/ballast/test_api.py); calls
    # are looked for within the voyage window (10 days) around the exchanges
    t = track()
    mmsi = t[0].mmsi
    first, last = t[24].t, t[60].t
    shared_api.repo.add_port_visits(
        [_visit("cape-town", first - 20 * 86_400, first - 8 * 86_400, mmsi),
         _visit("rio", last + 3 * 3_600, last + 30 * 3_600, mmsi),
         _visit("elsewhere", first - 86_400, first - 3_600, 710_000_999)]  # another ship
    )  # fmt: skip
    own = [{"t": iso_utc(p.t), "lat": p.lat, "lon": p.lon, "sog": p.sog} for p in t[:100]]
    body: dict[str, Any] = {
        "mmsi": mmsi,
        "exchanges": [{"start": point(t[24]), "end": point(t[60])}],
        "track": own,
    }
    r = shared_api.client.post("/ballast/audits", json=body, headers=shared_api.h("inspector"))
    assert r.status_code == 201, r.text
    calls = r.json()["port_calls"]
    assert calls["last_port_before_exchange"]["zone_id"] == "cape-town"
    assert calls["arrival_port"]["zone_id"] == "rio"
    assert calls["arrival_port"]["arrival"] == iso_utc(last + 3 * 3_600)
    stored = shared_api.client.get(
        f"/ballast/audits/{r.json()['id']}", headers=shared_api.h("viewer")
    )
    assert stored.json()["port_calls"] == calls
