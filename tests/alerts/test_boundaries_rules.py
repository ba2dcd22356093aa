"""Both sides of every boundary of the rules' judgement, with the shipped defaults.

Nothing here builds its own policy: the pipeline runs with ``EpisodeConfig()`` as
shipped, and the expected values are figures written out from outside the code: the law
(RULES.md, NORMAM-07: 100 m sail and 200 m motor bands, 0211 b) 3) at 3 kn or less, 500 m
around a platform) and the documented defaults (docs/leads.md "Defaults": 30 degrees of
course, +1 kn made good, the 100 m installation radius and length, 0.5 kn stopped and a
stale status ignored above 2 kn; the episode tolerances: a 50 m / 600 s hysteresis, 60 kn
glitches, anchored after 300 s). Positions are placed with geodesic forward computations
(pyproj, independent of the zone frames), so a distance written here is the distance the
vessel is at.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shapely.geometry import LineString, Point

from tests.alerts.scenario_kit import T0, aisgen, feature, index_from, run_pipeline, square
from tests.alerts.scenario_kit import to_positions as positions
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.lead import Lead
from vigia.alerts.rules import Approach, VesselMoment, angle_diff, approach_ok, propulsion
from vigia.ingest.records import Position, Record, StaticData
from vigia.zones.evaluate import ZoneIndex

# open water south of the Guanabara bar, and P-52 in the Campos basin
LON, LAT = -43.1438064, -23.0372121
P52 = (-39.735712, -21.906566)
Fix = aisgen.Fix


def _static(mmsi: int, ship_type: int, length_m: float = 20.0) -> StaticData:
    return StaticData(mmsi, T0 - 60, 5, name="SYNTH", ship_type=ship_type, length_m=length_m)


def _north(metres: float, lon: float = LON, lat: float = LAT) -> tuple[float, float]:
    return aisgen.fwd(lon, lat, 0.0, metres)


def _rules(leads: list[Lead]) -> list[tuple[int, str]]:
    return sorted((ld.mmsi, ld.rule) for ld in leads)


# -- 0211 b) 3): the approach, judged with the shipped policy ---------------------------

POLICY = EpisodeConfig().approach


def _moment(sog: float | None, cog: float | None, stopped: bool = False) -> VesselMoment:
    return VesselMoment(1, 0.0, None, False, sog, cog, None, 0, stopped, stopped, 0.0)


def test_approach_speed_limit_is_3_knots() -> None:
    assert approach_ok(_moment(3.0, 0.0), Approach(), 0.0, POLICY)
    assert not approach_ok(_moment(3.2, 0.0), Approach(), 0.0, POLICY)
    assert not approach_ok(_moment(4.5, 0.0), Approach(), 0.0, POLICY)


def test_approach_course_tolerance_is_30_degrees() -> None:
    assert approach_ok(_moment(2.0, 29.0), Approach(), 0.0, POLICY)
    assert approach_ok(_moment(2.0, 331.0), Approach(), 0.0, POLICY)
    assert not approach_ok(_moment(2.0, 31.0), Approach(), 0.0, POLICY)
    assert not approach_ok(_moment(2.0, 44.0), Approach(), 0.0, POLICY)
    # leaving after anchoring: the reciprocal, within the same 30 degrees
    a = Approach()
    assert approach_ok(_moment(0.0, None, stopped=True), a, 0.0, POLICY)
    assert approach_ok(_moment(2.0, 209.0), a, 0.0, POLICY)
    b = Approach(anchored=True)
    assert not approach_ok(_moment(2.0, 220.0), b, 0.0, POLICY)


def test_bearings_wrap_around_north() -> None:
    assert angle_diff(350.0, 10.0) == 20.0
    assert angle_diff(10.0, 350.0) == 20.0
    assert angle_diff(0.0, 180.0) == 180.0
    assert approach_ok(_moment(2.0, 15.0), Approach(), 350.0, POLICY)  # 25 degrees off


def test_speed_made_good_between_fixes_counts_above_4_knots() -> None:
    # 60 s between fixes: 3 kn + the 1 kn margin is 4 x 1852 / 3600 x 60 = 123.5 m
    assert approach_ok(_moment(2.0, 0.0), Approach(), 0.0, POLICY, (115.0, 60.0))
    assert not approach_ok(_moment(2.0, 0.0), Approach(), 0.0, POLICY, (130.0, 60.0))
    # legs under 25 m are GPS noise, whatever the speed they imply
    assert approach_ok(_moment(2.0, 0.0), Approach(), 0.0, POLICY, (24.0, 1.0))


def test_propulsion_ship_type_36_means_sail_only_without_a_status() -> None:
    assert propulsion(36, None)[0] is True
    assert propulsion(37, None)[0] is False  # pleasure craft: motor
    assert propulsion(36, 0)[0] is False
    assert propulsion(70, 8)[0] is True


# -- the channel: hysteresis, glitches, stopping and anchoring --------------------------


def _channel(tmp_path: Path, half_m: float = 300.0, **props: object) -> ZoneIndex:
    poly = square(LON, LAT, half_m)
    return index_from(
        [
            feature(
                poly, id="b-channel", kind="access_channel", allowed={"ship_types": [70]}, **props
            )
        ],
        tmp_path,
    )


def _in_out_in(mmsi: int, off_m: float, away_s: float) -> list[Position]:
    """Into the 300 m channel square going north, out past its north edge to ``off_m``
    beyond it for ``away_s`` (1 kn, not stopped), and back in."""
    fixes = [Fix(T0 + 30 * i, *_north(60.0 * i), 4.0, 0.0) for i in range(5)]
    t = T0 + 150
    out = _north(300.0 + off_m)
    while t <= T0 + 150 + away_s:
        fixes.append(Fix(t, *out, 1.0, 90.0))
        t += 30
    fixes += [Fix(t, *_north(240.0), 4.0, 180.0), Fix(t + 30, *_north(180.0), 4.0, 180.0)]
    return positions(mmsi, fixes)


def test_hysteresis_keeps_one_episode_while_within_50_m_of_the_area(tmp_path: Path) -> None:
    index = _channel(tmp_path)
    near = _in_out_in(710000201, off_m=30.0, away_s=900.0)  # 30 m out for 15 min
    far = _in_out_in(710000202, off_m=80.0, away_s=900.0)  # 80 m out for 15 min
    brief = _in_out_in(710000203, off_m=80.0, away_s=300.0)  # 80 m out for 5 min
    recs: list[Record] = [_static(m, 37) for m in (710000201, 710000202, 710000203)]
    leads = run_pipeline(index, [*recs, *near, *far, *brief])
    assert _rules(leads) == [
        (710000201, "SEC-CHANNEL"),
        (710000202, "SEC-CHANNEL"),
        (710000202, "SEC-CHANNEL"),
        (710000203, "SEC-CHANNEL"),
    ]


def test_glitch_is_a_fix_beyond_60_knots_from_both_neighbours(tmp_path: Path) -> None:
    """A track at 10 kn, fixes 10 s apart, 450 m west of a 100 m channel square; one fix
    jumps into the square: 450 m in 10 s is 87 kn, over 60 kn (308.7 m) and over the
    200 m noise floor, from both neighbours: a glitch, no lead. A real boat at 45 kn
    (231.5 m per fix) crossing the same square is not one."""
    centre = aisgen.fwd(LON, LAT, 90.0, 450.0)
    index = index_from(
        [feature(square(*centre, 100.0), id="b-small-channel", kind="access_channel")], tmp_path
    )
    start = aisgen.fwd(LON, LAT, 180.0, 500.0)
    track = aisgen.run(*start, course=0.0, sog_kn=10.0, t0=T0, dt_s=10, n=20)
    glitch = track[10]
    track[10] = Fix(glitch.t, *centre, glitch.sog, glitch.cog)
    fast_start = aisgen.fwd(*centre, 270.0, 1200.0)
    fast = aisgen.run(*fast_start, course=90.0, sog_kn=45.0, t0=T0, dt_s=10, n=12)
    recs: list[Record] = [_static(710000211, 37), _static(710000212, 37)]
    leads = run_pipeline(index, [*recs, *positions(710000211, track), *positions(710000212, fast)])
    assert _rules(leads) == [(710000212, "SEC-CHANNEL")]


def _slow(mmsi: int, sog: float, minutes: int, nav: int = 0) -> list[Position]:
    start = aisgen.fwd(LON, LAT, 180.0, 220.0)
    return positions(
        mmsi,
        aisgen.run(
            *start, course=0.0, sog_kn=sog, t0=T0, dt_s=30, n=2 * minutes + 1, nav_status=nav
        ),
    )


def test_stopped_means_at_most_half_a_knot(tmp_path: Path) -> None:
    index = _channel(tmp_path)
    crawl = _slow(710000221, 1.0, 15)  # 1 kn for 15 min: moving, never anchored
    drift = _slow(710000222, 0.4, 10)  # 0.4 kn for 10 min: stopped, anchored after 5
    recs: list[Record] = [_static(710000221, 70), _static(710000222, 70)]
    leads = run_pipeline(index, [*recs, *crawl, *drift])
    assert _rules(leads) == [(710000222, "SEC-CHANNEL")]


def test_anchored_after_300_s_stopped(tmp_path: Path) -> None:
    index = _channel(tmp_path)
    tracks: list[Record] = []
    for mmsi, stopped_s in ((710000231, 240), (710000232, 360)):
        fixes = aisgen.hold(LON, LAT, t0=T0, dt_s=30, n=stopped_s // 30 + 1, nav_status=0)
        t_go = T0 + stopped_s + 30
        fixes += aisgen.run(LON, LAT, course=90.0, sog_kn=8.0, t0=t_go, dt_s=10, n=30)
        tracks += [_static(mmsi, 70), *positions(mmsi, fixes)]
    assert _rules(run_pipeline(index, tracks)) == [(710000232, "SEC-CHANNEL")]


def test_at_anchor_status_is_believed_only_up_to_2_knots(tmp_path: Path) -> None:
    index = _channel(tmp_path)
    stale = _slow(710000241, 8.0, 1, nav=1)  # "at anchor", making 8 kn: a stale status
    creeping = _slow(710000242, 1.5, 3, nav=1)  # "at anchor" at 1.5 kn: believed
    plain = _slow(710000243, 8.0, 1, nav=0)  # allowed transit
    recs: list[Record] = [_static(m, 70) for m in (710000241, 710000242, 710000243)]
    leads = run_pipeline(index, [*recs, *stale, *creeping, *plain])
    assert _rules(leads) == [(710000242, "SEC-CHANNEL")]


def test_allow_list_by_ship_type(tmp_path: Path) -> None:
    index = _channel(tmp_path)
    allowed = _slow(710000251, 8.0, 1)
    other = _slow(710000252, 8.0, 1)
    leads = run_pipeline(index, [_static(710000251, 70), _static(710000252, 80), *allowed, *other])
    assert _rules(leads) == [(710000252, "SEC-CHANNEL")]


# -- 0212 f): the platform and its installation exemption -------------------------------


def test_installation_exemption_boundaries(tmp_path: Path) -> None:
    index = index_from([feature(Point(P52), id="b-p52", kind="platform")], tmp_path)
    cases = {
        710000261: (150.0, 80.0, True),  # 150 m ship, 80 m off, moored: the installation
        710000262: (150.0, 150.0, True),  # 150 m off: beyond the 100 m radius, a lead
        710000263: (30.0, 50.0, True),  # a 30 m boat tied up: under 100 m long, a lead
        710000264: (150.0, 60.0, False),  # a 150 m ship under way 60 m off: a lead
    }
    recs: list[Record] = []
    for mmsi, (length, off, stopped) in cases.items():
        recs.append(_static(mmsi, 80, length))
        spot = aisgen.fwd(*P52, 0.0, off)
        if stopped:
            fixes = aisgen.hold(*spot, t0=T0, dt_s=60, n=10, nav_status=5)
        else:
            # 20 fixes of 6 kn x 10 s (30.87 m) west of abeam: fix 20 is abeam, 60 m off
            start = aisgen.fwd(*spot, 270.0, 20 * 6.0 * aisgen.KN * 10)
            fixes = aisgen.run(*start, course=90.0, sog_kn=6.0, t0=T0, dt_s=10, n=41)
        recs += positions(mmsi, fixes)
    leads = run_pipeline(index, recs)
    assert _rules(leads) == [
        (710000262, "SEC-PLATFORM"),
        (710000263, "SEC-PLATFORM"),
        (710000264, "SEC-PLATFORM"),
    ]
    # the ship under way is judged at every fix, the nearest (60 m abeam) included
    (under_way,) = [ld for ld in leads if ld.mmsi == 710000264]
    assert under_way.min_distance_m == pytest.approx(60.0, abs=0.5)


# -- 0211 e): a launching area's dwell ----------------------------------------------------


def test_launch_area_dwell_limit_in_minutes(tmp_path: Path) -> None:
    index = index_from(
        [feature(square(LON, LAT, 200.0), id="b-launch", kind="launch_area", max_dwell_min=10)],
        tmp_path,
    )
    short = positions(710000271, aisgen.hold(LON, LAT, t0=T0, dt_s=30, n=17, nav_status=0))  # 8 min
    long = positions(710000272, aisgen.hold(LON, LAT, t0=T0, dt_s=30, n=25, nav_status=0))  # 12 min
    leads = run_pipeline(index, [_static(710000271, 37), _static(710000272, 37), *short, *long])
    assert _rules(leads) == [(710000272, "BATH-LAUNCH")]


# -- 0211 b) 1) and 2): the sail and motor bands off a beach -----------------------------


def test_sail_band_100_m_and_motor_band_200_m(tmp_path: Path) -> None:
    """A straight baseline along a parallel; runs 5 kn along it, due south of it by the
    distance written (the nearest point of a parallel is due north)."""
    west, east = aisgen.fwd(LON, LAT, 270.0, 1500.0), aisgen.fwd(LON, LAT, 90.0, 1500.0)
    index = index_from(
        [feature(LineString([west, (east[0], west[1])]), id="b-beach", kind="bather_beach")],
        tmp_path,
    )

    def run(mmsi: int, off: float, nav: int | None, msg_type: int = 1) -> list[Position]:
        start = aisgen.fwd(*aisgen.fwd(LON, west[1], 270.0, 100.0), 180.0, off)
        fixes = aisgen.run(
            *start, course=90.0, sog_kn=5.0, t0=T0, dt_s=10, n=9, nav_status=nav or 0
        )
        return positions(mmsi, fixes, msg_type=msg_type)

    recs: list[Record] = [_static(m, 36) for m in (710000281, 710000282, 710000283)]
    recs += [_static(m, 70) for m in (710000284, 710000285)]
    recs += run(710000281, 150.0, 8)  # sailing (status 8) 150 m off: outside its band
    recs += run(710000282, 80.0, 8)  # sailing 80 m off: inside the 100 m band
    recs += run(710000283, 150.0, None, msg_type=18)  # class B, type 36: sail inferred
    recs += run(710000284, 180.0, 0)  # motor 180 m off: inside the 200 m band
    recs += run(710000285, 220.0, 0)  # motor 220 m off: outside
    leads = run_pipeline(index, recs)
    assert _rules(leads) == [(710000282, "BATH-SAIL"), (710000284, "BATH-MOTOR")]


# -- the authorised-vessel register ---------------------------------------------------------


def test_an_authorisation_covers_only_its_validity_window(tmp_path: Path) -> None:
    from vigia.alerts.authorised import Authorisation, AuthorisedRegister
    from vigia.alerts.pipeline import LeadPipeline
    from vigia.ingest.registry import VesselRegistry

    index = index_from([feature(Point(P52), id="b-p52", kind="platform")], tmp_path)
    register = AuthorisedRegister(
        [
            Authorisation(710000291, zone_id="b-p52", valid_from=T0 - 3600, valid_to=T0 + 3600),
            Authorisation(710000292, zone_id="b-p52", valid_from=T0 - 7200, valid_to=T0 - 1),
            Authorisation(710000293, zone_id="b-p52", valid_from=T0 + 1, valid_to=T0 + 7200),
            Authorisation(710000294, zone_id="another-platform"),
        ]
    )
    pipe = LeadPipeline(index, VesselRegistry(), register=register)
    recs: list[Record] = []
    for mmsi in (710000291, 710000292, 710000293, 710000294):
        # 200 m abeam, from T0 - 50 s to T0 + 40 s, every fix within 500 m
        start = aisgen.fwd(*aisgen.fwd(*P52, 0.0, 200.0), 270.0, 200.0)
        recs += positions(
            mmsi, aisgen.run(*start, course=90.0, sog_kn=8.0, t0=T0 - 50, dt_s=10, n=10)
        )
    leads = pipe.process(sorted(recs, key=lambda r: r.t)) + pipe.finish()
    assert _rules(leads) == [
        (710000292, "SEC-PLATFORM"),  # expired a second before
        (710000293, "SEC-PLATFORM"),  # valid only from a second after
        (710000294, "SEC-PLATFORM"),  # another zone's authorisation
    ]


# -- 0211 b) 3): "lies at anchor after such an approach" is judged where it lies ---------

SWING_M = 150.0  # docs/leads.md "Defaults": a stopped vessel's swing, written out


def _beach(tmp_path: Path) -> ZoneIndex:
    """A straight baseline along the parallel of LAT, 3 km long: the sea is south."""
    west, east = aisgen.fwd(LON, LAT, 270.0, 1500.0), aisgen.fwd(LON, LAT, 90.0, 1500.0)
    return index_from(
        [feature(LineString([west, (east[0], west[1])]), id="b-beach", kind="bather_beach")],
        tmp_path,
    )


def _anchors_then(mmsi: int, course: float, sog: float, minutes: int,
                  nav: int) -> list[Position]:  # fmt: skip
    """Comes straight in (north) at 2 kn from 260 m to 150 m off the beach, lies at
    anchor (status 1) for 5 minutes, then makes ``sog`` on ``course`` for ``minutes``
    reporting status ``nav``."""
    start = aisgen.fwd(LON, LAT, 180.0, 260.0)
    fixes = aisgen.run(*start, course=0.0, sog_kn=2.0, t0=T0, dt_s=30, n=7, nav_status=0)
    at = (fixes[-1].lon, fixes[-1].lat)
    t = fixes[-1].t + 30
    fixes += aisgen.hold(*at, t0=t, dt_s=30, n=10, nav_status=1)
    fixes += aisgen.run(*at, course=course, sog_kn=sog, t0=t + 300, dt_s=30,
                        n=2 * minutes, nav_status=nav)  # fmt: skip
    return positions(mmsi, fixes)


def test_at_anchor_by_status_but_running_along_the_beach_is_a_lead(tmp_path: Path) -> None:
    index = _beach(tmp_path)
    recs: list[Record] = [_static(m, 37, 9.0) for m in range(710000291, 710000296)]
    # "at anchor" at 2 kn along the beach for 20 min: 1.2 km, no anchor holds that
    recs += _anchors_then(710000291, 90.0, 2.0, 20, nav=1)
    # under way at 0.4 kn (stopped by its speed) slanting for 20 min: 250 m
    recs += _anchors_then(710000292, 135.0, 0.4, 20, nav=0)
    # "at anchor", swinging at 1.5 kn: 0.8 kn made good east for 3 minutes is 74 m, less
    # than the swing: lying at anchor
    recs += _anchors_then(710000293, 90.0, 0.8, 3, nav=1)
    # at anchor, then creeping straight in at 1 kn (status kept): the approach itself
    recs += _anchors_then(710000294, 0.0, 1.0, 4, nav=1)
    # at anchor, then leaving straight out at 1.5 kn (status kept): leaving the same way
    recs += _anchors_then(710000295, 180.0, 1.5, 10, nav=1)
    leads = run_pipeline(index, recs)
    assert _rules(leads) == [(710000291, "BATH-MOTOR"), (710000292, "BATH-MOTOR")]
    # the lead starts where it had moved past its swing, not where it lay
    first = next(x for x in leads if x.mmsi == 710000291)
    # it lies from T0 + 210 s and sets off at T0 + 510 s; at 2 kn (1.029 m/s) a fix every
    # 30 s is 30.9 m further: the 4th is 123 m from where it lay, the 5th 154 m
    moved_at = T0 + 210 + 300 + 5 * 30
    assert first.started_at == moved_at, (first.started_at - T0, moved_at - T0)


def test_the_swing_is_150_m_on_both_sides(tmp_path: Path) -> None:
    index = _beach(tmp_path)
    recs: list[Record] = [_static(m, 37, 9.0) for m in (710000297, 710000298)]

    def drift(mmsi: int, metres: float) -> list[Position]:
        # anchored as above, then ten fixes 30 s apart easing ``metres`` east of where it
        # lay (under 1 kn), still "at anchor", and five more there
        start = aisgen.fwd(LON, LAT, 180.0, 260.0)
        fixes = aisgen.run(*start, course=0.0, sog_kn=2.0, t0=T0, dt_s=30, n=7, nav_status=0)
        at = (fixes[-1].lon, fixes[-1].lat)
        t = fixes[-1].t + 30
        fixes += aisgen.hold(*at, t0=t, dt_s=30, n=10, nav_status=1)
        for k in range(1, 16):
            there = aisgen.fwd(*at, 90.0, metres * min(k, 10) / 10)
            fixes += aisgen.hold(*there, t0=t + 270 + 30 * k, dt_s=30, n=1, nav_status=1)
        return positions(mmsi, fixes)

    recs += drift(710000297, SWING_M - 5.0) + drift(710000298, SWING_M + 5.0)
    assert _rules(run_pipeline(index, recs)) == [(710000298, "BATH-MOTOR")]
