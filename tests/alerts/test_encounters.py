"""Meetings at sea (issue 37): Global Fishing Watch's encounter rule on tracks built by
hand (positions placed with pyproj's geodesic forward problem, so the expected
distances are the ones the test laid out), each threshold on both sides and at the
bound, and each exemption with and without its ground."""

from __future__ import annotations

from pathlib import Path

import pytest
from shapely.geometry import Point

from scripts import aisgen
from tests.alerts.scenario_kit import T0, feature, index_from, square
from vigia.alerts.authorised import Authorisation, AuthorisedRegister
from vigia.alerts.encounters.config import EncounterConfig
from vigia.alerts.encounters.leads import pair_id
from vigia.alerts.encounters.watch import EncounterWatch
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Position, Record, StaticData
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex

SEA = (-42.45, -23.21)  # about 30 km off the coast between Maricá and Saquarema
A, B = 710_370_901, 710_370_902


def _drift(
    mmsi: int, at: tuple[float, float], t0: float, dur_s: float, *, sog: float = 0.5,
    dt: float = 60.0, skip: tuple[float, float] | None = None,
) -> list[Position]:  # fmt: skip
    """Fixes every ``dt`` from ``t0`` to ``t0 + dur_s`` inclusive at one spot, reporting
    ``sog`` (a ship lying stopped or drifting slowly on station), none inside ``skip``."""
    n = round(dur_s / dt)
    out = []
    for i in range(n + 1):
        t = t0 + i * dt
        if skip is not None and skip[0] < t < skip[1]:
            continue
        out.append(Position(mmsi, t, 1, at[0], at[1], sog, 90.0, 90, 0))
    return out


def _static(mmsi: int, ship_type: int, length: float = 150.0) -> StaticData:
    return StaticData(mmsi, T0 - 60, 5, name=f"SHIP {mmsi % 1000}", ship_type=ship_type,
                      length_m=length)  # fmt: skip


def _run(recs: list[Record], index: ZoneIndex | None = None, *,
         register: AuthorisedRegister | None = None) -> list[Lead]:  # fmt: skip
    """Through the replay pipeline in time order, in batches, then to the end."""
    pipe = LeadPipeline(index or ZoneIndex([]), VesselRegistry(), EpisodeConfig(),
                        register=register)  # fmt: skip
    recs = sorted(recs, key=lambda r: r.t)
    out: list[Lead] = []
    for i in range(0, len(recs), 97):
        out += pipe.process(recs[i : i + 97])
        out += pipe.expire(pipe.stream_time)
    return out + pipe.finish()


def _meeting(sep_m: float, dur_s: float = 3 * 3600.0, sog: float = 0.5,
             types: tuple[int, int] = (80, 80)) -> list[Record]:  # fmt: skip
    other = aisgen.fwd(*SEA, 90.0, sep_m)
    return [
        _static(A, types[0]), _static(B, types[1]),
        *_drift(A, SEA, T0, dur_s, sog=sog), *_drift(B, other, T0 + 20, dur_s, sog=sog),
    ]  # fmt: skip


def _encounters(leads: list[Lead]) -> list[Lead]:
    return [x for x in leads if x.rule == "STS-ENCOUNTER"]


