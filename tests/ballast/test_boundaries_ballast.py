"""Both sides of the NORMAM-20 2.3.1 lines (200 nm, 50 nm, 200 m deep), audits that must
look at the whole track, the track-match tolerances as shipped, and the 2.1 exemption
bounds. Expected values come from outside the assessor: distances from the geodesic
oracle in tests/support/geodesy.py, depths read straight from the bundled ETOPO1 grid
file (cells whose four corners all lie on one side of 200 m, so any interpolation gives
the same side), and the figures of the regulation written out.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from pyproj import Geod

from vigia.alerts.ballast.applicability import applicability, covers_voyage
from vigia.alerts.ballast.audit import audit
from vigia.alerts.ballast.declaration import Declaration, DeclaredExchange, DeclaredPoint
from vigia.alerts.ballast.screening import WaterWindow, assess_track, windows
from vigia.ingest.records import Position, VesselInfo, iso_utc
from vigia.service.runtime.audits import AuditRequest, audit_request
from vigia.service.settings import BallastSettings
from vigia.zones.ballast import BallastAssessor

ROOT = Path(__file__).resolve().parents[2]
GEOD = Geod(ellps="WGS84")
T0 = 1714521600.0  # 2024-05-01T00:00:00Z
NOW = T0 + 30 * 86400.0
FOREIGN = 636012345  # Liberia
BRAZILIAN = 710000123
NM = 1852.0

Ref = Callable[[float, float], float]


def _depth_corners(lon: float, lat: float) -> list[float]:
    """The four ETOPO1 depths (m, positive down) around a point, from the file itself."""
    with np.load(ROOT / "zones" / "basemaps" / "depth_etopo1.npz") as f:
        z = -f["elevation_m"].astype(float)
        lon0, lat0, step = float(f["lon0"]), float(f["lat0"]), float(f["step"])
    ix, iy = int((lon - lon0) // step), int((lat - lat0) // step)
    return [z[iy, ix], z[iy + 1, ix], z[iy, ix + 1], z[iy + 1, ix + 1]]


# points on a ray south-east of Rio, placed by bisection on the oracle's distance
LINE_POINTS = {
    199.5: (-40.04136, -25.82807),
    200.5: (-40.02763, -25.83994),
    49.5: (-42.35398, -23.77637),
    50.5: (-42.32078, -23.80656),
}


@pytest.mark.parametrize("nm", sorted(LINE_POINTS))
def test_both_sides_of_the_200_and_50_nm_lines(
    assessor: BallastAssessor, reference: Ref, nm: float
) -> None:
    lon, lat = LINE_POINTS[nm]
    assert reference(lon, lat) == pytest.approx(nm, abs=0.05)
    assert min(_depth_corners(lon, lat)) > 200  # deep water: only distance decides
    (item,) = assessor.assess(np.array([lon]), np.array([lat])).items()
    assert item["distance_to_land_nm"] == pytest.approx(nm, abs=0.05)
    expected = {
        49.5: ("within_50nm", False, False),
        50.5: ("between_50_200nm", False, True),
        199.5: ("between_50_200nm", False, True),
        200.5: ("beyond_200nm", True, True),
    }[nm]
    assert (item["zone"], item["meets_200"], item["meets_50"]) == expected
    zone, m200, m50 = assessor.classify(np.array([lon]), np.array([lat]))
    # the bulk path's class codes: 0 within 50 nm, 1 between, 2 beyond 200 nm
    classes = {"within_50nm": 0, "between_50_200nm": 1, "beyond_200nm": 2}
    assert int(zone[0]) == classes[expected[0]]
    assert (bool(m200[0]), bool(m50[0])) == expected[1:]


# 50-200 nm out, where the four grid corners are all 166-190 m deep (shelf edge off
# Patagonia), and 130 nm out on the shelf at 30-50 m
SHELF_EDGE = (-64.65, -52.55)
SHELF = (-58.55, -54.45)


@pytest.mark.parametrize(("point", "shallower_than"), [(SHELF_EDGE, 200.0), (SHELF, 60.0)])
def test_water_under_200_m_meets_neither_class(
    assessor: BallastAssessor, reference: Ref, point: tuple[float, float], shallower_than: float
) -> None:
    lon, lat = point
    assert 50.0 < reference(lon, lat) < 200.0
    corners = _depth_corners(lon, lat)
    assert max(corners) < shallower_than and min(corners) > 0
    (item,) = assessor.assess(np.array([lon]), np.array([lat])).items()
    assert item["zone"] == "between_50_200nm"
    assert item["meets_50"] is False and item["meets_200"] is False


# -- the audit judges the whole track, not the declared points ----------------------------


def _route(
    mmsi: int,
    waypoints: list[tuple[float, float]],
    kn: float = 14.0,
    step_s: float = 600.0,
    t0: float = T0,
) -> list[Position]:
    out: list[Position] = []
    t = t0
    for (x0, y0), (x1, y1) in itertools.pairwise(waypoints):
        _, _, metres = GEOD.inv(x0, y0, x1, y1)
        n = max(1, int(metres / (kn * NM / 3600) / step_s))
        for i in range(n):
            f = i / n
            out.append(Position(mmsi, t, 1, x0 + f * (x1 - x0), y0 + f * (y1 - y0), kn, 0.0))
            t += step_s
    out.append(Position(mmsi, t, 1, waypoints[-1][0], waypoints[-1][1], kn, 0.0))
    return out


def _point(p: Position, east_nm: float = 0.0) -> DeclaredPoint:
    assert p.lon is not None and p.lat is not None
    lon, lat = p.lon, p.lat
    if east_nm:
        lon, lat, _ = GEOD.fwd(lon, lat, 90.0, east_nm * NM)
    return DeclaredPoint(p.t, float(lat), float(lon))


S, C, E = (-36.0, -27.5), (-42.0, -23.5), (-36.5, -28.5)


def test_a_track_that_breaks_the_line_between_its_declared_points(
    assessor: BallastAssessor, reference: Ref
) -> None:
    """Declared from a start and to an end both over 300 nm out, where the ship truly
    was; between them it ran in to within 50 nm of Cabo Frio: not even 2.3.1 b)."""
    assert reference(*S) > 300 and reference(*E) > 300
    assert reference(*C) < 50
    track = _route(FOREIGN, [S, C, E])
    decl = Declaration(FOREIGN, (DeclaredExchange(_point(track[0]), _point(track[-1])),))
    res = audit(decl, track, None, assessor, now=NOW)
    (ex,) = res.document["exchanges"]
    assert ex["track_match"]["start"]["matched"] and ex["track_match"]["end"]["matched"]
    assert ex["verdict"] == "noncompliant"
    assert "BW-EXCH-50" in ex["leads"]
    assert ex["worst"]["distance_to_land_nm"] < 50
    assert ex["points_assessed"] == len(track)


FAR = _route(FOREIGN, [(-36.0, -28.0), (-36.0, -26.0)], kn=12.0)  # 400+ nm out, 10 h


def _far_request(east_nm: float, *, start: int = 6, end: int = 30) -> dict[str, object]:
    def point(i: int) -> dict[str, object]:
        dp = _point(FAR[i], east_nm)
        return {"time": iso_utc(dp.t), "lat": dp.lat, "lon": dp.lon}

    return {"mmsi": FOREIGN, "exchanges": [{"start": point(start), "end": point(end)}]}


@pytest.mark.parametrize(
    ("east_nm", "verdict"),
    [(0.0, "compliant"), (4.0, "compliant"), (10.0, "unverified"), (30.0, "unverified")],
)
def test_declared_points_10_to_50_nm_off_the_track_are_not_matched(
    assessor: BallastAssessor, east_nm: float, verdict: str
) -> None:
    """The shipped 5 nm position tolerance, through the service's own settings."""
    req = AuditRequest.model_validate(_far_request(east_nm))
    res = audit_request(req, FAR, None, assessor, BallastSettings(), NOW)
    (ex,) = res.document["exchanges"]
    assert ex["verdict"] == verdict
    assert ex["track_match"]["start"]["offset_nm"] == pytest.approx(east_nm, abs=0.1)


