"""Exemptions must be earned (issue 34): a ship type 35 (military) or 55 (law
enforcement) exempts from a military area's 200 m only when the register of state
vessels has the MMSI; otherwise the vessel is judged like any other, and the claim is an
``ID-TYPE-CLAIM`` lead of its own."""

from __future__ import annotations

from pathlib import Path

from shapely.geometry import Point

from tests.alerts.scenario_kit import (
    T0,
    aisgen,
    feature,
    index_from,
    static,
    to_positions,
)
from vigia.alerts.identity.state_register import StateVessel, StateVessels
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.registry import VesselRegistry

BASE = (-43.1712, -22.8978)  # a naval installation in Guanabara Bay
SHIP = 710_000_201


def _leads(tmp_path: Path, ship_type: int, state: StateVessels | None = None,
           allowed: dict[str, object] | None = None) -> list[Lead]:  # fmt: skip
    props: dict[str, object] = {"id": "t-base", "kind": "military", "name": "Base Naval"}
    if allowed is not None:
        props["allowed"] = allowed
    index = index_from([feature(Point(*BASE), **props)], tmp_path)
    # 150 m east of the installation, drifting slowly north for 10 minutes
    start = aisgen.fwd(*aisgen.fwd(*BASE, 90, 150), 180, 30)
    fixes = to_positions(SHIP, aisgen.run(*start, course=0, sog_kn=0.2, t0=T0, dt_s=10, n=60))
    pipe = LeadPipeline(index, VesselRegistry())
    if state is not None:
        pipe.state_vessels = state
    out: list[Lead] = []
    for batch in ([static(SHIP, ship_type)], fixes):
        out += pipe.process(batch) + pipe.expire(pipe.stream_time)
    return out + pipe.finish()


def _rules(leads: list[Lead]) -> list[str]:
    return sorted(x.rule for x in leads)


def test_a_type_35_not_on_the_register_150_m_from_a_base_raises_both_leads(
    tmp_path: Path,
) -> None:
    leads = _leads(tmp_path, 35)
    assert _rules(leads) == ["ID-TYPE-CLAIM", "SEC-MILITARY"]
    claim = next(x for x in leads if x.rule == "ID-TYPE-CLAIM")
    assert claim.zone_id == "t-base" and claim.vessel["ship_type"] == 35
    assert abs(claim.min_distance_m - 150.0) < 2.0
    assert claim.citation.startswith("IMO Res. A.1106(29)")
    # whose flag the MMSI says (ITU MID 710: Brazil), as evidence
    assert (claim.details["mid"], claim.details["mid_country"]) == (710, "BR")


def test_a_type_55_not_on_the_register_is_judged_like_any_vessel(tmp_path: Path) -> None:
    assert _rules(_leads(tmp_path, 55)) == ["ID-TYPE-CLAIM", "SEC-MILITARY"]


def test_one_on_the_register_raises_neither(tmp_path: Path) -> None:
    state = StateVessels([StateVessel(SHIP, "NAPA TESTE", "navy", "https://example.org/src")])
    assert _leads(tmp_path, 35, state) == []


