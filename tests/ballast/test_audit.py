"""Audits of declared exchanges against an AIS track, applicability and screening."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
import shapely
from pyproj import Geod

from vigia.alerts.ballast.audit import AuditConfig, audit
from vigia.alerts.ballast.declaration import (
    AuditInputError,
    Declaration,
    DeclaredExchange,
    DeclaredPoint,
)
from vigia.alerts.ballast.screening import AssessedTrack, screen_arrivals, screen_voyage
from vigia.alerts.ballast.silences import silences_during
from vigia.alerts.identity.state_register import StateVessel, StateVessels
from vigia.ingest.records import Position, VesselInfo
from vigia.zones.ballast import BallastAssessor
from vigia.zones.model import Zone, ZoneKind

T0 = 1714521600.0  # 2024-05-01T00:00:00Z
FOREIGN = 636012345  # Liberia
BRAZILIAN = 710000123
NOW = T0 + 30 * 86_400.0  # the auditor's clock, a month after the voyage
_GEOD = Geod(ellps="WGS84")


def route(
    mmsi: int, waypoints: list[tuple[float, float]], kn: float = 14.0, step_s: float = 600.0
) -> list[Position]:
    """A ship steaming between waypoints, one fix every ``step_s`` seconds."""
    out: list[Position] = []
    t = T0
    for (x0, y0), (x1, y1) in itertools.pairwise(waypoints):
        _, _, metres = _GEOD.inv(x0, y0, x1, y1)
        n = max(1, int(metres / (kn * 1852 / 3600) / step_s))
        for i in range(n):
            f = i / n
            out.append(Position(mmsi, t, 1, x0 + f * (x1 - x0), y0 + f * (y1 - y0), kn, 300.0))
            t += step_s
    out.append(Position(mmsi, t, 1, waypoints[-1][0], waypoints[-1][1], kn, 300.0))
    return out


# from 600 nm off Rio Grande do Sul, deep all the way, to Rio: a)-water for its first ~29 h
ARRIVAL = route(FOREIGN, [(-34.0, -30.0), (-43.15, -23.15)])


def at_hour(track: list[Position], h: float) -> DeclaredPoint:
    """The ship's own position at hour ``h`` of the track (fixes every 10 min)."""
    p = track[round(h * 6)]
    assert p.lon is not None and p.lat is not None
    return DeclaredPoint(p.t, p.lat, p.lon)


def exchange(
    h0: float, h1: float, volume: float | None = 12000.0, method: str = "sequential"
) -> DeclaredExchange:
    """An exchange declared exactly where the track was."""
    return DeclaredExchange(at_hour(ARRIVAL, h0), at_hour(ARRIVAL, h1), volume, method)


def run(
    assessor: BallastAssessor, *exchanges: DeclaredExchange, **kw: object
) -> tuple[list[dict[str, object]], list[str]]:
    """Audit a foreign ship on ARRIVAL; the verdicts and the rules of the leads."""
    decl = Declaration(FOREIGN, tuple(exchanges), **kw)  # type: ignore[arg-type]
    res = audit(decl, ARRIVAL, None, assessor, now=NOW)
    return res.document["exchanges"], [ld.rule for ld in res.leads]


def test_exchange_far_out_and_deep_is_compliant(assessor: BallastAssessor) -> None:
    """Declared 400-500 nm out over the abyss, where the track was: compliant, no lead."""
    ex, rules = run(assessor, exchange(4, 10))
    assert ex[0]["verdict"] == "compliant"
    assert ex[0]["worst"]["distance_to_land_nm"] > 400
    assert ex[0]["track_match"]["start"]["matched"]
    assert rules == []


def test_exchange_under_b_while_a_was_available(assessor: BallastAssessor) -> None:
    """130-180 nm out, deep, but the voyage had 29 h of a)-water for a 24 h job."""
    ex, rules = run(assessor, exchange(31, 35))
    assert ex[0]["verdict"] == "noncompliant"
    assert ex[0]["a_water_opportunity"]["needed_hours"] == pytest.approx(24.0)
    assert ex[0]["a_water_opportunity"]["a_water_long_enough"]
    assert rules == ["BW-EXCH-200"]
    # in codes too: 29 h available (the docstring's figure), 24 h needed
    (code,) = ex[0]["reason_codes"]
    assert code["code"] == "a_water_available" and code["needed_hours"] == 24.0
    assert code["available_hours"] == pytest.approx(29.0, abs=0.5)