def test_two_ships_drifting_together_three_hours_raise_one_lead_naming_both() -> None:
    leads = _run(_meeting(300.0))
    assert len(leads) == 1
    lead = leads[0]
    assert lead.rule == "STS-ENCOUNTER"
    assert (lead.mmsi, lead.details["partner_mmsi"]) == (A, B)
    assert [v["mmsi"] for v in lead.details["vessels"]] == [A, B]
    assert [v["name"] for v in lead.details["vessels"]] == ["SHIP 901", "SHIP 902"]
    # laid out 300 m apart (geodesic); each slot interpolates one spot, so 300 m exactly
    assert lead.details["closest_approach_m"] == pytest.approx(300.0, abs=0.05)
    assert lead.min_distance_m == pytest.approx(300.0, abs=0.05)
    # A's fixes from T0, B's from T0 + 20 s: slots T0 + 10 min ... T0 + 3 h (B has a fix
    # after T0 + 3 h - 40 s only at T0 + 3 h + 20 s > its end, so 3 h is A's last slot
    # with B interpolated up to its last fix at T0 + 3 h - 40 s + 60 s = T0 + 3 h + 20 s)
    assert lead.started_at == T0 + 600.0
    assert lead.ended_at == T0 + 3 * 3600.0
    assert lead.details["duration_s"] == 3 * 3600.0 - 600.0
    assert lead.details["provisional"] is False
    assert lead.id == pair_id(A, B, T0 + 600.0)
    assert lead.citation == "MARPOL Annex I reg. 42; Lei 9.966/2000"
    assert lead.evidence and all(e.distance_m is not None for e in lead.evidence)
    assert lead.details["partner_evidence"]


@pytest.mark.parametrize(("sep", "leads"), [(499.5, 1), (500.0, 1), (500.5, 0)])
def test_within_500_m_on_both_sides_and_at_the_bound(sep: float, leads: int) -> None:
    assert len(_encounters(_run(_meeting(sep)))) == leads


@pytest.mark.parametrize(("sog", "leads"), [(1.9, 1), (2.0, 0), (2.1, 0)])
def test_both_below_2_knots(sog: float, leads: int) -> None:
    assert len(_encounters(_run(_meeting(200.0, sog=sog)))) == leads


@pytest.mark.parametrize(("dur", "leads"), [(7_800.0, 1), (7_740.0, 0)])
def test_two_hours_at_the_bound(dur: float, leads: int) -> None:
    """The first slot both have a position at is T0 + 10 min (B starts at T0 + 20 s):
    tracks of 2 h 10 min span slots T0 + 10 min .. T0 + 2 h 10 min, exactly 2 h; a
    minute less and A's last slot is T0 + 2 h: 1 h 50 min."""
    assert len(_encounters(_run(_meeting(200.0, dur_s=dur)))) == leads


@pytest.mark.parametrize(("silence", "leads"), [(3_600.0, 1), (3_660.0, 0)])
def test_no_interpolation_across_a_silence_over_one_hour(silence: float, leads: int) -> None:
    """B silent in the middle of a 4 h meeting: a silence of 1 h is interpolated across
    (one meeting of 3 h 50 min); 1 h 1 min splits it into two of under 2 h."""
    other = aisgen.fwd(*SEA, 90.0, 200.0)
    start = T0 + 5_400.0 + 20.0
    recs: list[Record] = [
        *_drift(A, SEA, T0, 4 * 3600.0),
        *_drift(B, other, T0 + 20, 4 * 3600.0, skip=(start, start + silence)),
    ]
    got = _encounters(_run(recs))
    assert len(got) == leads
    if leads:
        assert got[0].details["duration_s"] == 4 * 3600.0 - 600.0


def test_ships_passing_at_speed_raise_nothing() -> None:
    """Opposite courses at 12 kn, 400 m abeam at the closest: within 500 m for about a
    minute, never slow."""
    course = 70.0
    sa = aisgen.fwd(*SEA, course + 180, 6_000)
    sb = aisgen.fwd(*aisgen.fwd(*SEA, course + 90, 400), course, 6_000)
    recs: list[Record] = []
    for m, start, c in ((A, sa, course), (B, sb, course + 180)):
        for f in aisgen.run(*start, course=c % 360, sog_kn=12.0, t0=T0, dt_s=10.0, n=360):
            recs.append(Position(m, f.t, 1, f.lon, f.lat, f.sog, f.cog, None, 0))
    assert _run(recs) == []