def test_a_declared_time_40_min_from_any_fix_is_not_matched(assessor: BallastAssessor) -> None:
    """The shipped 30 min time tolerance: a gap of 80 min around the declared start."""
    drift = _route(FOREIGN, [(-36.0, -28.0), (-36.0, -27.9)], kn=1.0)
    t_decl = drift[30].t
    gappy = [p for p in drift if abs(p.t - t_decl) >= 2400]
    near = [p for p in drift if abs(p.t - t_decl) >= 1200]
    decl = Declaration(FOREIGN, (DeclaredExchange(_point(drift[30]), _point(drift[-1])),))
    settings = BallastSettings()
    req = AuditRequest.model_validate(
        {
            "mmsi": FOREIGN,
            "exchanges": [
                {
                    "start": {
                        "time": iso_utc(t_decl),
                        "lat": decl.exchanges[0].start.lat,
                        "lon": decl.exchanges[0].start.lon,
                    },
                    "end": {
                        "time": iso_utc(drift[-1].t),
                        "lat": decl.exchanges[0].end.lat,
                        "lon": decl.exchanges[0].end.lon,
                    },
                }
            ],
        }
    )
    (ex,) = audit_request(req, gappy, None, assessor, settings, NOW).document["exchanges"]
    assert ex["verdict"] == "unverified"
    assert "time tolerance" in ex["track_match"]["start"]["reason"]
    (ok,) = audit_request(req, near, None, assessor, settings, NOW).document["exchanges"]
    assert ok["track_match"]["start"]["matched"]