def test_big_exchange_under_b_is_a_fallback(assessor: BallastAssessor) -> None:
    """40,000 m3 flow-through needs 120 h at 1000 m3/h; 29 h of a)-water was not enough."""
    ex, rules = run(assessor, exchange(31, 35, volume=40000.0, method="flow-through"))
    assert ex[0]["verdict"] == "compliant_fallback"
    assert "1000 m3/h" in ex[0]["a_water_opportunity"]["assumption"]
    assert rules == []
    assert ex[0]["reason_codes"] == [{"code": "fallback", "needed_hours": 120.0}]


def test_exchange_on_the_shelf_raises_both_leads(assessor: BallastAssessor) -> None:
    """Within 50 nm over the shelf: breaks b); and a) had been available too."""
    ex, rules = run(assessor, exchange(42.5, 44.5))
    assert ex[0]["verdict"] == "noncompliant"
    assert ex[0]["worst"]["distance_to_land_nm"] < 50
    assert ex[0]["shallowest"]["depth_m"] < 200
    assert sorted(rules) == ["BW-EXCH-200", "BW-EXCH-50"]
    assert [c["code"] for c in ex[0]["reason_codes"]] == ["not_50", "a_water_available"]


def test_exchange_where_the_ship_never_was_is_unverified(assessor: BallastAssessor) -> None:
    """Declared 2 degrees east of where AIS had the ship: unverified, no lead."""
    good = exchange(31, 35)
    moved = DeclaredExchange(
        replace(good.start, lon=good.start.lon + 2), replace(good.end, lon=good.end.lon + 2)
    )
    ex, rules = run(assessor, moved)
    assert ex[0]["verdict"] == "unverified"
    assert ex[0]["track_match"]["start"]["offset_nm"] > 100
    assert rules == []


def test_exchange_with_no_track_at_that_time_is_unverified(assessor: BallastAssessor) -> None:
    """Declared a week after the track ends: no AIS to check against."""
    good = exchange(4, 10)
    later = DeclaredExchange(
        replace(good.start, t=good.start.t + 7 * 86400), replace(good.end, t=good.end.t + 7 * 86400)
    )
    ex, _ = run(assessor, later)
    assert ex[0]["verdict"] == "unverified"
    assert "no AIS fix" in ex[0]["reasons"][0]
    # the same reasons as codes (the dashboard words them in its language)
    assert ex[0]["reason_codes"] == [
        {"code": "no_fix", "point": "start"},
        {"code": "no_fix", "point": "end"},
    ]


def test_leads_have_the_contract_shape_and_stable_ids(assessor: BallastAssessor) -> None:
    """Same declaration, same lead ids; ballast leads have no zone and cite 2.3.1."""
    decl = Declaration(FOREIGN, (exchange(42.5, 44.5),))
    first = audit(decl, ARRIVAL, None, assessor, now=NOW).leads
    again = audit(decl, ARRIVAL, None, assessor, now=NOW).leads
    assert [ld.id for ld in first] == [ld.id for ld in again]
    for ld in first:
        j = ld.to_json()
        assert j["zone_id"] is None and j["zone_kind"] is None
        assert j["citation"].startswith("NORMAM-20/DPC 2.3.1")
        assert j["evidence"] and j["min_distance_m"] < 50 * 1852


