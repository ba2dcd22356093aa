"""Issue 10: platforms (the installation itself, the authorised-vessel register, the
footprint), military zones (state craft allowed by default), the beach baseline offset.
Zones are the bundled ones or made for the test; tracks are placed geodesically."""

from __future__ import annotations

from pathlib import Path

from shapely.geometry import LineString, Point

from scripts import aisgen
from tests.alerts.scenario_kit import (
    GEOD,
    T0,
    beach_frame,
    feature,
    find_zone,
    index_from,
    run_pipeline,
    to_positions,
)
from vigia.alerts.authorised import Authorisation, AuthorisedRegister, parse_csv
from vigia.alerts.identity.state_register import StateVessel, StateVessels
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Record, StaticData
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex


def _static(mmsi: int, ship_type: int, length_m: float) -> StaticData:
    return StaticData(mmsi, T0 - 60, 5, name="SYNTH", ship_type=ship_type, length_m=length_m)


def _still(lon: float, lat: float, n: int = 30, nav: int = 5, sog: float = 0.1) -> list[aisgen.Fix]:
    """A vessel holding its position, a fix every 60 s."""
    return [aisgen.Fix(T0 + 60 * k, lon, lat, sog, 0.0, nav) for k in range(n)]


def _crossing(lon: float, lat: float, off_m: float, sog: float = 8.0) -> list[aisgen.Fix]:
    """Northwards past a point, ``off_m`` east of it at the middle fix, a fix every 10 s."""
    cpa = aisgen.fwd(lon, lat, 90, off_m)
    start = aisgen.fwd(*cpa, 180, sog * aisgen.KN * 10 * 40)
    return aisgen.run(*start, course=0, sog_kn=sog, t0=T0, dt_s=10, n=81)


def _run(
    index: ZoneIndex,
    records: list[Record],
    register: AuthorisedRegister | None = None,
    state: StateVessels | None = None,
) -> list[Lead]:
    pipe = LeadPipeline(index, VesselRegistry(), register=register)
    if state is not None:
        pipe.state_vessels = state
    leads = pipe.process(sorted(records, key=lambda r: r.t))
    return leads + pipe.finish()


def test_an_fpso_at_its_charted_point_is_the_installation_not_a_lead(
    bundled: ZoneIndex,
) -> None:
    _, fpso = find_zone(bundled, "platform", "FPSO CIDADE DE ANCHIETA")
    x, y = fpso.geometry.x, fpso.geometry.y  # type: ignore[attr-defined]
    mmsi = 710_200_001
    ship = _static(mmsi, 80, 330.0)
    # its antenna 60 m from the charted point, moored (status 5), weathervaning slowly
    pos = to_positions(mmsi, _still(*aisgen.fwd(x, y, 200, 60.0)))
    assert _run(bundled, [ship, *pos]) == []


def test_a_fishing_boat_tied_up_to_the_platform_is_a_lead(bundled: ZoneIndex) -> None:
    _, fpso = find_zone(bundled, "platform", "FPSO CIDADE DE ANCHIETA")
    x, y = fpso.geometry.x, fpso.geometry.y  # type: ignore[attr-defined]
    mmsi = 710_200_002
    leads = _run(
        bundled,
        [_static(mmsi, 30, 18.0), *to_positions(mmsi, _still(*aisgen.fwd(x, y, 90, 40.0)))],
    )
    assert [x.rule for x in leads] == ["SEC-PLATFORM"]
    # and with no static data at all there is no evidence it is the installation
    other = 710_200_003
    leads = _run(bundled, to_positions(other, _still(*aisgen.fwd(x, y, 90, 40.0))))
    assert [x.rule for x in leads] == ["SEC-PLATFORM"]