# -- 2.1 exemptions ------------------------------------------------------------------------

YEAR = 365.25 * 86400


def _appl(
    assessor: BallastAssessor,
    decl: Declaration,
    track: list[Position],
    vessel: VesselInfo | None = None,
) -> dict[str, object]:
    return applicability(decl, vessel, assess_track(track, assessor), NOW)


def _ex(track: list[Position]) -> tuple[DeclaredExchange, ...]:
    return (DeclaredExchange(_point(track[6]), _point(track[30])),)


def test_certificate_is_valid_five_years_at_most(assessor: BallastAssessor) -> None:
    ex = _ex(FAR)
    end = ex[0].end.t
    old = _appl(
        assessor,
        Declaration(FOREIGN, ex, certificate_number="C-1", certificate_issued_at=end - 6 * YEAR),
        FAR,
    )
    assert any("expired" in r for r in old["exemptions_refused"])  # type: ignore[attr-defined]
    assert old["applies"] is True
    fresh = _appl(
        assessor,
        Declaration(FOREIGN, ex, certificate_number="C-1", certificate_issued_at=end - 4 * YEAR),
        FAR,
    )
    assert fresh["exemptions_refused"] == [] and fresh["applies"] is False


def test_installed_platform_may_not_move_more_than_5_nm(assessor: BallastAssessor) -> None:
    moved = _route(FOREIGN, [(-36.0, -28.0), (-36.0, -27.8)], kn=2.0)  # 12 nm north
    still = _route(FOREIGN, [(-36.0, -28.0), (-36.0, -27.95)], kn=0.5)  # 3 nm
    a = _appl(assessor, Declaration(FOREIGN, _ex(moved), installed_platform=True), moved)
    assert any("moved" in r for r in a["exemptions_refused"])  # type: ignore[attr-defined]
    b = _appl(assessor, Declaration(FOREIGN, _ex(still), installed_platform=True), still)
    assert b["applies"] is False