def test_exempt_ships_are_assessed_but_raise_no_leads(assessor: BallastAssessor) -> None:
    """A military ship (AIS type 35) on the register of state vessels: exemption a); the
    shelf exchange, no lead. The same type 35 not on it is judged like any ship."""
    decl = Declaration(FOREIGN, (exchange(42.5, 44.5),))
    navy = VesselInfo(FOREIGN, name="NAVIO", ship_type=35, length_m=120.0)
    state = StateVessels([StateVessel(FOREIGN, "NAVIO", "navy", "ofício 1/2026")])
    res = audit(decl, ARRIVAL, navy, assessor, now=NOW, state=state)
    appl = res.document["applicability"]
    assert not appl["applies"]
    assert appl["exemptions"][0]["code"] == "a" and appl["exemptions"][0]["basis"] == "register"
    assert res.document["exchanges"][0]["verdict"] == "noncompliant"
    assert res.leads == []
    claimed = audit(decl, ARRIVAL, navy, assessor, now=NOW)
    appl = claimed.document["applicability"]
    assert appl["applies"] and appl["exemptions"] == []
    assert appl["exemptions_refused"] == [
        "2.1.1 a): AIS ship type 35 claimed, but not on the register of state vessels"
    ]
    # the noncompliant exchange is now a lead
    assert claimed.leads and {x.rule for x in claimed.leads} <= {"BW-EXCH-200", "BW-EXCH-50"}


def test_small_yacht_exemption_is_partly_on_trust(assessor: BallastAssessor) -> None:
    """A 30 m yacht: length from AIS, ballast of 8 m3 or less on trust; 12 m3 declared: no."""
    yacht = VesselInfo(FOREIGN, ship_type=37, length_m=30.0)
    decl = Declaration(FOREIGN, (exchange(4, 10),))
    appl = audit(decl, ARRIVAL, yacht, assessor, now=NOW).document["applicability"]
    assert appl["exemptions"][0]["basis"] == "ais_and_trust"
    big = replace(decl, ballast_capacity_m3=12.0)
    appl = audit(big, ARRIVAL, yacht, assessor, now=NOW).document["applicability"]
    assert appl["applies"] and "over 8" in appl["exemptions_refused"][0]


def _coastal_exchange(track: list[Position], i: int, j: int) -> DeclaredExchange:
    p0, p1 = track[i], track[j]
    return DeclaredExchange(
        DeclaredPoint(p0.t, p0.lat or 0, p0.lon or 0), DeclaredPoint(p1.t, p1.lat or 0, p1.lon or 0)
    )


def test_brazilian_flag_is_confirmed_only_by_a_track_that_covers_the_voyage(
    assessor: BallastAssessor,
) -> None:
    """MID 710 coasting within AJB for 30 h before its exchange: 2.1.1 d) confirmed, its
    shelf exchange raises no lead, and the verdict says why. Seen only for its last hour
    (coastal receivers): 2.1.1 d) is only claimed, and the leads are raised with it."""
    along = [(-38.3, -13.5), (-38.9, -18.0), (-41.0, -23.0), (-43.15, -23.15)]
    coastal = route(BRAZILIAN, along)
    k = 6 * 30
    decl = Declaration(BRAZILIAN, (_coastal_exchange(coastal, k, k + 5),))
    res = audit(decl, coastal, None, assessor, now=NOW)
    appl = res.document["applicability"]
    assert [(e["code"], e["basis"], e["status"]) for e in appl["exemptions"]] == [
        ("d", "track", "confirmed")
    ]
    assert res.leads == []
    verdict = res.document["exchanges"][0]
    assert verdict["leads_not_raised"]["because"] == ["NORMAM-20/DPC 2.1.1 d) (confirmed)"]
    seen = coastal[k - 1 :]
    decl = Declaration(BRAZILIAN, (_coastal_exchange(seen, 1, 6),))
    res = audit(decl, seen, None, assessor, now=NOW)
    appl = res.document["applicability"]
    assert appl["applies"]
    assert [(e["code"], e["status"]) for e in appl["exemptions"]] == [("d", "claimed")]
    assert res.leads and all(ld.details["claimed_exemptions"][0]["code"] == "d" for ld in res.leads)
    abroad = [replace(p, mmsi=BRAZILIAN) for p in ARRIVAL]
    res = audit(Declaration(BRAZILIAN, (exchange(42.5, 44.5),)), abroad, None, assessor, now=NOW)
    assert res.document["applicability"]["applies"]
    assert "outside AJB" in res.document["applicability"]["exemptions_refused"][0]
    assert res.leads


