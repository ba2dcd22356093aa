"""Both sides of the rule distances of the shipped zone kinds (NORMAM-07 0211 b) 2):
200 m off a bathing beach; 0212 a): 200 m from a military area; 0212 f): 500 m from a
platform, measured from its footprint) and of a zone's validity in time.

Test points are placed by geodesic forward computation (pyproj.Geod, independent of the
transverse Mercator frames the index measures in) at a distance written in the test,
and the geodesic oracle of tests/alerts/scenario_kit confirms it to a decimetre.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest
from shapely.geometry import LineString, Point

from tests.alerts.scenario_kit import aisgen, feature, geodesic_truth, index_from, square
from vigia.zones.catalogue import load_zones, parse_feature_collection
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import ZoneError
from vigia.zones.recurrence import matches

LON, LAT = -43.1438064, -23.0372121
P52 = (-39.735712, -21.906566)


def _hit(index: ZoneIndex, lon: float, lat: float) -> float | None:
    """The distance the index reports for zone 0 (no margin), None when not in reach."""
    hits = index.evaluate(np.array([lon]), np.array([lat]))
    return float(hits.distance_m[0]) if len(hits) else None


def _both_sides(
    index: ZoneIndex, geom: object, origin: tuple[float, float], d_in: float, d_out: float
) -> None:
    inside = aisgen.fwd(*origin, 0.0, d_in)
    outside = aisgen.fwd(*origin, 0.0, d_out)
    assert geodesic_truth(geom, *inside) == pytest.approx(d_in, abs=0.1)  # type: ignore[arg-type]
    assert geodesic_truth(geom, *outside) == pytest.approx(d_out, abs=0.1)  # type: ignore[arg-type]
    got = _hit(index, *inside)
    assert got is not None and got == pytest.approx(d_in, abs=0.1)
    assert _hit(index, *outside) is None


def test_military_area_reaches_200_m(tmp_path: Path) -> None:
    poly = square(LON, LAT, 100.0)
    index = index_from([feature(poly, id="b-mil", kind="military")], tmp_path)
    north_edge = (LON, poly.bounds[3])  # the edge runs along a parallel: due north is nearest
    _both_sides(index, poly, north_edge, 190.0, 210.0)


def test_platform_reaches_500_m(tmp_path: Path) -> None:
    index = index_from([feature(Point(P52), id="b-plat", kind="platform")], tmp_path)
    _both_sides(index, Point(P52), P52, 490.0, 510.0)


def test_platform_500_m_counts_from_its_footprint(tmp_path: Path) -> None:
    index = index_from(
        [feature(Point(P52), id="b-fpso", kind="platform", footprint_m=60)], tmp_path
    )
    # 555 m from the charted point is 495 m from a 60 m footprint; 565 m is 505 m
    d = _hit(index, *aisgen.fwd(*P52, 0.0, 555.0))
    assert d is not None and d == pytest.approx(495.0, abs=0.1)
    assert _hit(index, *aisgen.fwd(*P52, 0.0, 565.0)) is None


def test_bathing_beach_reaches_200_m(tmp_path: Path) -> None:
    west, east = aisgen.fwd(LON, LAT, 270.0, 1000.0), aisgen.fwd(LON, LAT, 90.0, 1000.0)
    line = LineString([west, (east[0], west[1])])
    index = index_from([feature(line, id="b-beach", kind="bather_beach")], tmp_path)
    foot = (LON, west[1])
    inside, outside = aisgen.fwd(*foot, 180.0, 190.0), aisgen.fwd(*foot, 180.0, 210.0)
    assert geodesic_truth(line, *inside) == pytest.approx(190.0, abs=0.1)
    d = _hit(index, *inside)
    assert d is not None and d == pytest.approx(190.0, abs=0.1)
    assert _hit(index, *outside) is None


@pytest.mark.parametrize(("distance_m", "ok"), [(99.0, False), (100.0, True)])
def test_a_beach_distance_may_not_cut_into_the_100_m_sail_band(
    tmp_path: Path, distance_m: float, ok: bool
) -> None:
    line = LineString([(LON, LAT), (LON + 0.01, LAT)])
    path = tmp_path / "beach.geojson"
    path.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "features": [feature(line, id="b-b", kind="bather_beach", distance_m=distance_m)],
            }
        )
    )
    if ok:
        (zone,) = load_zones([path])
        assert zone.distance_m == distance_m
    else:
        with pytest.raises(ZoneError):
            load_zones([path])


def test_valid_to_ends_the_zone(tmp_path: Path) -> None:
    index = index_from(
        [
            feature(
                square(LON, LAT, 100.0),
                id="b-notice",
                kind="special_area",
                valid_from="2026-01-01T00:00:00Z",
                valid_to="2026-01-31T00:00:00Z",
            )
        ],
        tmp_path,
    )
    (zone,) = index.zones
    end = dt.datetime(2026, 1, 31, tzinfo=dt.UTC).timestamp()
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC).timestamp()
    assert zone.in_force(end - 1) and zone.in_force(start)
    assert not zone.in_force(end + 3600)
    assert not zone.in_force(start - 1)


def test_recurring_hours_end_at_their_end_minute() -> None:
    rec = {"tz": "America/Sao_Paulo", "hours": ["08:00", "18:00"]}
    # Sao Paulo is UTC-3 all year since 2019: 18:00:30 local is 21:00:30 UTC
    day = dt.datetime(2026, 1, 15, tzinfo=dt.UTC)
    assert matches(rec, (day + dt.timedelta(hours=20, minutes=59, seconds=30)).timestamp())
    assert not matches(rec, (day + dt.timedelta(hours=21, seconds=30)).timestamp())
    assert matches(rec, (day + dt.timedelta(hours=11)).timestamp())
    assert not matches(rec, (day + dt.timedelta(hours=10, minutes=59)).timestamp())


def test_jurisdiction_routes_only_positions_inside_it(tmp_path: Path) -> None:
    index = index_from(
        [feature(square(LON, LAT, 1000.0), id="b-cp", kind="jurisdiction", authority="CPRJ")],
        tmp_path,
    )
    (zone,) = index.zones
    assert zone.authority_at(0.0) == "CPRJ"
    assert zone.authority_at(1.0) is None
    assert zone.authority_at(100.0) is None


def test_recurring_months_and_weekdays() -> None:
    summer_weekends = {"months": [12, 1, 2, 3], "weekdays": [6, 7]}
    # Sat 17 Jan 2026, noon local (15:00 UTC): in force; Fri 16 Jan: not (a weekday)
    assert matches(summer_weekends, dt.datetime(2026, 1, 17, 15, tzinfo=dt.UTC).timestamp())
    assert not matches(summer_weekends, dt.datetime(2026, 1, 16, 15, tzinfo=dt.UTC).timestamp())
    # Sat 18 Jul 2026: a weekend, but winter
    assert not matches(summer_weekends, dt.datetime(2026, 7, 18, 15, tzinfo=dt.UTC).timestamp())
    # Sun 1 Mar 2026, 01:00 local is 04:00 UTC; 23:30 local on Tue 31 Mar is Wed 1 Apr UTC
    assert matches(summer_weekends, dt.datetime(2026, 3, 1, 4, tzinfo=dt.UTC).timestamp())
    assert matches({"months": [3]}, dt.datetime(2026, 4, 1, 2, 30, tzinfo=dt.UTC).timestamp())


def _notice(valid_from: str, valid_to: str) -> dict[str, object]:
    return {
        "type": "Feature",
        "properties": {
            "id": "notice-dates",
            "kind": "special_area",
            "valid_from": valid_from,
            "valid_to": valid_to,
        },
        "geometry": {
            "type": "Polygon",
            "coordinates": [[[-43.0, -23.0], [-42.9, -23.0], [-42.9, -22.9], [-43.0, -23.0]]],
        },
    }


@pytest.mark.parametrize(
    ("valid_from", "valid_to", "accepted"),
    [
        # docs/operations.md: times outside 1970-2100 are refused (UTC)
        ("1970-01-01T00:00:00Z", "1970-01-02T00:00:00Z", True),
        ("1969-12-31T23:59:59Z", "1970-01-02T00:00:00Z", False),
        ("1970-01-01T00:30:00+01:00", "1970-01-02T00:00:00Z", False),  # 1969-12-31T23:30Z
        ("2100-12-30T00:00:00Z", "2100-12-31T23:59:59Z", True),
        ("2100-12-30T00:00:00Z", "2101-01-01T00:00:00Z", False),
        ("2100-12-30T00:00:00Z", "2100-12-31T22:30:00-03:00", False),  # 2101-01-01T01:30Z
        ("0001-01-01T00:00:00Z", "2025-01-01T00:00:00Z", False),
        ("2025-01-01T00:00:00Z", "9999-12-31T23:59:59Z", False),
    ],
)
def test_zone_times_outside_1970_to_2100_are_refused(
    valid_from: str, valid_to: str, accepted: bool
) -> None:
    feat = _notice(valid_from, valid_to)
    if accepted:
        (zone,) = parse_feature_collection(feat)
        assert zone.valid_from == dt.datetime.fromisoformat(valid_from)
        return
    with pytest.raises(ZoneError, match="outside 1970-2100") as err:
        parse_feature_collection(feat)
    assert err.value.feature == "notice-dates"


@pytest.mark.parametrize("hours", [["08:00", "18:00"], ["08:00", "1\u00b2:00"]])
def test_recurrence_hours_in_other_digits_are_refused(hours: list[str]) -> None:
    """A superscript passes str.isdigit but not int(): a ZoneError, not a crash."""
    feat = _notice("2025-01-01T00:00:00Z", "2025-12-31T00:00:00Z")
    feat["properties"]["recurrence"] = {"hours": hours}  # type: ignore[index]
    if hours[1] == "18:00":
        assert parse_feature_collection(feat)[0].id == "notice-dates"
        return
    with pytest.raises(ZoneError, match="expected HH:MM"):
        parse_feature_collection(feat)
