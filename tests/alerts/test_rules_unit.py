"""The pure pieces: vessel class, the 0211 b) 3) judgement, evidence thinning, lead ids,
and state that leaves memory when episodes close."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pyproj import Geod
from shapely.geometry import Point
from shapely.ops import nearest_points

from tests.alerts.scenario_kit import T0, aisgen, feature, index_from, square, to_positions
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.lead import EvidencePoint, lead_id, thin
from vigia.alerts.pipeline import LeadPipeline
from vigia.alerts.rules import (
    Approach,
    ApproachPolicy,
    VesselMoment,
    approach_ok,
    is_sailing,
    propulsion,
)
from vigia.ingest.registry import VesselRegistry
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex


def _moment(sog: float | None, cog: float | None, *, stopped: bool = False) -> VesselMoment:
    return VesselMoment(1, 0.0, None, False, sog, cog, None, 0, stopped, stopped, 0.0)


def test_vessel_class() -> None:
    assert is_sailing(36, None) and is_sailing(None, 8) and is_sailing(36, 15)
    assert not is_sailing(None, None) and not is_sailing(37, 0) and not is_sailing(30, 1)
    # a sailing yacht under engine (status 0) is a motor craft
    assert not is_sailing(36, 0)


def test_propulsion_says_what_it_inferred() -> None:
    assert propulsion(36, 8) == (True, "nav_status 8 (under way sailing)", False)
    assert propulsion(36, 0) == (False, "nav_status 0 (under way using engine)", False)
    sail, basis, inferred = propulsion(36, None)  # class B: no status
    assert sail and inferred and "no navigational status" in basis
    sail, basis, inferred = propulsion(None, None)
    assert not sail and inferred and "unknown" in basis


def test_approach_judgement() -> None:
    pol = ApproachPolicy(max_sog_kn=3.0, course_tolerance_deg=30.0)
    a = Approach()
    # towards the beach (bearing 0) at 3 kn, 25 deg off: fine; stopped: fine
    assert approach_ok(_moment(3.0, 25.0), a, 0.0, pol)
    assert approach_ok(_moment(0.0, None, stopped=True), a, 0.0, pol)
    # after anchoring, straight out again: fine
    assert approach_ok(_moment(2.0, 182.0), a, 0.0, pol)
    # slanting (45 deg off) spoils the visit, and it stays spoiled
    b = Approach()
    assert not approach_ok(_moment(2.0, 45.0), b, 0.0, pol)
    assert not approach_ok(_moment(0.0, None, stopped=True), b, 0.0, pol)
    # too fast, or heading out without having anchored
    assert not approach_ok(_moment(3.5, 0.0), Approach(), 0.0, pol)
    assert not approach_ok(_moment(2.0, 180.0), Approach(), 0.0, pol)
    # bearing wraps around north
    assert approach_ok(_moment(2.0, 350.0), Approach(), 15.0, pol)


def test_the_approach_is_judged_on_the_distance_made_good_between_fixes() -> None:
    pol = ApproachPolicy()
    # stopped now, but 160 m of the band were covered in the last 60 s (5.2 kn)
    a = Approach()
    assert not approach_ok(_moment(0.0, None, stopped=True), a, 0.0, pol, (160.0, 60.0))
    assert not approach_ok(_moment(0.0, None, stopped=True), a, 0.0, pol, (0.0, 60.0))
    # the same 160 m in 120 s is 2.6 kn: the benefit of the doubt
    assert approach_ok(_moment(0.0, None, stopped=True), Approach(), 0.0, pol, (160.0, 120.0))
    # up to the limit plus the noise margin (4 kn over 60 s = 123 m) is fine; 20 m is noise
    assert approach_ok(_moment(2.0, 0.0), Approach(), 0.0, pol, (120.0, 60.0))
    assert approach_ok(_moment(0.0, None, stopped=True), Approach(), 0.0, pol, (20.0, 1.0))


def test_thinning_keeps_first_last_closest_and_cap() -> None:
    pts = [EvidencePoint(float(i), 0.0, 0.0, 1.0, 0.0, 0, 100.0 - (i == 333)) for i in range(1000)]
    out = thin(pts, pts[333], 200)
    assert len(out) == 200
    assert out[0] is pts[0] and out[-1] is pts[-1] and pts[333] in out
    assert [p.t for p in out] == sorted(p.t for p in out)
    assert thin(pts[:50], pts[10], 200) == pts[:50]


def test_lead_id_is_stable_and_discriminating() -> None:
    a = lead_id(710000001, "SEC-PLATFORM", "p-1", T0)
    assert a == lead_id(710000001, "SEC-PLATFORM", "p-1", T0)
    assert (
        len(
            {
                a,
                lead_id(710000002, "SEC-PLATFORM", "p-1", T0),
                lead_id(710000001, "SEC-MILITARY", "p-1", T0),
                lead_id(710000001, "SEC-PLATFORM", "p-2", T0),
                lead_id(710000001, "SEC-PLATFORM", "p-1", T0 + 1),
            }
        )
        == 5
    )


def test_closed_episodes_and_silent_vessels_leave_memory(tmp_path: Path) -> None:
    lon, lat = -39.735712, -21.906566
    index = index_from(
        [
            feature(Point(lon, lat), id="t-plat", kind="platform"),
            feature(square(lon, lat, 20000), id="t-jur", kind="jurisdiction", authority="CP"),
        ],
        tmp_path,
    )
    pipe = LeadPipeline(index, VesselRegistry(), EpisodeConfig(forget_after_s=1800))
    leads = []
    # 300 vessels each cross the platform's 500 m circle once
    for k in range(300):
        start = aisgen.fwd(*aisgen.fwd(lon, lat, 90, 100 + k), 180, 1500)
        recs = to_positions(
            710100000 + k, aisgen.run(*start, course=0, sog_kn=10, t0=T0, dt_s=10, n=60)
        )
        leads += pipe.process(recs)
    assert pipe.vessel_count == 300 and len(pipe.open_leads()) == 300
    # settled only once the clock less the lateness bound is past the hold (the
    # boundary itself is tested by hand in test_arrival.py)
    bound = EpisodeConfig().lateness_s
    leads += pipe.expire(T0 + 600 + 700)
    assert leads == [] and len(pipe.open_leads()) == 300
    leads += pipe.expire(T0 + 600 + 700 + bound)
    assert len(leads) == 300 and pipe.open_leads() == []
    assert all(lead.ended_at is not None and lead.authority == "CP" for lead in leads)
    pipe.expire(T0 + 600 + 4000 + bound)
    assert pipe.vessel_count == 0


def test_bearings_worked_out_a_batch_at_a_time_are_those_of_one_fix_at_a_time() -> None:
    # the oracle is the one-fix path (nearest point, then the geodesic azimuth), run on
    # the real Rio capture whose boats approach the bundled beaches
    from tests.support.bus_rig import demo_records

    records = demo_records()
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    pipe = LeadPipeline(index, VesselRegistry())
    leads = []
    for i in range(0, len(records), 200):
        leads += pipe.process(records[i : i + 200])
    batched = dict(pipe._bearings.known)
    assert len(batched) > 100  # beach approaches were worked out in batches
    assert any(lead.rule.startswith("BATH-") for lead in leads + pipe.open_leads())
    geod = Geod(ellps="WGS84")
    for (z, lon, lat), bearing in batched.items():
        # by hand: the closest point of the beach line in its metre frame, back to
        # degrees, then the geodesic azimuth to it
        frame, line = index.projected(z)
        x, y = frame.forward(np.array([lon]), np.array([lat]))
        near = nearest_points(line, Point(x[0], y[0]))[0]
        nlon, nlat = frame.inverse(np.array([near.x]), np.array([near.y]))
        az = geod.inv(lon, lat, float(nlon[0]), float(nlat[0]))[0] % 360.0
        assert bearing == pytest.approx(az, abs=1e-9), (index.zones[z].id, lon, lat)