def test_a_certificate_is_valid_five_years_at_most(assessor: BallastAssessor) -> None:
    decl = Declaration(
        FOREIGN,
        (exchange(4, 10),),
        certificate_number="DPC-1/2018",
        certificate_issued_at=T0 - 6 * 365 * 86_400,
        certificate_valid_until=T0 + 365 * 86_400,
    )
    appl = audit(decl, ARRIVAL, None, assessor, now=NOW).document["applicability"]
    assert appl["applies"] and "five years" in appl["exemptions_refused"][0]


def test_an_installed_platform_that_moved_is_not_exempt(assessor: BallastAssessor) -> None:
    decl = Declaration(FOREIGN, (exchange(4, 10),), installed_platform=True)
    appl = audit(decl, ARRIVAL, None, assessor, now=NOW).document["applicability"]
    assert appl["applies"] and "2.1.3.2 b)" in appl["exemptions_refused"][0]


def test_a_drilling_rig_move_is_exempt_only_when_the_track_shows_it_in_ajb(
    assessor: BallastAssessor,
) -> None:
    decl = Declaration(FOREIGN, (exchange(42.5, 44.5),), drilling_rig=True)
    res = audit(decl, ARRIVAL, None, assessor, now=NOW)
    appl = res.document["applicability"]
    assert appl["applies"] and res.leads
    assert any("2.1.3.2 c)" in r for r in appl["exemptions_refused"])


def test_declared_exemptions_are_taken_on_trust(assessor: BallastAssessor) -> None:
    """Sealed tanks and an exemption certificate are recorded as taken on trust."""
    decl = Declaration(
        FOREIGN, (exchange(4, 10),), sealed_tanks=True, certificate_number="DPC-123/2023"
    )
    appl = audit(decl, ARRIVAL, None, assessor, now=NOW).document["applicability"]
    assert {e["code"]: e["basis"] for e in appl["exemptions"]} == {
        "c": "on_trust",
        "certificate": "on_trust",
    }


def test_audit_states_its_assumptions_and_retention(assessor: BallastAssessor) -> None:
    """Pump rate, tolerance, basemap and the five-year record are in the document."""
    cfg = AuditConfig(pump_rate_m3_h=500.0)
    doc = audit(
        Declaration(FOREIGN, (exchange(31, 35),)), ARRIVAL, None, assessor, cfg, now=NOW
    ).document
    assert doc["assumptions"]["pump_rate_m3_h"] == 500.0
    assert doc["exchanges"][0]["a_water_opportunity"]["needed_hours"] == pytest.approx(48.0)
    assert doc["exchanges"][0]["verdict"] == "compliant_fallback"
    assert doc["basemap"] == assessor.basemap.names
    assert doc["record"]["rule"] == "BW-RECORD"


def test_exchange_ending_before_it_starts_is_refused(assessor: BallastAssessor) -> None:
    """A declaration that cannot be audited is an error, not a verdict."""
    good = exchange(4, 10)
    with pytest.raises(AuditInputError):
        run(assessor, DeclaredExchange(good.end, good.start))


@pytest.mark.parametrize("volume", [0.0, -5.0, 2e6, 5.99e307, float("inf"), float("nan")])
def test_impossible_volume_is_refused(assessor: BallastAssessor, volume: float) -> None:
    """A volume no ship carries (found by schemathesis: 6e307 m3) is refused, not judged."""
    good = exchange(4, 10)
    with pytest.raises(AuditInputError, match="volume_m3"):
        run(assessor, DeclaredExchange(good.start, good.end, volume))


def test_screening_before_arrival(assessor: BallastAssessor) -> None:
    """From beyond 200 nm into Rio: about 29 h in a)-water, about 41 h in b)-water."""
    s = screen_voyage(FOREIGN, ARRIVAL, assessor)
    assert s["came_from_beyond_200nm"]
    assert 27 < s["a_water"]["total_hours"] < 31
    assert s["b_water"]["total_hours"] > s["a_water"]["total_hours"]
    assert s["arrival_position"]["zone"] == "within_50nm"
    gap = [p for p in ARRIVAL if not (T0 + 10 * 3600 < p.t < T0 + 16 * 3600)]
    split = screen_voyage(FOREIGN, gap, assessor)
    assert len(split["a_water"]["windows"]) == 2