def test_an_anchorage_within_10_km_exempts(tmp_path: Path) -> None:
    """GFW's anchorage distance on both sides: the meeting's centre 9.8 km and 10.2 km
    from an anchorage's edge (a 400 m square placed by the geodesic forward problem)."""
    mid = aisgen.fwd(*SEA, 90.0, 100.0)  # centre of A and B 200 m apart
    got = {}
    for d in (9_800.0, 10_200.0):
        anch = square(*aisgen.fwd(*mid, 0.0, d + 400.0), 400.0)
        index = index_from([feature(anch, id="t-anch", kind="anchorage", name="F")], tmp_path)
        got[d] = len(_encounters(_run(_meeting(200.0), index)))
    assert got == {9_800.0: 0, 10_200.0: 1}


def test_an_authorised_sts_area_exempts_only_inside(tmp_path: Path) -> None:
    feats = [feature(square(*SEA, 2_000.0), id="t-sts", kind="special_area", name="STS",
                     sts="authorised", valid_from="2025-01-01T00:00:00Z",
                     valid_to="2027-01-01T00:00:00Z")]  # fmt: skip
    inside = index_from(feats, tmp_path)
    assert _encounters(_run(_meeting(200.0), inside)) == []
    feats[0]["properties"]["sts"] = "no"
    assert len(_encounters(_run(_meeting(200.0), index_from(feats, tmp_path)))) == 1


def _at_platform(tmp_path: Path) -> tuple[ZoneIndex, list[Record]]:
    """A 300 m FPSO on a platform's charted point and another vessel 150 m off it."""
    index = index_from([feature(Point(*SEA), id="t-plat", kind="platform", name="P-T")],
                       tmp_path)  # fmt: skip
    recs: list[Record] = [
        _static(A, 80, 300.0),
        *_drift(A, SEA, T0, 4 * 3600.0, sog=0.0),
        *_drift(B, aisgen.fwd(*SEA, 45.0, 150.0), T0 + 20, 4 * 3600.0, sog=0.3),
    ]
    return index, recs


@pytest.mark.parametrize(("ship_type", "leads"), [(33, 0), (52, 0), (90, 1), (None, 1)])
def test_a_supply_vessel_at_its_platform(tmp_path: Path, ship_type: int | None, leads: int) -> None:
    """Offshore support (33) and a tug (52) beside the FPSO are at work; a vessel of
    type 90 (other) or unknown type is not known to be, and raises the lead."""
    index, recs = _at_platform(tmp_path)
    if ship_type is not None:
        recs.append(_static(B, ship_type, 80.0))
    assert len(_encounters(_run(recs, index))) == leads


def test_the_authorised_register_makes_a_supply_vessel(tmp_path: Path) -> None:
    index, recs = _at_platform(tmp_path)
    recs.append(_static(B, 90, 80.0))
    reg = AuthorisedRegister([Authorisation(mmsi=B, zone_id="t-plat")])
    assert _encounters(_run(recs, index, register=reg)) == []
    other = AuthorisedRegister([Authorisation(mmsi=B, zone_id="elsewhere")])
    assert len(_encounters(_run(recs, index, register=other))) == 1


def test_a_tug_at_work_anywhere_raises_nothing() -> None:
    assert _encounters(_run(_meeting(200.0, types=(80, 52)))) == []
    assert _encounters(_run(_meeting(200.0, types=(80, 31)))) == []
    assert len(_encounters(_run(_meeting(200.0, types=(80, 70))))) == 1


