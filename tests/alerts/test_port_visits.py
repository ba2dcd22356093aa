"""Port visits (issue 33) after Global Fishing Watch's published rule: entry within 3 km
of a port or anchorage zone, exit beyond 4 km, a stop from below 0.2 kn to above 0.5 kn.

The track is laid out by hand against the bundled tanker anchorage (DHN ENC BR323000):
due north of its northernmost vertex the nearest point of the polygon is that vertex, so
a fix ``d`` metres north of it is ``d`` metres from the zone. At 12 kn a fix every 30 s
is 185.2 m on (12 x 1852 / 3600 x 30); every boundary crossing is worked out from that."""

from __future__ import annotations

import dataclasses
import random

from pyproj import Geod
from shapely.geometry import Point

from scripts.satfeed import deliver
from tests.alerts.scenario_kit import T0, bundled_index, geodesic_truth
from tests.support.orders import shuffled_across_vessels
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.pipeline import LeadPipeline
from vigia.alerts.ports.stage import PortFinder
from vigia.alerts.ports.visits import PortVisit, PortVisitConfig, Stop, VisitState, step
from vigia.ingest.records import Position, Record
from vigia.ingest.registry import VesselRegistry

GEOD = Geod(ellps="WGS84")
ANCH_ID = "anchorage-BR323000-1345142653"
APEX = (-41.4363774, -23.5012806)  # its northernmost vertex (lat is the polygon's max)
SHIP, PASSER = 710_000_301, 710_000_302
STEP_M = 185.2  # 12 kn for 30 s


def _north(d: float) -> tuple[float, float]:
    lon, lat, _ = GEOD.fwd(APEX[0], APEX[1], 0.0, d)
    return float(lon), float(lat)


def _fix(mmsi: int, t: float, at: tuple[float, float], sog: float, cog: float,
         status: int = 0) -> Position:  # fmt: skip
    return Position(mmsi, t, 1, at[0], at[1], sog, cog, round(cog) % 360, status, True,
                    "rx-test", (f"synthetic {mmsi} {t}",))  # fmt: skip


def _anchoring() -> list[Position]:
    """In from 6 km north at 12 kn (fix k at 6000 - 185.2 k m, k = 0..29), at anchor
    500 m north of the vertex for 6 h (a fix every 3 min, 0 kn), out north at 12 kn
    (fix j at 500 + 185.2 j m, j = 1..40)."""
    recs = [_fix(SHIP, T0 + 30 * k, _north(6_000 - STEP_M * k), 12.0, 180.0) for k in range(30)]
    recs += [_fix(SHIP, T0 + 900 + 180 * i, _north(500), 0.0, 0.0, 1) for i in range(121)]
    recs += [
        _fix(SHIP, T0 + 22_500 + 30 * j, _north(500 + STEP_M * j), 12.0, 0.0) for j in range(1, 41)
    ]
    return recs


def _passing() -> list[Position]:
    """East along the line 3.5 km north of the vertex, nearest it at T0 + 600."""
    mid = _north(3_500)
    out = []
    for i in range(-20, 21):
        lon, lat, _ = GEOD.fwd(mid[0], mid[1], 90.0 if i >= 0 else 270.0, abs(i) * STEP_M)
        out.append(_fix(PASSER, T0 + 600 + 30 * i, (float(lon), float(lat)), 12.0, 90.0))
    return out


def _visits(
    recs: list[Record], batch: int = 50, cfg: EpisodeConfig | None = None
) -> list[PortVisit]:
    pipe = LeadPipeline(bundled_index(), VesselRegistry(), cfg or EpisodeConfig())
    out: list[PortVisit] = []
    for i in range(0, len(recs), batch):
        pipe.process(recs[i : i + batch])
        pipe.expire(pipe.stream_time)
        out += pipe.take_port_visits()
    pipe.finish()
    return out + pipe.take_port_visits()