def test_arrival_at_a_port_zone_from_beyond_200nm_is_screened(assessor: BallastAssessor) -> None:
    """Entering a port zone after the open ocean is an arrival; coasting in is not."""
    last = ARRIVAL[-1]
    assert last.lon is not None and last.lat is not None
    port = Zone(
        "port-rio",
        ZoneKind.PORT_FACILITY,
        shapely.box(last.lon - 0.05, last.lat - 0.05, last.lon + 0.05, last.lat + 0.05),
    )
    found = screen_arrivals(FOREIGN, ARRIVAL, [port], assessor)
    assert [a["port_zone_id"] for a in found] == ["port-rio"]
    assert 27 < found[0]["a_water"]["total_hours"] < 31
    coastal = route(FOREIGN, [(-41.0, -23.5), (last.lon, last.lat)])
    assert screen_arrivals(FOREIGN, coastal, [port], assessor) == []


def test_the_audit_is_dated_by_the_callers_clock(assessor: BallastAssessor) -> None:
    """The same declaration audited at two instants differs only in ``audited_at``: the
    audit reads no clock of its own, so a replayed audit is reproducible."""
    decl = Declaration(FOREIGN, (exchange(4, 10),))
    a = audit(decl, ARRIVAL, None, assessor, now=NOW).document
    b = audit(decl, ARRIVAL, None, assessor, now=NOW + 3600).document
    assert a["audited_at"] == "2024-05-31T00:00:00Z"
    assert b["audited_at"] == "2024-05-31T01:00:00Z"
    assert {**a, "audited_at": None} == {**b, "audited_at": None}


# a Brazilian cabotage ship from off Fortaleza, along the coast, into the Amazon and up to
# Manaus (03°08'S 60°01'W), 600 km west of the old AJB box's edge at 53.5°W
TO_MANAUS = [(-38.5, -3.4), (-47.5, 0.6), (-50.0, 0.3), (-52.0, -1.5), (-54.7, -2.4),
             (-58.0, -3.0), (-60.02, -3.13)]  # fmt: skip


def test_a_cabotage_ship_up_the_amazon_stays_in_ajb(assessor: BallastAssessor) -> None:
    """NORMAM-20 2.1.1 d): AJB include the inland waters, so a Brazilian ship exchanging
    on the Amazon near Manaus after a voyage wholly in Brazil is exempt by its track."""
    voyage = route(BRAZILIAN, TO_MANAUS)
    k = len(voyage) - 12  # two hours before Manaus, ~60 km below it on the river
    assert voyage[k].lon is not None and voyage[k].lon < -59.0
    decl = Declaration(BRAZILIAN, (_coastal_exchange(voyage, k, k + 5),))
    res = audit(decl, voyage, None, assessor, now=NOW)
    appl = res.document["applicability"]
    assert [(e["code"], e["status"]) for e in appl["exemptions"]] == [("d", "confirmed")]
    assert res.leads == []


def test_a_ship_that_went_on_into_peru_left_ajb(assessor: BallastAssessor) -> None:
    """The other side: the same river into Peru (Iquitos, 03°45'S 73°15'W) is not AJB."""
    voyage = route(BRAZILIAN, [*TO_MANAUS, (-69.9, -4.3), (-73.25, -3.75)])
    decl = Declaration(BRAZILIAN, (_coastal_exchange(voyage, len(voyage) - 8, len(voyage) - 3),))
    res = audit(decl, voyage, None, assessor, now=NOW)
    appl = res.document["applicability"]
    assert appl["applies"] and "outside AJB" in appl["exemptions_refused"][0]


def _silent(track: list[Position], h0: float, h1: float) -> list[Position]:
    """The track with its fixes strictly between hours ``h0`` and ``h1`` removed."""
    return [p for p in track if not T0 + h0 * 3600 < p.t < T0 + h1 * 3600]