def test_provisional_after_30_minutes_then_withdrawn_if_it_does_not_last() -> None:
    """On a live stream with the bound at 0, records of an 80-min meeting all in: with
    slots up to T0 + 40 min settled (30 min of settled adjacency) the meeting is an open
    provisional lead, shown as far as the records go (the early view: T0 + 10 .. T0 + 80
    min, 70 min); once settled it is 70 min, short of 2 h, and the open lead is withdrawn
    (superseded by nothing) instead of becoming a lead."""
    cfg = EpisodeConfig(lateness_s=0.0)
    w = EncounterWatch(ZoneIndex([]), EncounterConfig(), lateness_s=cfg.lateness_s)
    recs = sorted(_meeting(200.0, dur_s=80 * 60.0), key=lambda r: r.t)
    w.feed(recs)
    # slot T0 + k*600 settles once the clock passes it by 1 h 10 min: at T0 + 1 h 50 min
    # and 1 s, slots up to T0 + 40 min are settled
    assert w.expire(T0 + 40 * 60 + 4_200.0 + 1.0) == []
    shown = w.open_leads()
    assert len(shown) == 1
    assert shown[0].ended_at is None and shown[0].details["provisional"] is True
    assert shown[0].details["duration_s"] == 4_200.0
    assert w.expire(T0 + 4 * 3600.0) == []
    gone = w.take_revisions()
    assert [x.id for x in gone] == [shown[0].id]
    assert gone[0].rule == "STS-ENCOUNTER" and gone[0].details["superseded_by"] is None


def test_nothing_is_shown_before_30_minutes() -> None:
    """The early view on a live feed: adjacency from T0 + 10 min; records up to T0 + 39
    min make slots up to T0 + 30 min (20 min): nothing; up to T0 + 40 min (30 min, the
    bound): shown."""
    w = EncounterWatch(ZoneIndex([]), EncounterConfig(), lateness_s=7_200.0)
    recs = sorted(_meeting(200.0, dur_s=3 * 3600.0), key=lambda r: r.t)
    w.feed([r for r in recs if r.t <= T0 + 39 * 60])
    w.expire(T0 + 39 * 60)
    assert w.open_leads() == []
    w.feed([r for r in recs if T0 + 39 * 60 < r.t <= T0 + 40 * 60])
    w.expire(T0 + 40 * 60)
    assert len(w.open_leads()) == 1


def test_the_procedure_refuses_an_auto_and_names_the_pollution_regime() -> None:
    """A meeting is no infraction (no Notice, no Auto from it), but what it points at,
    a transfer of oil, is Lei 9.966/2000's: its regime is pollution; loitering's LESTA."""
    from vigia.alerts.procedure.infractions import is_infraction, why_no_infraction
    from vigia.alerts.procedure.workflow import allowed_moves

    lead = _run(_meeting(300.0))[0]
    assert lead.to_json()["regime"] == "pollution"
    assert not is_infraction("STS-ENCOUNTER") and not is_infraction("LOITER")
    assert "Lei 9.966/2000" in why_no_infraction("STS-ENCOUNTER")
    moves = allowed_moves("triaged", "pollution", {}, "STS-ENCOUNTER")
    assert "notified" not in moves and "infraction" not in moves
    assert "infraction" in allowed_moves("triaged", "pollution", {}, "BW-EXCH-200")


def test_an_early_provisional_lead_on_a_live_feed_then_the_same_lead_closed() -> None:
    """With the default bound (2 h) slots settle 3 h 10 min late; the early view shows
    the meeting 40 min after it began, as the provisional open lead whose id the settled
    lead then keeps."""
    w = EncounterWatch(ZoneIndex([]), EncounterConfig(), lateness_s=7_200.0)
    recs = sorted(_meeting(200.0, dur_s=4 * 3600.0), key=lambda r: r.t)
    w.feed([r for r in recs if r.t <= T0 + 40 * 60])
    assert w.expire(T0 + 40 * 60) == []
    shown = w.open_leads()
    assert len(shown) == 1
    early = shown[0]
    assert early.ended_at is None and early.details["provisional"] is True
    assert early.started_at == T0 + 600.0 and early.details["duration_s"] == 1_800.0
    w.feed([r for r in recs if r.t > T0 + 40 * 60])
    assert w.expire(T0 + 4 * 3600.0) == []
    assert [x.id for x in w.open_leads()] == [early.id]  # still under way, not withdrawn
    closed = w.expire(T0 + 4 * 3600.0, final=True)
    assert [x.id for x in closed] == [early.id] and closed[0].ended_at is not None
    assert w.take_revisions() == []