def test_a_register_entry_that_has_expired_earns_nothing(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    ended = datetime.fromtimestamp(T0 - 1, tz=UTC)  # one second before the first fix
    state = StateVessels([StateVessel(SHIP, "EX-NAPA", "navy", "src", valid_to=ended)])
    assert _rules(_leads(tmp_path, 35, state)) == ["ID-TYPE-CLAIM", "SEC-MILITARY"]
    at = datetime.fromtimestamp(T0 + 600, tz=UTC)  # valid through the whole visit
    state = StateVessels([StateVessel(SHIP, "NAPA", "navy", "src", valid_to=at)])
    (tmp_path / "x").mkdir()
    assert _leads(tmp_path / "x", 35, state) == []


def test_an_allow_list_by_mmsi_is_the_zone_s_own_word_not_a_claim(tmp_path: Path) -> None:
    leads = _leads(tmp_path, 35, allowed={"mmsi": [SHIP], "ship_types": [35, 55]})
    assert leads == []


def test_a_fishing_boat_is_no_claim(tmp_path: Path) -> None:
    assert _rules(_leads(tmp_path, 30)) == ["SEC-MILITARY"]


# -- one MMSI, two ships ----------------------------------------------------------------

PLAT = (-39.735712, -21.906566)
TWIN = 710_000_301


def _two_ships(tmp_path: Path, far_m: float = 40_000.0) -> list[Lead]:
    """Ship A passes 1 km from a platform at 10 kn; ship B, ``far_m`` west, steams
    north; both send the same MMSI, every 10 s, 5 s apart (B silent when ``far_m`` is
    0): an hour of alternating fixes."""
    from tests.alerts.scenario_kit import feature as feat

    tmp_path.mkdir(parents=True, exist_ok=True)
    index = index_from([feat(Point(*PLAT), id="t-plat", kind="platform")], tmp_path)
    a0 = aisgen.fwd(*aisgen.fwd(*PLAT, 90, 1_000), 180, 9_000)
    a = to_positions(TWIN, aisgen.run(*a0, course=0, sog_kn=10, t0=T0, dt_s=10, n=360))
    recs = list(a)
    if far_m:
        b0 = aisgen.fwd(*a0, 270, far_m)
        recs += to_positions(TWIN, aisgen.run(*b0, course=0, sog_kn=10, t0=T0 + 5, dt_s=10, n=360))
    recs.sort(key=lambda r: r.t)
    pipe = LeadPipeline(index, VesselRegistry())
    out: list[Lead] = []
    for i in range(0, len(recs), 100):
        out += pipe.process(recs[i : i + 100]) + pipe.expire(pipe.stream_time)
    return out + pipe.finish()


def test_two_ships_on_one_mmsi_far_apart_give_one_id_lead_and_no_zone_lead(
    tmp_path: Path,
) -> None:
    leads = _two_ships(tmp_path)
    (lead,) = leads  # nothing else: no false zone lead from 40 km jumps
    assert lead.rule == "ID-MMSI-SHARED" and lead.mmsi == TWIN
    assert lead.details["segments"] == [0, 1]
    assert abs(lead.details["max_apart_m"] - 40_000.0) < 500.0
    assert lead.started_at < T0 + 60 and lead.ended_at is not None


def test_one_ship_alone_gives_no_id_lead(tmp_path: Path) -> None:
    assert _two_ships(tmp_path, far_m=0.0) == []


def test_ships_5_km_apart_are_split_but_not_called_two_ships(tmp_path: Path) -> None:
    # 5 km in 5 s is 1,944 kn: two segments, each judged alone; but closer than 10 km
    # (APART_M) they are not called two ships at once: no lead at all
    assert [x.rule for x in _two_ships(tmp_path, far_m=5_000.0)] == []


def test_each_ship_is_judged_alone_so_a_real_breach_is_not_lost_in_the_jumps(
    tmp_path: Path,
) -> None:
    # ship A lies stopped 300 m from the platform (inside its 500 m) while ship B, 40 km
    # away, shares its MMSI: each of A's fixes sits between two of B's 40 km away, which
    # the glitch filter alone calls glitches; judged as its own vessel, A breaks 0212 f)
    from tests.alerts.scenario_kit import feature as feat

    index = index_from([feat(Point(*PLAT), id="t-plat", kind="platform")], tmp_path)
    spot = aisgen.fwd(*PLAT, 0, 300)
    a = to_positions(TWIN, aisgen.run(*spot, course=0, sog_kn=0.0, t0=T0, dt_s=10, n=120))
    b0 = aisgen.fwd(*spot, 270, 40_000)
    b = to_positions(TWIN, aisgen.run(*b0, course=0, sog_kn=10, t0=T0 + 5, dt_s=10, n=120))
    pipe = LeadPipeline(index, VesselRegistry())
    recs = sorted(a + b, key=lambda r: r.t)
    leads = pipe.process(recs) + pipe.finish()
    assert sorted(x.rule for x in leads) == ["ID-MMSI-SHARED", "SEC-PLATFORM"]
    plat = next(x for x in leads if x.rule == "SEC-PLATFORM")
    assert abs(plat.min_distance_m - 300.0) < 2.0 and plat.mmsi == TWIN


def _blocks(tmp_path: Path, pattern: str) -> list[Lead]:
    """One MMSI reporting a minute apart in runs of 3 fixes: 'A' runs on a track stopped
    at sea, 'B' runs 40 km west of it (``pattern`` "ABA": away and back)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    index = index_from([], tmp_path)
    a = aisgen.fwd(*PLAT, 90, 20_000)
    b = aisgen.fwd(*a, 270, 40_000)
    recs, t = [], T0
    for run in pattern:
        spot = a if run == "A" else b
        recs += to_positions(TWIN, aisgen.run(*spot, course=0, sog_kn=0.0, t0=t, dt_s=60, n=3))
        t += 180
    pipe = LeadPipeline(index, VesselRegistry())
    return pipe.process(sorted(recs, key=lambda r: r.t)) + pipe.finish()


def test_a_ship_whose_position_jumps_away_and_back_is_not_two_ships(tmp_path: Path) -> None:
    """Two ships on one MMSI interleave their reports; one ship whose receiver is spoofed
    for a while jumps away and back (A B A): its segments meet every other condition (3
    fixes each, 40 km apart within 30 min) but do not alternate, so no lead. Both sides
    of the bound: A B A B (switched into B twice, into A once) is two ships."""
    assert _blocks(tmp_path / "aba", "ABA") == []
    assert _blocks(tmp_path / "abab_a", "ABAA") == []
    (lead,) = _blocks(tmp_path / "abab", "ABAB")
    assert lead.rule == "ID-MMSI-SHARED" and lead.details["segments"] == [0, 1]
