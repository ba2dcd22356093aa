"""Distance to land, depth and classes against an independent geodesic reference."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import shapely

from vigia.zones.ballast import BallastAssessor, CoordinateError, zone_of
from vigia.zones.ballast_grid import lines_for
from vigia.zones.basemap import BasemapError, LandBasemap, land_from_geometry, load_basemap

# (name, lon, lat, zone, meets_200, meets_50)
REFERENCE_POINTS = [
    ("Rio shelf", -43.0, -23.3, "within_50nm", False, False),
    ("Santos shelf, 60 nm out", -45.5, -25.0, "between_50_200nm", False, False),
    ("slope off Cabo Frio", -40.5, -24.5, "between_50_200nm", False, True),
    ("abyss off Santa Catarina", -38.0, -27.0, "beyond_200nm", True, True),
    ("Amazon shelf, 139 nm out but shallow", -47.75, 2.5, "between_50_200nm", False, False),
    ("east of Fernando de Noronha", -29.8, -3.9, "between_50_200nm", False, True),
    ("NE of Sao Pedro e Sao Paulo", -27.5, 1.5, "between_50_200nm", False, True),
    ("east of Trindade", -27.0, -20.5, "between_50_200nm", False, True),
    ("Brasilia (on land)", -47.9, -15.8, "within_50nm", False, False),
]


@pytest.mark.parametrize(("name", "lon", "lat", "zone", "m200", "m50"), REFERENCE_POINTS)
def test_reference_points(
    assessor: BallastAssessor,
    reference: Callable[[float, float], float],
    name: str,
    lon: float,
    lat: float,
    zone: str,
    m200: bool,
    m50: bool,
) -> None:
    """Each point's distance is within 0.1 nm of the AEQD reference; class and meets hold."""
    item = assessor.assess(np.array([lon]), np.array([lat])).item(0)
    assert abs(item["distance_to_land_nm"] - reference(lon, lat)) < 0.1, name
    assert (item["zone"], item["meets_200"], item["meets_50"]) == (zone, m200, m50), name
    assert item["basemap"]["land"].startswith("Natural Earth 10m")
    assert item["basemap"]["depth"].startswith("ETOPO1")


def test_amazon_shelf_is_far_but_shallow(assessor: BallastAssessor) -> None:
    """Far out on the Amazon shelf the water is under 200 m: neither a) nor b) is met."""
    item = assessor.assess(np.array([-47.75]), np.array([2.5])).item(0)
    assert item["distance_to_land_nm"] > 100
    assert 0 < item["depth_m"] < 200


@pytest.mark.parametrize(
    ("island", "box", "lon", "lat"),
    [
        ("Fernando de Noronha", (-32.6, -4.0, -32.3, -3.7), -29.8, -3.9),
        ("Sao Pedro e Sao Paulo", (-29.5, 0.7, -29.2, 1.0), -27.5, 1.5),
        ("Trindade e Martim Vaz", (-29.5, -20.7, -28.7, -20.3), -27.0, -20.5),
    ],
)
def test_within_200nm_only_because_of_the_island(
    assessor: BallastAssessor,
    reference_on: Callable[[LandBasemap, float, float], float],
    island: str,
    box: tuple[float, float, float, float],
    lon: float,
    lat: float,
) -> None:
    """Without the island the same point would be beyond 200 nm."""
    land = assessor.basemap.land
    cut = shapely.box(*box)
    islets = [shapely.Point(r[0]) for r in land.rings if len(r) == 1]
    rest = [land.polygons.difference(cut), *[p for p in islets if not cut.contains(p)]]
    without = land_from_geometry("without " + island, shapely.GeometryCollection(rest))
    d = float(assessor.distance_nm(np.array([lon]), np.array([lat]))[0])
    assert d < 200
    assert reference_on(without, lon, lat) > 200


def test_random_points_match_the_reference(
    assessor: BallastAssessor, reference: Callable[[float, float], float]
) -> None:
    """A sample over the Brazilian margin: max error under 0.1 nm."""
    rng = np.random.default_rng(7)
    lons = np.r_[rng.uniform(-50, -26, 25), rng.uniform(-44.5, -41, 10)]
    lats = np.r_[rng.uniform(-33, 4, 25), rng.uniform(-23.5, -22.5, 10)]
    got = assessor.distance_nm(lons, lats)
    ref = np.array([reference(x, y) for x, y in zip(lons, lats, strict=True)])
    assert np.max(np.abs(got - ref)) < 0.1