def test_a_silence_the_ship_could_have_left_the_water_in_leaves_the_exchange_unverified(
    assessor: BallastAssessor,
) -> None:
    """Declared from hour 24 (267 nm out) to 28 (212 nm): in a)-water throughout. Silent
    from hour 25 to 28, a ship at 14 kn could go 14 x 3 / 2 = 21 nm out and back, and the
    nearer end is only about 12 nm beyond the 200 nm line: the exchange cannot be verified.
    Silent one hour only (25 to 26, 7 nm against 39 nm), it stays compliant, the silence
    listed."""
    decl = Declaration(FOREIGN, (exchange(24, 28),))
    (ex,) = audit(decl, _silent(ARRIVAL, 25, 28), None, assessor, now=NOW).document["exchanges"]
    assert ex["verdict"] == "unverified"
    (code,) = ex["reason_codes"]
    assert code["code"] == "ais_gap" and code["could_leave_the_water"]
    assert code["duration_s"] == 3 * 3600.0 and code["reach_nm"] == 21.0
    assert 11.0 < code["margin_nm"] < 13.0  # 211.8 nm at hour 28, less 200
    (ex,) = audit(decl, _silent(ARRIVAL, 25, 26), None, assessor, now=NOW).document["exchanges"]
    assert ex["verdict"] == "compliant"
    (quiet,) = ex["ais_silences"]
    assert quiet["reach_nm"] == 7.0 and not quiet["could_leave_the_water"]
    # a verdict against the ship stands: declared from 267 nm to 117 nm out (under b)
    # while a)-water was there), silent 11 h between (77 nm out and back against the
    # 50 nm line 67 nm away), it is still an exchange declared where the rule forbids it
    decl = Declaration(FOREIGN, (exchange(24, 35),))
    (ex,) = audit(decl, _silent(ARRIVAL, 24, 35), None, assessor, now=NOW).document["exchanges"]
    assert ex["verdict"] == "noncompliant"
    (quiet,) = ex["ais_silences"]
    assert quiet["reach_nm"] == 77.0 and quiet["could_leave_the_water"]


def test_silences_at_their_bounds() -> None:
    """15 min is a silence, a second less is not; a reach equal to the margin cannot
    leave the water, a hundredth of a mile less margin can (12 kn for 1 h: 6 nm)."""
    pos = [Position(FOREIGN, t, 1, -30.0, -30.0, 10.0, 0.0) for t in (0.0, 899.0, 1798.0)]
    track = AssessedTrack(
        pos, np.array([0.0, 899.0, 1798.0]), np.zeros(3), np.zeros(3),
        np.array([300.0, 300.0, 300.0]), np.full(3, 4000.0), np.zeros(3, dtype=np.int8),
        np.ones(3, dtype=bool), np.ones(3, dtype=bool),
    )  # fmt: skip
    assert silences_during(track, 0.0, 1798.0, 200.0) == []  # two of 899 s
    track.t[2] = 1799.0  # now 900 s after the second fix
    (s,) = silences_during(track, 0.0, 1799.0, 200.0)
    assert (s.start, s.end) == (899.0, 1799.0)
    pos = [Position(FOREIGN, t, 1, -30.0, -30.0, 10.0, 0.0) for t in (0.0, 3600.0)]
    for near, hides in ((206.0, False), (205.99, True)):
        track = AssessedTrack(
            pos, np.array([0.0, 3600.0]), np.zeros(2), np.zeros(2), np.array([near, 230.0]),
            np.full(2, 4000.0), np.zeros(2, dtype=np.int8), np.ones(2, dtype=bool),
            np.ones(2, dtype=bool),
        )  # fmt: skip
        (s,) = silences_during(track, 0.0, 3600.0, 200.0)
        assert s.reach_nm == 6.0 and s.could_hide is hides
    # a silence wholly before or after the exchange is not its silence
    assert silences_during(track, 3600.0, 7200.0, 200.0) == []
    assert silences_during(track, -7200.0, 0.0, 200.0) == []