def test_brazilian_flag_beyond_200_nm_is_outside_ajb(
    assessor: BallastAssessor, reference: Ref
) -> None:
    """2.1.1 d): fixes 400+ nm out lie outside Brazilian jurisdictional waters (200 nm)."""
    assert reference(-36.0, -28.0) > 300
    track = _route(BRAZILIAN, [(-36.0, -28.0), (-36.0, -26.0)], kn=12.0)
    a = _appl(assessor, Declaration(BRAZILIAN, _ex(track)), track)
    assert any("outside AJB" in r for r in a["exemptions_refused"])  # type: ignore[attr-defined]
    assert a["applies"] is True


@pytest.mark.parametrize(
    ("length", "capacity", "exempt"), [(40.0, 8.0, True), (60.0, 8.0, False), (40.0, 10.0, False)]
)
def test_small_craft_exemption_is_50_m_and_8_m3(
    assessor: BallastAssessor, length: float, capacity: float, exempt: bool
) -> None:
    vessel = VesselInfo(FOREIGN, ship_type=37, length_m=length)
    a = _appl(assessor, Declaration(FOREIGN, _ex(FAR), ballast_capacity_m3=capacity), FAR, vessel)
    assert a["applies"] is (not exempt)


def test_a_track_covers_the_voyage_only_from_24_h_before(assessor: BallastAssessor) -> None:
    long = _route(FOREIGN, [(-30.0, -32.0), (-36.0, -26.0)], kn=12.0)  # 40 h
    k = 26 * 6  # the exchange starts 26 h into the track
    decl = Declaration(FOREIGN, (DeclaredExchange(_point(long[k]), _point(long[k + 12])),))
    assert covers_voyage(decl, assess_track(long, assessor), 3 * 3600.0) is None
    late = assess_track(long[k - 3 * 6 :], assessor)  # the track starts 3 h before
    assert covers_voyage(decl, late, 3 * 3600.0) is not None


def test_an_ais_gap_over_max_gap_splits_a_window() -> None:
    ts = np.array([0.0, 3600.0, 3600.0 + 3 * 3600.0, 3600.0 + 3 * 3600.0 + 3 * 3600.0 + 1.0])
    ok = np.ones(4, dtype=bool)
    assert windows(ts, ok, 3 * 3600.0) == [
        WaterWindow(0.0, 10800.0 + 3600.0, 3),
        WaterWindow(ts[3], ts[3], 1),
    ]


@pytest.mark.parametrize(
    ("east_nm", "verdict"), [(4.0, "compliant"), (10.0, "unverified"), (30.0, "unverified")]
)
def test_default_audit_config_matches_within_5_nm(
    assessor: BallastAssessor, east_nm: float, verdict: str
) -> None:
    """The library's own default tolerance (``audit`` without a config)."""
    decl = Declaration(
        FOREIGN, (DeclaredExchange(_point(FAR[6], east_nm), _point(FAR[30], east_nm)),)
    )
    (ex,) = audit(decl, FAR, None, assessor, now=NOW).document["exchanges"]
    assert ex["verdict"] == verdict


def test_default_audit_config_matches_within_30_min(assessor: BallastAssessor) -> None:
    drift = _route(FOREIGN, [(-36.0, -28.0), (-36.0, -27.9)], kn=1.0)
    decl = Declaration(FOREIGN, (DeclaredExchange(_point(drift[30]), _point(drift[-1])),))
    gappy = [p for p in drift if abs(p.t - drift[30].t) >= 2400]  # 40 min either side
    (ex,) = audit(decl, gappy, None, assessor, now=NOW).document["exchanges"]
    assert ex["verdict"] == "unverified"
    near = [p for p in drift if abs(p.t - drift[30].t) >= 1200]  # 20 min either side
    (ok,) = audit(decl, near, None, assessor, now=NOW).document["exchanges"]
    assert ok["track_match"]["start"]["matched"]