def test_the_register_authorises_a_supply_vessel_by_zone_or_operator_while_valid(
    tmp_path: Path,
) -> None:
    plat = (-40.05, -22.37)
    index = index_from(
        [feature(Point(*plat), id="plat-p66", kind="platform", operator="Petrobras")], tmp_path
    )
    mmsi = 710_200_004
    recs: list[Record] = [_static(mmsi, 90, 75.0), *to_positions(mmsi, _crossing(*plat, 150.0))]
    assert [x.rule for x in _run(index, recs)] == ["SEC-PLATFORM"]
    by_zone = parse_csv(f"mmsi,zone_id,valid_to\n{mmsi},plat-p66,2030-01-01T00:00:00Z\n")
    assert _run(index, recs, AuthorisedRegister(by_zone)) == []
    by_operator = [Authorisation(mmsi, operator="Petrobras")]
    assert _run(index, recs, AuthorisedRegister(by_operator)) == []
    # expired before the crossing, another platform, another operator: still a lead
    for entry in (
        Authorisation(mmsi, zone_id="plat-p66", valid_to=T0 - 1),
        Authorisation(mmsi, zone_id="plat-other"),
        Authorisation(mmsi, operator="Shell"),
    ):
        assert [x.rule for x in _run(index, recs, AuthorisedRegister([entry]))] == [
            "SEC-PLATFORM"
        ], entry


def test_a_footprint_radius_measures_the_500_m_from_the_hull(tmp_path: Path) -> None:
    plat = (-40.05, -22.37)
    point = index_from([feature(Point(*plat), id="p", kind="platform")], tmp_path)
    hull = index_from([feature(Point(*plat), id="p", kind="platform", footprint_m=300)], tmp_path)
    mmsi = 710_200_005
    recs = to_positions(mmsi, _crossing(*plat, 700.0))
    assert _run(point, recs) == []  # 700 m from the charted point
    (lead,) = _run(hull, recs)  # but 400 m from a 300 m hull
    truth = min(GEOD.inv(p.lon, p.lat, *plat)[2] for p in recs) - 300.0
    assert abs(lead.min_distance_m - truth) < 0.5


def test_state_craft_are_allowed_at_a_military_base_when_registered_and_per_zone(
    bundled: ZoneIndex, tmp_path: Path
) -> None:
    # issue 34: the type earns the exemption only for a vessel on the register of state
    # vessels; a claim without it is judged like any vessel and is a lead of its own
    _, fiscal = find_zone(bundled, "military", "fiscal")
    x, y = fiscal.geometry.x, fiscal.geometry.y  # type: ignore[attr-defined]
    spot = aisgen.fwd(x, y, 45, 60.0)
    registered = StateVessels(
        [StateVessel(710_200_100 + t, "NAPA", "navy", "test") for t in (35, 55)]
    )
    for ship_type, state, expected in (
        (35, registered, []),
        (55, registered, []),
        (35, StateVessels(), ["ID-TYPE-CLAIM", "SEC-MILITARY"]),
        (37, registered, ["SEC-MILITARY"]),
    ):
        mmsi = 710_200_100 + ship_type
        recs = [_static(mmsi, ship_type, 40.0), *to_positions(mmsi, _still(*spot))]
        got = sorted(x.rule for x in _run(bundled, recs, state=state))
        assert got == expected, ship_type
    strict = index_from(
        [feature(Point(x, y), id="m", kind="military", allowed={"ship_types": []})], tmp_path
    )
    recs = [_static(710_200_135, 35, 40.0), *to_positions(710_200_135, _still(*spot))]
    assert [x.rule for x in _run(strict, recs, state=registered)] == ["SEC-MILITARY"]


def test_a_beach_baseline_offset_moves_the_bands_seaward(
    bundled: ZoneIndex, tmp_path: Path
) -> None:
    _, copa = find_zone(bundled, "bather_beach", "copacabana")
    lon, lat, along, sea = beach_frame(copa)
    a = aisgen.fwd(lon, lat, along + 180, 500)
    b = aisgen.fwd(lon, lat, along, 500)
    line = LineString([a, b])
    plain = index_from([feature(line, id="b", kind="bather_beach")], tmp_path)
    shifted = index_from(
        [feature(line, id="b", kind="bather_beach", baseline_offset_m=50)], tmp_path
    )
    mmsi = 710_200_200
    start = aisgen.fwd(*aisgen.fwd(lon, lat, sea, 230.0), along + 180, 300)
    fixes = aisgen.run(*start, course=along, sog_kn=10.0, t0=T0, dt_s=10, n=12)
    recs = to_positions(mmsi, fixes)
    assert run_pipeline(plain, recs) == []  # 230 m off the chart coastline
    (lead,) = run_pipeline(shifted, recs)  # 180 m off the surf line
    assert lead.rule == "BATH-MOTOR" and abs(lead.min_distance_m - 180.0) < 1.0