def test_anchoring_then_leaving_makes_one_visit_with_times_by_hand() -> None:
    (v,) = _visits(sorted([*_anchoring(), *_passing()], key=lambda r: r.t))
    assert v.mmsi == SHIP and v.zone_id == ANCH_ID and v.zone_kind == "anchorage"
    # entry: the first fix within 3,000 m is k = 17 (2,851.6 m; k = 16 is 3,036.8 m)
    assert v.arrival_t == T0 + 510
    # exit: the first fix beyond 4,000 m is j = 19 (4,018.8 m; j = 18 is 3,833.6 m)
    assert v.departure_t == T0 + 22_500 + 570
    assert v.duration_s == 22_560.0
    # one stop: from the first 0 kn fix to the first 12 kn fix out
    assert v.stops == (Stop(T0 + 900, T0 + 22_530, *_north(500)),)
    assert (v.arrival_lon, v.arrival_lat) == _north(6_000 - STEP_M * 17)
    body = v.to_json()
    assert body["arrival"] == "2026-01-01T10:08:30Z" and body["duration_s"] == 22_560.0
    assert body["zone_name"] == "Tanker anchorage (charted, CATACH 3)"


def test_passing_3_5_km_off_makes_none() -> None:
    assert _visits(_passing()) == []


def test_a_visit_is_given_out_only_once_the_bound_has_passed_its_exit() -> None:
    recs = _anchoring()
    pipe = LeadPipeline(bundled_index(), VesselRegistry(), EpisodeConfig())
    pipe.process(recs)
    exit_t = T0 + 23_070.0
    pipe.expire(exit_t + 7_200.0)  # the clock less the bound is at the exit: not past
    assert pipe.take_port_visits() == []
    pipe.expire(exit_t + 7_200.5)
    (v,) = pipe.take_port_visits()
    assert v.departure_t == exit_t
    pipe.finish()
    assert pipe.take_port_visits() == []  # given out once
    assert pipe.counters["port_visits"] == 1  # as vigia replay prints it


def test_the_same_visits_in_any_order_batching_and_duplication() -> None:
    recs: list[Record] = sorted([*_anchoring(), *_passing()], key=lambda r: r.t)
    want = [v.to_json() for v in _visits(recs)]
    assert len(want) == 1
    for seed in range(6):
        rng = random.Random(seed)
        feed = deliver(recs, key=lambda r: r.mmsi, time=lambda r: r.t, seed=seed,
                       max_delay_s=5_000)  # fmt: skip
        feed = shuffled_across_vessels(feed, seed, key=lambda r: r.mmsi)
        got = [v.to_json() for v in _visits(feed, batch=rng.randint(1, 120))]
        assert got == want, seed
    twice = recs + [dataclasses.replace(r) for r in recs]
    assert [v.to_json() for v in _visits(twice)] == want


def _dark_at_3_5_km() -> list[Record]:
    """In to 2,851.6 m (k = 17: the entry), back out to lie 3,500 m north of the vertex
    (inside the visit: within 4 km) at anchor, a fix every 3 min for an hour, silent 2 h,
    then 10 more fixes and out north at 12 kn (j = 3 is the exit: 4,055.6 m). Another
    ship lies 1 km north of the vertex throughout, heard by the same receiver."""
    recs: list[Record] = [
        _fix(SHIP, T0 + 30 * k, _north(6_000 - STEP_M * k), 12.0, 180.0) for k in range(18)
    ]
    anchored = [T0 + 600 + 180 * i for i in range(21)]
    anchored += [anchored[-1] + 7_200 + 180 * i for i in range(10)]
    recs += [_fix(SHIP, t, _north(3_500), 0.0, 0.0, 1) for t in anchored]
    out0 = anchored[-1]
    recs += [_fix(SHIP, out0 + 30 * j, _north(3_500 + STEP_M * j), 12.0, 0.0) for j in range(1, 6)]
    recs += [_fix(PASSER, T0 + 60 * i, _north(1_000), 0.0, 0.0, 1) for i in range(250)]
    return sorted(recs, key=lambda r: r.t)


