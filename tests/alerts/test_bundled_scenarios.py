"""Inspector-style scenarios on the REAL bundled zones: tracks laid out geodesically at
known distances, expected leads and distances written down before the pipeline runs."""

from __future__ import annotations

import random

import pytest

from tests.alerts.scenario_kit import (
    T0,
    aisgen,
    beach_frame,
    beach_run,
    find_zone,
    geodesic_truth,
    run_pipeline,
    static,
    to_positions,
)
from vigia.ingest.records import Position, iso_utc
from vigia.zones.evaluate import ZoneIndex

TOL_M = 2.0  # lead distances must be within 2 m of the geodesic truth


def _tangent_pass(
    mmsi: int, lon: float, lat: float, dist_m: float, *, sog: float = 5.0, n: int = 25
) -> list[Position]:
    """A straight pass whose middle fix is the closest approach, ``dist_m`` east of a
    point, steaming north."""
    cpa = aisgen.fwd(lon, lat, 90, dist_m)
    step = sog * aisgen.KN * 10
    start = aisgen.fwd(*cpa, 180, step * (n // 2))
    return to_positions(mmsi, aisgen.run(*start, course=0, sog_kn=sog, t0=T0, dt_s=10, n=n))


def _truth(index: ZoneIndex, zone_idx: int, recs: list[Position]) -> float:
    geom = index.zones[zone_idx].geometry
    return min(geodesic_truth(geom, p.lon, p.lat) for p in recs)  # type: ignore[arg-type]


def _along_beach(
    index: ZoneIndex, mmsi: int, dist_m: float, *, sog: float = 8.0, t0: float = T0, n: int = 7
) -> list[Position]:
    """A run parallel to the middle of Copacabana, ``dist_m`` off the baseline."""
    return to_positions(mmsi, beach_run(index, dist_m, sog, t0=t0, n=n))


@pytest.mark.parametrize(("dist_m", "expected"), [(480.0, ["SEC-PLATFORM"]), (520.0, [])])
def test_platform_500_m(bundled: ZoneIndex, dist_m: float, expected: list[str]) -> None:
    zi, plat = find_zone(bundled, "platform", "P-52")
    # 33 minutes of steaming: past the platform and clear for the 10 min hysteresis
    recs = _tangent_pass(710001001, plat.geometry.x, plat.geometry.y, dist_m, n=201)  # type: ignore[attr-defined]
    truth = _truth(bundled, zi, recs)
    assert abs(truth - dist_m) < 0.5  # the scenario is what it says it is
    leads = run_pipeline(bundled, recs)
    assert [lead.rule for lead in leads] == expected
    for lead in leads:
        assert lead.zone_id == plat.id
        assert lead.citation == "NORMAM-07/DPC 0212 f)"
        assert abs(lead.min_distance_m - truth) < TOL_M
        assert lead.ended_at is not None  # it passed and went on its way
        assert lead.max_sog_kn == 5.0


@pytest.mark.parametrize(("dist_m", "expected"), [(190.0, ["SEC-MILITARY"]), (210.0, [])])
def test_military_200_m(bundled: ZoneIndex, dist_m: float, expected: list[str]) -> None:
    zi, fiscal = find_zone(bundled, "military", "fiscal")
    recs = _tangent_pass(710001002, fiscal.geometry.x, fiscal.geometry.y, dist_m)  # type: ignore[attr-defined]
    truth = _truth(bundled, zi, recs)
    assert abs(truth - dist_m) < 0.5
    leads = run_pipeline(bundled, recs)
    assert [lead.rule for lead in leads] == expected
    for lead in leads:
        assert abs(lead.min_distance_m - truth) < TOL_M
        assert lead.citation == "NORMAM-07/DPC 0212 a)"


@pytest.mark.parametrize(
    ("dist_m", "ship_type", "nav_status", "expected"),
    [
        (90.0, 36, 8, "BATH-SAIL"),  # a sailing yacht under sail, inside the 100 m band
        (90.0, None, 8, "BATH-SAIL"),  # sailing by status 8, no static data
        (150.0, 36, 8, None),  # a sailing craft under sail may be between 100 and 200 m
        (150.0, 36, 0, "BATH-MOTOR"),  # a sailing yacht under engine is a motor craft
        (150.0, 36, 15, None),  # type 36, status undefined: sail inferred (and marked)
        (150.0, 37, 0, "BATH-MOTOR"),  # a pleasure motor craft may not
        (150.0, None, 0, "BATH-MOTOR"),  # no static data: counts as motor
        (210.0, 37, 0, None),
    ],
)
def test_beach_bands(
    bundled: ZoneIndex,
    dist_m: float,
    ship_type: int | None,
    nav_status: int,
    expected: str | None,
) -> None:
    zi, beach = find_zone(bundled, "bather_beach", "copacabana")
    recs = _along_beach(bundled, 710001003, dist_m, sog=4.0)
    for p in recs:
        p.nav_status = nav_status
    truth = _truth(bundled, zi, recs)
    assert abs(truth - dist_m) < 0.5
    pre = [static(710001003, ship_type)] if ship_type is not None else []
    leads = run_pipeline(bundled, [*pre, *recs])
    assert [lead.rule for lead in leads] == ([expected] if expected else [])
    for lead in leads:
        assert lead.zone_id == beach.id
        assert abs(lead.min_distance_m - truth) < TOL_M
        assert lead.max_sog_kn == 4.0


def _approach(index: ZoneIndex, mmsi: int, sog: float, *, leave: bool = False) -> list[Position]:
    """Straight in, perpendicular to Copacabana from 400 m to 60 m, then 30 min at anchor
    (and, with ``leave``, straight out again at the same speed)."""
    _, beach = find_zone(index, "bather_beach", "copacabana")
    lon, lat, _, sea = beach_frame(beach)
    start = aisgen.fwd(lon, lat, sea, 400)
    step = sog * aisgen.KN * 10
    n = int(340 / step) + 1
    fixes = aisgen.run(*start, course=(sea + 180) % 360, sog_kn=sog, t0=T0, dt_s=10, n=n)
    last = fixes[-1]
    fixes += aisgen.hold(last.lon, last.lat, t0=last.t + 10, dt_s=30, n=60)
    if leave:
        t = fixes[-1].t + 10
        fixes += aisgen.run(last.lon, last.lat, course=sea, sog_kn=sog, t0=t, dt_s=10, n=n)
    return to_positions(mmsi, fixes)


def test_perpendicular_approach_at_3_kn_then_anchor_is_no_lead(bundled: ZoneIndex) -> None:
    zi, _ = find_zone(bundled, "bather_beach", "copacabana")
    recs = _approach(bundled, 710001004, 3.0, leave=True)
    assert abs(_truth(bundled, zi, recs) - 60) < 3  # it did come in to about 60 m
    assert run_pipeline(bundled, [static(710001004, 37), *recs]) == []


def test_same_approach_at_6_kn_is_bath_motor(bundled: ZoneIndex) -> None:
    zi, _ = find_zone(bundled, "bather_beach", "copacabana")
    recs = _approach(bundled, 710001005, 6.0)
    leads = run_pipeline(bundled, [static(710001005, 37), *recs])
    assert [lead.rule for lead in leads] == ["BATH-MOTOR"]
    lead = leads[0]
    inside = [p for p in recs if _truth(bundled, zi, [p]) <= 200]
    assert lead.started_at == inside[0].t  # the first fix inside the band
    assert abs(lead.min_distance_m - _truth(bundled, zi, recs)) < TOL_M
    assert lead.max_sog_kn == 6.0
    assert lead.ended_at is None  # still at anchor in the band when the input ends


def test_running_along_the_beach_slowly_is_bath_motor(bundled: ZoneIndex) -> None:
    recs = _along_beach(bundled, 710001006, 150.0, sog=2.5)
    leads = run_pipeline(bundled, recs)
    assert [lead.rule for lead in leads] == ["BATH-MOTOR"]


def test_two_passes_two_hours_apart_are_two_leads(bundled: ZoneIndex) -> None:
    first = _along_beach(bundled, 710001007, 150.0, t0=T0)
    second = _along_beach(bundled, 710001007, 120.0, t0=T0 + 7200)
    leads = run_pipeline(bundled, [*first, *second])
    assert [lead.rule for lead in leads] == ["BATH-MOTOR", "BATH-MOTOR"]
    a, b = leads
    assert a.id != b.id
    assert (a.started_at, a.ended_at) == (first[0].t, first[-1].t)
    assert b.started_at == second[0].t
    assert abs(a.min_distance_m - 150) < TOL_M and abs(b.min_distance_m - 120) < TOL_M


def test_hysteresis_distance_decides_one_or_two_episodes(bundled: ZoneIndex) -> None:
    # in at 150 m, out for 15 min, back in at 150 m: out to 230 m (within 50 m of the
    # band) is still the same episode; out to 320 m is a new one
    def visit(mmsi: int, out_m: float) -> list[Position]:
        recs = _along_beach(bundled, mmsi, 150.0, t0=T0, n=5)
        for k in range(10):  # patrolling to and fro off the middle of the beach
            recs += _along_beach(bundled, mmsi, out_m, t0=T0 + 60 + 90 * k, n=9)
        recs += _along_beach(bundled, mmsi, 150.0, t0=T0 + 960, n=5)
        return recs

    assert len(run_pipeline(bundled, visit(710001008, 230.0))) == 1
    assert len(run_pipeline(bundled, visit(710001009, 320.0))) == 2


def test_jitter_storm_on_a_platform_boundary_is_one_lead(bundled: ZoneIndex) -> None:
    # a ship lying 2 h at anchor about 500 m from a platform, GPS scattering +-20 m
    zi, plat = find_zone(bundled, "platform", "P-52")
    rng = random.Random(7)
    centre = aisgen.fwd(plat.geometry.x, plat.geometry.y, 200, 500)  # type: ignore[attr-defined]
    fixes = []
    for i in range(720):
        p = aisgen.fwd(*centre, rng.uniform(0, 360), rng.uniform(0, 20))
        fixes.append(aisgen.Fix(T0 + 10 * i, *p, 0.1, 0.0, 1))
    recs = to_positions(710001010, fixes)
    leads = run_pipeline(bundled, recs)
    assert [lead.rule for lead in leads] == ["SEC-PLATFORM"]
    assert abs(leads[0].min_distance_m - _truth(bundled, zi, recs)) < TOL_M
    assert leads[0].min_distance_m < 500


def test_single_glitch_opens_nothing(bundled: ZoneIndex) -> None:
    # steaming 3 km from a platform; one fix jumps to 100 m from it and back
    _, plat = find_zone(bundled, "platform", "P-52")
    recs = _tangent_pass(710001011, plat.geometry.x, plat.geometry.y, 3000, sog=10, n=31)  # type: ignore[attr-defined]
    bad = recs[15]
    bad.lon, bad.lat = aisgen.fwd(plat.geometry.x, plat.geometry.y, 90, 100)  # type: ignore[attr-defined]
    assert run_pipeline(bundled, recs) == []
    # the same fix held for a while is no glitch: the vessel really is there
    for p in recs[15:]:
        p.lon, p.lat = bad.lon, bad.lat
    assert [lead.rule for lead in run_pipeline(bundled, recs)] == ["SEC-PLATFORM"]


def test_lead_carries_vessel_and_zone_details(bundled: ZoneIndex) -> None:
    recs = _along_beach(bundled, 710001012, 100.0)
    leads = run_pipeline(bundled, [static(710001012, 37, name="LANCHA VELOZ"), *recs])
    assert len(leads) == 1
    doc = leads[0].to_json()
    assert doc["vessel"] == {
        "name": "LANCHA VELOZ",
        "ship_type": 37,
        "length_m": 12.0,
        "flag_mid": 710,
    }
    assert doc["zone_kind"] == "bather_beach"
    assert doc["citation"] == "NORMAM-07/DPC 0211 b) 2)"
    assert doc["status"] == "new"
    assert doc["closest_point"]["type"] == "Point"
    assert doc["raw_sentences"]
    ev = doc["evidence"]
    assert doc["ended_at"] is None  # still in the band when the input ends
    assert ev[0]["t"] == doc["started_at"] == iso_utc(recs[0].t)
    assert ev[-1]["t"] == iso_utc(recs[-1].t)
    assert doc["closest_t"] in [e["t"] for e in ev]


@pytest.mark.parametrize(("sog", "expected"), [(2.0, []), (6.0, ["BATH-MOTOR"])])
def test_no_reported_speed_is_judged_on_speed_made_good(
    bundled: ZoneIndex, sog: float, expected: list[str]
) -> None:
    recs = _approach(bundled, 710001013, sog)
    for p in recs:
        p.sog = None  # SOG "not available" on every report
    assert [lead.rule for lead in run_pipeline(bundled, recs)] == expected


def _point_at(geom: object, centre: tuple[float, float], az: float, dist_m: float) -> tuple:
    """The point along ``az`` from ``centre`` whose geodesic distance to ``geom`` is
    ``dist_m`` (bisection on the independent geodesic truth)."""
    lo, hi = 0.0, 20_000.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if geodesic_truth(geom, *aisgen.fwd(*centre, az, mid)) < dist_m:  # type: ignore[arg-type]
            lo = mid
        else:
            hi = mid
    return aisgen.fwd(*centre, az, (lo + hi) / 2)


@pytest.mark.parametrize(("dist_m", "expected"), [(150.0, ["SEC-MILITARY"]), (250.0, [])])
def test_military_footprint_polygon(bundled: ZoneIndex, dist_m: float, expected: list) -> None:
    # Villegagnon's footprint is the charted island: distances are to its shore
    zi, vill = find_zone(bundled, "military", "villegagnon")
    assert vill.geometry.geom_type in ("Polygon", "MultiPolygon")
    c = vill.geometry.centroid
    stop = _point_at(vill.geometry, (c.x, c.y), 100.0, dist_m)
    # in from 600 m further out at 6 kn (never past the stop), then 5 minutes stopped
    start = aisgen.fwd(*stop, 100.0, 600)
    course = aisgen.azimuth(*start, *stop)
    fixes = aisgen.run(*start, course=course, sog_kn=6, t0=T0, dt_s=10, n=19)
    fixes += aisgen.hold(*stop, t0=T0 + 200, dt_s=30, n=10)
    recs = to_positions(710001014, fixes)
    truth = _truth(bundled, zi, recs)
    assert abs(truth - dist_m) < 0.5
    leads = run_pipeline(bundled, recs)
    assert [lead.rule for lead in leads] == expected
    for lead in leads:
        assert abs(lead.min_distance_m - truth) < TOL_M


def test_charted_tanker_anchorage_allows_tankers_only(bundled: ZoneIndex) -> None:
    _, anch = find_zone(bundled, "anchorage", "tanker")
    inside = anch.geometry.representative_point()
    tanker = to_positions(710001015, aisgen.hold(inside.x, inside.y, t0=T0, dt_s=60, n=20))
    fisher = to_positions(
        710001016, aisgen.run(inside.x, inside.y, course=45, sog_kn=7, t0=T0, dt_s=10, n=5)
    )
    leads = run_pipeline(bundled, [static(710001015, 80), static(710001016, 30), *tanker, *fisher])
    assert [(lead.mmsi, lead.rule, lead.zone_id) for lead in leads] == [
        (710001016, "SEC-ANCHORAGE", anch.id)
    ]
    assert leads[0].min_distance_m == 0.0
    assert leads[0].citation == "NORMAM-07/DPC 0212 c)"