def test_fast_path_agrees_with_the_exact_method(assessor: BallastAssessor) -> None:
    """The grid class equals the exact class everywhere, including right by the lines."""
    rng = np.random.default_rng(11)
    lons = rng.uniform(-58, -22, 40_000)
    lats = rng.uniform(-36, 8, 40_000)
    zone, m200, m50 = assessor.classify(lons, lats)
    exact = assessor.assess(lons, lats)
    assert np.array_equal(zone, exact.zone)
    assert np.array_equal(m200, exact.meets_200)
    assert np.array_equal(m50, exact.meets_50)
    assert assessor.grid.decided_fraction > 0.95


def test_points_near_the_lines_classify_like_the_exact_method(assessor: BallastAssessor) -> None:
    """Points jittered around the published 200 nm line: the class flips exactly at 200."""
    line = next(f for f in lines_for(assessor)["features"] if f["id"] == "200nm")
    coords = np.vstack([np.asarray(c) for c in line["geometry"]["coordinates"]])
    rng = np.random.default_rng(3)
    pick = coords[rng.integers(0, len(coords), 3000)]
    pts = pick + rng.normal(0, 0.05, pick.shape)
    zone, _, _ = assessor.classify(pts[:, 0], pts[:, 1])
    exact = zone_of(assessor.distance_nm(pts[:, 0], pts[:, 1]))
    assert np.array_equal(zone, exact)
    assert set(np.unique(zone)) == {1, 2}


def test_lines_lie_at_their_distance(assessor: BallastAssessor) -> None:
    """Vertices of the 50 and 200 nm lines are within a grid cell of those distances."""
    fc = lines_for(assessor)
    assert {f["id"] for f in fc["features"]} == {"200nm", "50nm", "isobath_200m"}
    for f in fc["features"]:
        assert f["properties"]["basemap"] == assessor.basemap.names
        if f["id"] == "isobath_200m":
            continue
        level = float(f["id"].removesuffix("nm"))
        coords = np.vstack([np.asarray(c) for c in f["geometry"]["coordinates"]])
        d = assessor.distance_nm(coords[:, 0], coords[:, 1])
        assert np.all(np.abs(d - level) < 3.0)
    assert len(json.dumps(fc)) < 500_000


def test_depth_is_positive_down_and_interpolated(assessor: BallastAssessor) -> None:
    """At a grid node depth is the node's value; between nodes it lies between them."""
    g = assessor.basemap.depth
    lon, lat = g.lon0 + 300 * g.step_lon, g.lat0 + 200 * g.step_lat
    node = float(g.depth[200, 300])
    assert g.depth_at(np.array([lon]), np.array([lat]))[0] == pytest.approx(node, abs=0.01)
    mid = g.depth_at(np.array([lon + g.step_lon / 2]), np.array([lat]))[0]
    lo, hi = sorted([node, float(g.depth[200, 301])])
    assert lo <= mid <= hi
    assert np.isnan(g.depth_at(np.array([100.0]), np.array([0.0]))[0])


def test_bad_coordinates_are_refused(assessor: BallastAssessor) -> None:
    """A latitude out of range is an error naming the point."""
    with pytest.raises(CoordinateError, match="point 1"):
        assessor.assess(np.array([-40.0, -40.0]), np.array([-20.0, 95.0]))


def test_alternative_land_and_depth_files(
    tmp_path: Path, reference_on: Callable[[LandBasemap, float, float], float]
) -> None:
    """A baseline file and a NetCDF depth grid replace the bundled ones, and say so."""
    from scipy.io import netcdf_file

    baseline = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {},
                "geometry": {"type": "LineString", "coordinates": [[-40, -20], [-40, -21]]},
            }
        ],
    }
    land_path = tmp_path / "baseline.geojson"
    land_path.write_text(json.dumps(baseline))
    nc_path = tmp_path / "gebco_cut.nc"
    with netcdf_file(nc_path, "w") as nc:
        nc.createDimension("lat", 11)
        nc.createDimension("lon", 11)
        nc.createVariable("lat", "f8", ("lat",))[:] = np.linspace(-25, -15, 11)
        nc.createVariable("lon", "f8", ("lon",))[:] = np.linspace(-40, -30, 11)
        nc.createVariable("elevation", "f4", ("lat", "lon"))[:] = np.full((11, 11), -3000.0)
    basemap = load_basemap(land_path, nc_path)
    assessor = BallastAssessor(basemap)
    item = assessor.assess(np.array([-37.0]), np.array([-20.5])).item(0)
    assert item["basemap"] == {"land": "baseline.geojson", "depth": "gebco_cut.nc"}
    ref = reference_on(basemap.land, -37.0, -20.5)
    assert item["distance_to_land_nm"] == pytest.approx(ref, abs=0.1)
    assert item["depth_m"] == pytest.approx(3000.0)
    with pytest.raises(BasemapError):
        load_basemap(tmp_path / "missing.geojson")