def test_a_silence_inside_one_visit_is_a_port_silence_where_3_km_alone_says_not() -> None:
    recs = _dark_at_3_5_km()
    pipe = LeadPipeline(bundled_index(), VesselRegistry(), EpisodeConfig())
    leads = pipe.process(recs) + pipe.finish()
    assert [x for x in leads if x.rule == "AIS-GAP"] == []
    assert pipe.counters.get("gaps_port") == 1  # heard well, others heard: judged "port"
    # the other ship never leaves: its visit is not over, so not given out
    (v,) = pipe.take_port_visits()
    assert (v.arrival_t, v.departure_t) == (T0 + 510, T0 + 600 + 180 * 20 + 7_200 + 1_620 + 90)
    assert pipe.in_port(PASSER) == ANCH_ID and pipe.in_port(SHIP) is None
    # the same silence with visits not tracked: both ends 3.5 km off, beyond port_m
    blind = LeadPipeline(bundled_index(), VesselRegistry(), EpisodeConfig())
    blind.port_config = PortVisitConfig(enabled=False)
    blind.process(recs)
    blind.finish()
    assert "gaps_port" not in blind.counters and blind.counters["gaps_clear"] == 1
    assert blind.take_port_visits() == []


# -- the rule's bounds, on both sides and at each ---------------------------------------


class _Z:
    def __init__(self, zid: str) -> None:
        self.id, self.name = zid, zid
        self.kind = type("K", (), {"value": "anchorage"})()


ZONES = [_Z("a"), _Z("b")]
CFG = PortVisitConfig()


def _go(st: VisitState, t: float, d: float | None, sog: float | None = 5.0) -> PortVisit | None:
    return step(st, CFG, 1, (t, 0.0, 0.0, sog), {} if d is None else {0: d}, ZONES)


def test_entry_at_3_km_and_not_beyond() -> None:
    st = VisitState()
    _go(st, 0, 3_000.001)
    assert st.zone is None
    _go(st, 1, 3_000.0)
    assert st.zone == 0 and st.arrival_t == 1


def test_exit_beyond_4_km_and_not_at() -> None:
    st = VisitState()
    _go(st, 0, 100.0)
    assert _go(st, 1, 4_000.0) is None and st.zone == 0
    v = _go(st, 2, 4_000.001)
    assert v is not None and (v.arrival_t, v.departure_t) == (0, 2) and st.zone is None
    st2 = VisitState()
    _go(st2, 0, 100.0)
    assert _go(st2, 1, None) is not None  # nothing within 4 km at all


def test_stop_below_0_2_kn_ends_above_0_5_kn() -> None:
    st = VisitState()
    _go(st, 0, 10.0, 0.2)
    assert st.stop_from is None  # 0.2 is not below 0.2
    _go(st, 1, 10.0, 0.1999)
    assert st.stop_from == (1, 0.0, 0.0)
    _go(st, 2, 10.0, 0.5)  # 0.5 is not above 0.5
    _go(st, 3, 10.0, None)  # no speed: nothing changes
    assert st.stop_from is not None and st.stops == []
    _go(st, 4, 10.0, 0.5001)
    assert st.stops == [Stop(1, 4, 0.0, 0.0)] and st.stop_from is None
    _go(st, 5, 10.0, 0.0)
    v = _go(st, 6, 5_000.0)  # left without reporting a speed above 0.5: stop ends at exit
    assert v is not None and v.stops == (Stop(1, 4, 0.0, 0.0), Stop(5, 6, 0.0, 0.0))


def test_leaving_one_zone_for_another_within_3_km_makes_two_visits() -> None:
    st = VisitState()
    step(st, CFG, 1, (0, 0.0, 0.0, 5.0), {0: 100.0}, ZONES)
    # beyond 4 km of the first, within 3 km of the second: the first ends, the next opens
    v = step(st, CFG, 1, (10, 0.0, 0.0, 5.0), {1: 2_000.0}, ZONES)
    assert v is not None and v.zone_id == "a" and st.zone == 1 and st.arrival_t == 10
    # near both: the nearer wins, ties by id
    st2 = VisitState()
    step(st2, CFG, 1, (0, 0.0, 0.0, 5.0), {1: 500.0, 0: 500.0}, ZONES)
    assert st2.zone == 0