def test_an_early_lead_the_settled_slots_do_not_confirm_is_withdrawn() -> None:
    """Together 40 min, then B steams away at 10 kn: shown early at 40 min, gone from
    the early view once B has left, withdrawn (superseded by nothing)."""
    w = EncounterWatch(ZoneIndex([]), EncounterConfig(), lateness_s=7_200.0)
    recs = sorted(_meeting(200.0, dur_s=40 * 60.0), key=lambda r: r.t)
    w.feed(recs)
    w.expire(T0 + 40 * 60)
    early = w.open_leads()
    assert len(early) == 1
    away = aisgen.run(*aisgen.fwd(*SEA, 90.0, 200.0), course=90.0, sog_kn=10.0,
                      t0=T0 + 41 * 60, dt_s=60.0, n=30)  # fmt: skip
    more: list[Record] = [Position(B, f.t, 1, f.lon, f.lat, f.sog, f.cog, None, 0) for f in away]
    more += _drift(A, SEA, T0 + 41 * 60, 29 * 60.0)
    w.feed(more)
    w.expire(T0 + 70 * 60)
    assert w.open_leads() == []
    gone = w.take_revisions()
    assert [x.id for x in gone] == [early[0].id]
    assert gone[0].details["superseded_by"] is None


def test_the_grid_never_hides_a_pair_within_500_m() -> None:
    """The pairing looks only in a vessel's H3 cell and the ring around it: for points
    across Brazilian waters (5 N to 35 S), another placed 500 m away in any direction
    (pyproj's forward problem) is always in that neighbourhood, and near_pairs finds the
    pair at 500 m (the bound) and not at 501 m."""
    import random

    import h3

    from vigia.alerts.encounters.pairing import near_pairs

    cfg = EncounterConfig()
    rng = random.Random(37)
    for _ in range(2_000):
        lon, lat = rng.uniform(-52.0, -28.0), rng.uniform(-35.0, 5.0)
        other = aisgen.fwd(lon, lat, rng.uniform(0.0, 360.0), 500.0)
        ring = h3.grid_disk(h3.latlng_to_cell(lat, lon, cfg.h3_res), 1)
        assert h3.latlng_to_cell(other[1], other[0], cfg.h3_res) in ring
    az = 33.0
    for dist, found in ((500.0, 1), (501.0, 0)):
        o = aisgen.fwd(*SEA, az, dist)
        got = near_pairs([A, B], [SEA[0], o[0]], [SEA[1], o[1]], cfg.near_m, cfg.h3_res)
        assert len(got) == found
        if found:
            assert got[0][2] == pytest.approx(500.0, abs=1e-6)
    # at the bound exactly: the pair's own geodesic distance as the limit is "within"
    import math

    from pyproj import Geod

    o = aisgen.fwd(*SEA, az, 500.0)
    d = float(Geod(ellps="WGS84").inv(SEA[0], SEA[1], o[0], o[1])[2])
    for limit, found in ((d, 1), (math.nextafter(d, 0.0), 0)):
        assert len(near_pairs([A, B], [SEA[0], o[0]], [SEA[1], o[1]], limit, cfg.h3_res)) == found


def test_memory_is_bounded_by_recent_traffic() -> None:
    """A ship heard for an hour (with its static report) and then never again is
    forgotten within a day of stream time, while another keeps the clock going; the
    silences kept for dark partners stay within a day too."""
    w = EncounterWatch(ZoneIndex([]), EncounterConfig(), lateness_s=7_200.0)
    w.feed([_static(A, 80), *_drift(A, SEA, T0, 3_600.0)])
    far = aisgen.fwd(*SEA, 0.0, 50_000.0)
    for day in range(3):
        w.feed(_drift(B, far, T0 + day * 86_400.0, 86_400.0, sog=6.0, dt=300.0))
        w.expire(w.stream_time)
    assert A not in w._tracks and B in w._tracks
    assert all(x.k * 600.0 >= w.stream_time - 2 * 86_400.0 for x in w._silences)
