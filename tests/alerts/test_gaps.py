"""Going dark (issue 33): a vessel silent next to a platform while the receivers hear
others raises ``AIS-GAP`` naming it; the same silence while the receiver is down, or
at a quay, raises none. Intervals by hand from ITU-R M.1371-5; the gap's threshold on
both sides and at the bound."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from shapely.geometry import Point

from scripts.satfeed import deliver
from tests.alerts.scenario_kit import T0, aisgen, feature, index_from, square, to_positions
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.gaps.detect import GapConfig, opens, reporting_interval_s
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Position, Record, StaticData
from vigia.ingest.registry import VesselRegistry

PLAT = (-39.735712, -21.906566)  # a Campos basin platform, 70 km offshore
DARK, OTHER, FAR = 710_000_101, 710_000_102, 710_000_103


def _pipe(tmp_path: Path, with_port: bool = False) -> LeadPipeline:
    tmp_path.mkdir(parents=True, exist_ok=True)
    feats = [feature(Point(*PLAT), id="t-plat", kind="platform", name="P-TEST")]
    if with_port:
        # an anchorage around the spot 1.5 km west of the platform where the silence starts
        feats.append(feature(square(*aisgen.fwd(*PLAT, 270, 1_500), 400), id="t-anch",
                             kind="anchorage", name="Fundeadouro"))  # fmt: skip
    return LeadPipeline(index_from(feats, tmp_path), VesselRegistry(), EpisodeConfig())


def _track(mmsi: int, start: tuple[float, float], course: float, sog: float, t0: float,
           n: int, source: str = "rx-campos", dt: float = 10.0) -> list[Position]:  # fmt: skip
    fixes = aisgen.run(*start, course=course, sog_kn=sog, t0=t0, dt_s=dt, n=n)
    return [dataclasses.replace(p, source=source) for p in to_positions(mmsi, fixes)]


def _scene(*, others: bool, receiver: bool, at: tuple[float, float] | None = None,
           sog: float = 6.0) -> list[Record]:  # fmt: skip
    """The dark vessel runs north at ``sog`` for an hour to 1.5 km west of the platform
    (outside its 500 m), is silent 45 min, and is heard again 1.5 km east of it."""
    west = at or aisgen.fwd(*PLAT, 270, 1_500)
    start = aisgen.fwd(*west, 180, sog * aisgen.KN * 3_590)
    before = _track(DARK, start, 0.0, sog, T0, 360)
    after = _track(DARK, aisgen.fwd(*PLAT, 90, 1_500), 0.0, sog, T0 + 3_590 + 2_700, 60)
    recs: list[Record] = [*before, *after]
    if others:  # a supply boat 2 km south of the platform, heard by another receiver
        recs += _track(OTHER, aisgen.fwd(*PLAT, 180, 2_000), 90.0, 0.0, T0, 700,
                       source="rx-sat")  # fmt: skip
    if receiver:  # the receiver that heard the dark vessel hears a far ship meanwhile
        recs += _track(FAR, aisgen.fwd(*PLAT, 0, 60_000), 90.0, 10.0, T0, 700)
    recs.sort(key=lambda r: r.t)
    return recs


def _run(pipe: LeadPipeline, recs: list[Record]) -> list[Lead]:
    out: list[Lead] = []
    for i in range(0, len(recs), 200):
        out += pipe.process(recs[i : i + 200]) + pipe.expire(pipe.stream_time)
    return out + pipe.finish()


def _gaps(leads: list[Lead]) -> list[Lead]:
    return [x for x in leads if x.rule == "AIS-GAP"]


def test_a_silence_by_a_platform_while_others_are_heard_names_the_platform(
    tmp_path: Path,
) -> None:
    pipe = _pipe(tmp_path)
    leads = _run(pipe, _scene(others=True, receiver=True))
    (gap,) = _gaps(leads)
    assert gap.mmsi == DARK and gap.zone_id == "t-plat"
    assert gap.details["zones"] == ["t-plat"]
    assert gap.started_at == T0 + 3_590 and gap.ended_at == T0 + 3_590 + 2_700
    assert gap.details["duration_s"] == 2_700.0
    # 3 km between the ends in 45 min: 2.16 kn by hand (3000 / 2700 / 0.514444)
    assert abs(gap.details["implied_speed_kn"] - 2.16) < 0.02
    codes = {r["code"]: r for r in gap.details["reasons"]}
    assert codes["rate_before"]["met"] and codes["others_heard"]["met"]
    assert codes["others_heard"]["vessels"] == 1  # the supply boat, not itself
    assert codes["receiver_alive"]["met"] and codes["receiver_alive"]["source"] == "rx-campos"
    assert len(gap.evidence) == 2 and not [x for x in leads if x.rule == "SEC-PLATFORM"]
    assert gap.citation.startswith("SOLAS V/19")


def test_the_same_silence_with_the_receiver_down_and_nobody_heard_raises_none(
    tmp_path: Path,
) -> None:
    pipe = _pipe(tmp_path)
    assert _gaps(_run(pipe, _scene(others=False, receiver=False))) == []
    assert pipe.counters["gaps_coverage"] == 1


def test_a_receiver_alive_with_nobody_near_or_others_near_a_dead_receiver_is_coverage(
    tmp_path: Path,
) -> None:
    # the receiver heard a ship 60 km away, but nobody was heard by the platform
    pipe = _pipe(tmp_path / "alive")
    assert _gaps(_run(pipe, _scene(others=False, receiver=True))) == []
    assert pipe.counters["gaps_coverage"] == 1
    # others heard by the platform (by satellite), but the receiver that heard the
    # vessel heard nothing meanwhile: its outage, not the vessel's silence
    pipe = _pipe(tmp_path / "dead")
    assert _gaps(_run(pipe, _scene(others=True, receiver=False))) == []
    assert pipe.counters["gaps_coverage"] == 1


def test_a_silence_at_anchor_in_an_anchorage_raises_none(tmp_path: Path) -> None:
    # the same silence from a ship lying stopped 1.5 km west of the platform: a lead;
    # with that spot an anchorage (a ship there may switch off lawfully), none
    scene = _scene(others=True, receiver=True, sog=0.0)
    assert len(_gaps(_run(_pipe(tmp_path / "sea"), scene))) == 1
    pipe = _pipe(tmp_path / "port", with_port=True)
    assert _gaps(_run(pipe, scene)) == []
    assert pipe.counters["gaps_port"] == 1


def test_a_satellite_like_delivery_raises_the_same_gap_lead(tmp_path: Path) -> None:
    recs = _scene(others=True, receiver=True)
    want = [x.to_json() for x in _gaps(_run(_pipe(tmp_path / "a"), recs))]
    feed = deliver(recs, key=lambda r: r.mmsi, time=lambda r: r.t, seed=4, max_delay_s=3_000)
    got = [x.to_json() for x in _gaps(_run(_pipe(tmp_path / "b"), feed))]
    assert got == want and len(got) == 1


# -- by hand ---------------------------------------------------------------------------


def test_reporting_intervals_are_those_of_itu_r_m1371() -> None:
    # Table 1 (class A) and Table 2 (class B) of ITU-R M.1371-5
    assert reporting_interval_s(1, 0.0, 1) == 180.0  # at anchor, not moving
    assert reporting_interval_s(1, 3.0, 5) == 180.0  # moored, 3 kn: still 3 min
    assert reporting_interval_s(1, 3.1, 5) == 10.0  # moored but moving faster
    assert reporting_interval_s(1, 14.0, 0) == 10.0
    assert reporting_interval_s(1, 14.1, 0) == 6.0
    assert reporting_interval_s(1, 23.0, 0) == 6.0
    assert reporting_interval_s(1, 23.1, 0) == 2.0
    assert reporting_interval_s(18, 2.0, None) == 180.0
    assert reporting_interval_s(18, 2.1, None) == 30.0


def test_a_gap_opens_at_15_minutes_and_ten_intervals_and_not_before() -> None:
    cfg = GapConfig()
    assert not opens(cfg, 0.0, 899.0, 1, 8.0, 0)
    assert opens(cfg, 0.0, 900.0, 1, 8.0, 0)  # at the bound itself
    assert opens(cfg, 0.0, 901.0, 1, 8.0, 0)
    # moored: 10 x 180 s = 1 800 s
    assert not opens(cfg, 0.0, 1_799.0, 1, 0.0, 5)
    assert opens(cfg, 0.0, 1_800.0, 1, 0.0, 5)


def test_the_reachable_area_is_an_ellipse_with_the_ends_as_foci() -> None:
    from pyproj import Geod

    from vigia.alerts.gaps.shape import reach_ring

    geod = Geod(ellps="WGS84")
    a = aisgen.fwd(*PLAT, 270, 1_500)
    b = aisgen.fwd(*PLAT, 90, 1_500)
    ring = reach_ring(a, b, 16_000.0)
    assert ring[0] == ring[-1] and len(ring) == 49
    for lon, lat in ring[:-1]:
        # every outline point: the sum of its distances to the two ends is the reach
        da = geod.inv(lon, lat, *a)[2]
        db = geod.inv(lon, lat, *b)[2]
        assert abs(da + db - 16_000.0) < 16.0  # 0.1 %: the local plane's error


# "inside the ballast lines" (RULES.md AIS-GAP): a ship NORMAM-20 applies to going dark
# landward of the 200 nm line, far from every closed area
OPEN_SEA = aisgen.fwd(*PLAT, 90, 40_000)  # 40 km east of the platform: ~60 nm offshore
BEYOND = (-36.0, -28.0)  # ~560 nm from Trindade, the nearest land, ~650 from the coast


def _dark_at(at: tuple[float, float], msg_type: int = 1, status: int = 0,
             sog: float = 6.0) -> list[Record]:  # fmt: skip
    """The dark ship runs north an hour to ``at``, is silent 45 min and is heard again
    there (``sog`` 0: it lies still throughout); a ship 2 km off it and one 60 km off
    are heard by the same receiver all the while."""
    start = aisgen.fwd(*at, 180, sog * aisgen.KN * 3_590)
    before = _track(DARK, start, 0.0, sog, T0, 360)
    after = _track(DARK, aisgen.fwd(*at, 0, sog * aisgen.KN * 2_700), 0.0, sog,
                   T0 + 3_590 + 2_700, 60)  # fmt: skip
    dark = [dataclasses.replace(p, msg_type=msg_type, nav_status=status if msg_type == 1 else None)
            for p in [*before, *after]]  # fmt: skip
    recs: list[Record] = [*dark]
    recs += _track(OTHER, aisgen.fwd(*at, 90, 2_000), 90.0, 0.0, T0, 700, source="rx-sat")
    recs += _track(FAR, aisgen.fwd(*at, 0, 60_000), 90.0, 10.0, T0, 700)
    return sorted(recs, key=lambda r: r.t)


def _pipe_with(tmp_path: Path, static: StaticData | None = None) -> LeadPipeline:
    pipe = _pipe(tmp_path)
    if static is not None:
        pipe.registry.update(static)
    return pipe


def test_a_ship_dark_inside_the_ballast_lines_far_from_any_area_raises_a_lead(
    tmp_path: Path,
) -> None:
    pipe = _pipe_with(tmp_path)
    (gap,) = _gaps(_run(pipe, _dark_at(OPEN_SEA)))
    assert gap.mmsi == DARK and gap.zone_id is None and gap.details["zones"] == []
    lines = gap.details["ballast_lines"]
    assert lines["line_nm"] == 200.0 and lines["inside"] == ["start", "end"]
    # 40 km east of a platform 70 km off the coast: well inside 200 nm, and beyond 30
    assert 30.0 < lines["start_nm"] < 100.0 and 30.0 < lines["end_nm"] < 100.0
    assert gap.started_at == T0 + 3_590 and gap.ended_at == T0 + 3_590 + 2_700


def test_beyond_the_200_nm_line_class_b_small_craft_or_at_anchor_raise_none(
    tmp_path: Path,
) -> None:
    pipe = _pipe_with(tmp_path / "beyond")
    assert _gaps(_run(pipe, _dark_at(BEYOND))) == []
    assert pipe.counters["gaps_clear"] == 1  # judged: heard well, others heard
    pipe = _pipe_with(tmp_path / "classb")
    assert _gaps(_run(pipe, _dark_at(OPEN_SEA, msg_type=18))) == []
    # a pleasure craft of 12 m (2.1.1 b): 50 m or less); one of 51 m is judged
    small = StaticData(DARK, T0, 5, ship_type=37, length_m=12.0)
    assert _gaps(_run(_pipe_with(tmp_path / "small", small), _dark_at(OPEN_SEA))) == []
    big = StaticData(DARK, T0, 5, ship_type=37, length_m=51.0)
    assert len(_gaps(_run(_pipe_with(tmp_path / "big", big), _dark_at(OPEN_SEA)))) == 1
    # lying at anchor across the silence: an anchorage wherever it is (RULES.md)
    pipe = _pipe_with(tmp_path / "anchor")
    assert _gaps(_run(pipe, _dark_at(OPEN_SEA, status=1, sog=0.0))) == []