def test_port_distances_agree_with_the_geodesic_oracle_within_a_metre() -> None:
    # every bundled port and anchorage zone, points up to ~7 km around it: the local
    # frame's distance against the densified geodesic one, 0 inside
    index = bundled_index()
    finder = PortFinder(index, 4_000.0)
    rng = random.Random(7)
    checked = 0
    for i, zone in enumerate(index.zones):
        if zone.kind.value not in ("anchorage", "port_facility"):
            continue
        c = zone.geometry.centroid
        for _ in range(12):
            lon, lat = c.x + rng.uniform(-0.06, 0.06), c.y + rng.uniform(-0.06, 0.06)
            got = finder.near(lon, lat).get(i)
            inside = zone.geometry.contains(Point(lon, lat))
            truth = 0.0 if inside else geodesic_truth(zone.geometry, lon, lat)
            if got is None:
                assert truth > 3_999.0  # beyond reach (a metre of slack at the edge)
                continue
            assert abs(got - truth) < 1.0, (zone.id, lon, lat, got, truth)
            checked += 1
    assert checked > 100


def test_a_batch_prefetched_answers_as_each_point_alone() -> None:
    # the batch path (one vectorised pass per zone) and the point path give the same
    # zones, in the same order, at the same bits; inside, on the edge and beyond reach
    import numpy as np

    index = bundled_index()
    rng = random.Random(11)
    pts: list[tuple[float, float]] = []
    for zone in index.zones:
        if zone.kind.value not in ("anchorage", "port_facility"):
            continue
        c = zone.geometry.centroid
        pts += [(c.x + rng.uniform(-0.05, 0.05), c.y + rng.uniform(-0.05, 0.05)) for _ in range(8)]
        x, y = (
            zone.geometry.exterior.coords[0] if hasattr(zone.geometry, "exterior") else (c.x, c.y)
        )
        pts.append((x, y))  # a vertex: distance 0 by either path
    pts += pts[:5]  # repeats within one batch
    alone = PortFinder(index, 4_000.0)
    want = [list(alone.near(lon, lat).items()) for lon, lat in pts]
    batch = PortFinder(index, 4_000.0)
    arr = np.array(pts)
    batch.prefetch(arr[:, 0], arr[:, 1])
    assert [list(batch.near(lon, lat).items()) for lon, lat in pts] == want
    assert sum(1 for w in want if w) > 50


def test_a_zone_edit_elsewhere_keeps_the_visit_and_one_of_its_zone_drops_it() -> None:
    from vigia.zones.evaluate import ZoneIndex

    recs = _anchoring()
    index = bundled_index()
    pipe = LeadPipeline(index, VesselRegistry(), EpisodeConfig())
    pipe.process(recs[:60])  # at anchor by now
    # an edit that leaves the anchorage as it was: the visit carries over
    kept, _ = pipe.rebuild(ZoneIndex([z for z in index.zones if z.kind.value != "platform"]))
    kept.process(recs[60:])
    kept.finish()
    (v,) = kept.take_port_visits()
    # the index positions moved (platforms left out): the visit is still the anchorage's
    assert v.zone_id == ANCH_ID and (v.arrival_t, v.departure_t) == (T0 + 510, T0 + 23_070)
    # an edit that removes it: the visit in progress goes with it (as its episodes would)
    pipe = LeadPipeline(index, VesselRegistry(), EpisodeConfig())
    pipe.process(recs[:60])
    gone, _ = pipe.rebuild(ZoneIndex([z for z in index.zones if z.id != ANCH_ID]))
    gone.process(recs[60:])
    gone.finish()
    assert gone.take_port_visits() == []
