"""An AIS-GAP lead's evidence on the map (issue 33): the silence is its own kind of line
(drawn dashed: the vessel was not seen on it) and the area it could reach is a polygon
whose outline is that far, in sum, from the two ends."""

from __future__ import annotations

from pyproj import Geod

from tests.api.conftest import Api
from vigia.alerts.lead import EvidencePoint, Lead

T0 = 1_767_261_600.0
A = EvidencePoint(T0, -39.75, -21.906, 6.0, 0.0, 0, 1_500.0)
B = EvidencePoint(T0 + 2_700, -39.72, -21.906, 6.0, 0.0, 0, None)


def _gap() -> Lead:
    return Lead(
        id="G-1", mmsi=710_000_101, rule="AIS-GAP", citation="SOLAS V/19.2.4.7",
        zone_id="t-plat", zone_kind="platform", started_at=A.t, ended_at=B.t,
        min_distance_m=1_500.0, max_sog_kn=6.0, closest_lon=A.lon, closest_lat=A.lat,
        closest_t=A.t, evidence=[A, B], details={"reach_m": 16_000.0},
    )  # fmt: skip


def test_a_silence_is_drawn_as_a_silence_with_its_reachable_area(api: Api) -> None:
    api.repo.upsert_leads([_gap()])
    r = api.client.get("/leads/G-1/evidence", headers=api.h("viewer"))
    assert r.status_code == 200
    feats = r.json()["features"]
    kinds = [f["properties"]["kind"] for f in feats]
    assert kinds == ["silence", "reach", "evidence", "evidence", "closest_point"]
    ring = feats[1]["geometry"]["coordinates"][0]
    geod = Geod(ellps="WGS84")
    sums = [geod.inv(x, y, A.lon, A.lat)[2] + geod.inv(x, y, B.lon, B.lat)[2] for x, y in ring]
    assert max(abs(s - 16_000.0) for s in sums) < 16.0
