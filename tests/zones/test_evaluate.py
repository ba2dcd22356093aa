"""Evaluation against the real bundled zones: distances to the geodesic truth, both sides of
every threshold, and the vectorised path equal to a brute-force check."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from pyproj import Geod
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry

from vigia.zones.catalogue import bundled_zones_dir, load_zones, parse_feature_collection
from vigia.zones.evaluate import Hits, ZoneIndex
from vigia.zones.model import Zone, ZoneKind

GEOD = Geod(ellps="WGS84")


@pytest.fixture(scope="module")
def index() -> ZoneIndex:
    """The bundled catalogue, compiled."""
    return ZoneIndex(load_zones([bundled_zones_dir()]))


def _idx(index: ZoneIndex, zone_id: str) -> int:
    return next(i for i, z in enumerate(index.zones) if z.id == zone_id)


def geodesic_truth(geom: BaseGeometry, lon: float, lat: float) -> float:
    """Distance (m) from (lon, lat) to a lon/lat geometry: 0 inside a polygon, else the
    minimum Geod.inv distance to its boundary densified to about 0.3 m steps (found in
    two passes: 10 m steps everywhere, then 0.3 m steps around the closest one)."""
    if isinstance(geom, Polygon) and geom.contains(Point(lon, lat)):
        return 0.0
    if isinstance(geom, Point):
        return float(GEOD.inv(lon, lat, geom.x, geom.y)[2])
    target = geom.boundary if isinstance(geom, Polygon) else geom

    def nearest(xy: np.ndarray) -> tuple[int, float]:
        n = len(xy)
        _, _, d = GEOD.inv(np.full(n, lon), np.full(n, lat), xy[:, 0], xy[:, 1])
        k = int(np.argmin(d))
        return k, float(d[k])

    coarse = shapely.get_coordinates(shapely.segmentize(target, 1e-4))
    k, _ = nearest(coarse)
    piece = LineString(coarse[max(k - 1, 0) : k + 2]) if len(coarse) > 1 else target
    _, d = nearest(shapely.get_coordinates(shapely.segmentize(piece, 3e-6)))
    return d


def _hit_distance(hits: Hits, pos: int, zone: int) -> float | None:
    sel = (hits.pos == pos) & (hits.zone == zone)
    return float(hits.distance_m[sel][0]) if sel.any() else None


def _offsets_from_line(line: LineString, dists: list[float]) -> tuple[list[float], list[float]]:
    """Points at each distance, perpendicular from the middle of the line's longest segment,
    on the side where that perpendicular distance is the true distance to the whole line
    (the convex side: on a small cove's concave side the cove's ends come closer)."""
    c = list(line.coords)
    seg = max(range(len(c) - 1), key=lambda i: GEOD.inv(*c[i], *c[i + 1])[2])
    az, _, length = GEOD.inv(*c[seg], *c[seg + 1])
    mid_lon, mid_lat, _ = GEOD.fwd(*c[seg], az, length / 2)
    sides = []
    for side in (90.0, -90.0):
        pts = [GEOD.fwd(mid_lon, mid_lat, az + side, d)[:2] for d in dists]
        worst = max(
            abs(geodesic_truth(line, lo, la) - d) for (lo, la), d in zip(pts, dists, strict=True)
        )
        sides.append((worst, pts))
    worst, pts = min(sides, key=lambda s: s[0])
    assert worst < 1.0, "test geometry: no side where the offsets are true distances"
    return [p[0] for p in pts], [p[1] for p in pts]


@pytest.mark.parametrize("name", ["P-48", "PEREGRINO A", "FPSO CAPIXABA"])
def test_platform_480_inside_520_outside(index: ZoneIndex, name: str) -> None:
    """500 m around a charted platform: 480 m raises, 520 m does not, distance exact."""
    z = next(i for i, zone in enumerate(index.zones) if zone.name == name)
    assert index.threshold_m[z] == 500.0
    plat = index.zones[z].geometry
    lons, lats, _ = GEOD.fwd([plat.x] * 4, [plat.y] * 4, [0, 90, 200, 315], [480, 480, 520, 520])
    hits = index.evaluate(np.array(lons), np.array(lats))
    for pos, expect in enumerate([480.0, 480.0, None, None]):
        got = _hit_distance(hits, pos, z)
        assert (got is None) == (expect is None)
        if expect is not None:
            assert abs(got - expect) < 0.05  # type: ignore[operator]


def test_military_point_and_footprint(index: ZoneIndex) -> None:
    """200 m from a charted fort (point) and from an island footprint; 0 on the island."""
    fort = _idx(index, "military-ilha-fiscal")
    island = _idx(index, "military-ilha-de-villegagnon")
    f = index.zones[fort].geometry
    lons, lats, _ = GEOD.fwd([f.x, f.x], [f.y, f.y], [45, 45], [185, 215])
    poly = index.zones[island].geometry
    assert isinstance(poly, Polygon)
    # east of the island's easternmost vertex, along the parallel
    east = max(poly.exterior.coords, key=lambda p: p[0])
    for d in (185.0, 215.0):
        lo, la, _ = GEOD.fwd(east[0], east[1], 90.0, d)
        lons.append(lo)
        lats.append(la)
    centre = poly.representative_point()
    lons.append(centre.x)
    lats.append(centre.y)
    hits = index.evaluate(np.array(lons), np.array(lats))
    assert abs(_hit_distance(hits, 0, fort) - 185.0) < 0.05  # type: ignore[operator]
    assert _hit_distance(hits, 1, fort) is None
    truth = geodesic_truth(poly, lons[2], lats[2])
    assert abs(_hit_distance(hits, 2, island) - truth) < 0.05  # type: ignore[operator]
    assert truth <= 185.0 + 1e-6
    assert _hit_distance(hits, 3, island) is None
    assert geodesic_truth(poly, lons[3], lats[3]) > 200.0
    assert _hit_distance(hits, 4, island) == 0.0


@pytest.mark.parametrize(
    "beach",
    ["beach-copacabana", "beach-ipanema-leblon", "beach-praia-vermelha", "beach-icarai"],
)
def test_beach_bands_from_the_chart_baseline(index: ZoneIndex, beach: str) -> None:
    """90/110 m and 190/210 m off each Rio beach baseline: in and out of the sail and
    motor bands, distances within 5 cm of the geodesic truth."""
    z = _idx(index, beach)
    line = index.zones[z].geometry
    assert isinstance(line, LineString)
    assert index.threshold_m[z] == 200.0 and index.sail_band_m == 100.0
    lons, lats = _offsets_from_line(line, [90.0, 110.0, 190.0, 210.0])
    hits = index.evaluate(np.array(lons), np.array(lats))
    for pos, (lo, la) in enumerate(zip(lons, lats, strict=True)):
        truth = geodesic_truth(line, lo, la)
        got = _hit_distance(hits, pos, z)
        if pos < 3:
            assert got is not None and abs(got - truth) < 0.05
        else:
            assert got is None and truth > 200.0
    near = [_hit_distance(hits, p, z) for p in (0, 1)]
    assert near[0] is not None and near[0] <= index.sail_band_m < near[1]  # type: ignore[operator]


def _synthetic(lon: float, lat: float) -> list[Zone]:
    """A platform, a 5 km beach and a military footprint around (lon, lat)."""
    square = [[lon + 0.02, lat], [lon + 0.03, lat], [lon + 0.03, lat + 0.01], [lon + 0.02, lat]]
    fc = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"id": f"p{lon}", "kind": "platform"},
                "geometry": {"type": "Point", "coordinates": [lon, lat]},
            },
            {
                "type": "Feature",
                "properties": {"id": f"b{lon}", "kind": "bather_beach"},
                "geometry": {
                    "type": "LineString",
                    "coordinates": [[lon - 0.05, lat + 0.02], [lon, lat + 0.025]],
                },
            },
            {
                "type": "Feature",
                "properties": {"id": f"m{lon}", "kind": "military"},
                "geometry": {"type": "Polygon", "coordinates": [square]},
            },
        ],
    }
    return parse_feature_collection(fc)


@pytest.mark.parametrize(("lon", "lat"), [(-72.9, -7.6), (-29.32, -20.51), (-28.88, 0.9)])
def test_far_west_and_far_east_zones_equally_accurate(lon: float, lat: float) -> None:
    """Zones in UTM 18 and UTM 26 measure as well as zones off Rio."""
    zones = _synthetic(lon, lat)
    index = ZoneIndex(zones)
    rng = np.random.default_rng(3)
    lons, lats = [], []
    for z in zones:
        c = z.geometry.centroid
        az = rng.uniform(0, 360, 40)
        d = rng.uniform(0, 3000, 40)
        lo, la, _ = GEOD.fwd(np.full(40, c.x), np.full(40, c.y), az, d)
        lons.extend(lo)
        lats.extend(la)
    hits = index.evaluate(np.array(lons), np.array(lats))
    checked = 0
    for p, (lo, la) in enumerate(zip(lons, lats, strict=True)):
        for zi, z in enumerate(zones):
            truth = geodesic_truth(z.geometry, lo, la)
            got = _hit_distance(hits, p, zi)
            if abs(truth - index.threshold_m[zi]) < 0.1:
                continue
            assert (got is not None) == (truth <= index.threshold_m[zi])
            if got is not None:
                assert abs(got - truth) < 0.05
                checked += 1
    assert checked > 20


def test_margin_widens_every_threshold(index: ZoneIndex) -> None:
    """margin_m adds to each zone's distance: 520 m from a platform counts with a 30 m margin."""
    z = next(i for i, zone in enumerate(index.zones) if zone.name == "P-48")
    plat = index.zones[z].geometry
    lo, la, _ = GEOD.fwd(plat.x, plat.y, 10.0, 520.0)
    assert len(index.evaluate(np.array([lo]), np.array([la]))) == 0
    hits = index.evaluate(np.array([lo]), np.array([la]), margin_m=30.0)
    assert list(hits.zone) == [z] and abs(hits.distance_m[0] - 520.0) < 0.05
    assert len(index.evaluate(np.array([lo]), np.array([la]), margin_m=19.0)) == 0


def test_inside_an_area_is_zero_and_jurisdiction_lookup() -> None:
    """Inside a polygon the distance is 0; zones_containing finds the first container."""
    zones = parse_feature_collection(
        {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "properties": {"id": "cp-rj", "kind": "jurisdiction", "authority": "CPRJ"},
                    "geometry": {
                        "type": "Polygon",
                        "coordinates": [
                            [
                                [-44, -23.5],
                                [-42.5, -23.5],
                                [-42.5, -22.5],
                                [-44, -22.5],
                                [-44, -23.5],
                            ]
                        ],
                    },
                },
                {
                    "type": "Feature",
                    "properties": {"id": "ch", "kind": "access_channel"},
                    "geometry": {
                        "type": "Polygon",
                        "coordinates": [
                            [
                                [-43.15, -22.95],
                                [-43.13, -22.95],
                                [-43.13, -22.93],
                                [-43.15, -22.93],
                                [-43.15, -22.95],
                            ]
                        ],
                    },
                },
            ],
        }
    )
    index = ZoneIndex(zones)
    lon = np.array([-43.14, -43.10, -41.0])
    lat = np.array([-22.94, -22.94, -22.94])
    hits = index.evaluate(lon, lat)
    assert set(zip(hits.pos.tolist(), hits.zone.tolist(), strict=True)) == {(0, 0), (0, 1), (1, 0)}
    assert np.all(hits.distance_m == 0.0)
    assert index.zones_containing(ZoneKind.JURISDICTION, lon, lat) == [0, 0, None]


def test_nearest_point_lies_on_the_baseline(index: ZoneIndex) -> None:
    """The closest baseline point is on the line and at the reported distance."""
    z = _idx(index, "beach-copacabana")
    lons, lats = _offsets_from_line(index.zones[z].geometry, [150.0])  # type: ignore[arg-type]
    nlon, nlat = index.nearest_point(z, lons[0], lats[0])
    _, _, d = GEOD.inv(lons[0], lats[0], nlon, nlat)
    hits = index.evaluate(np.array(lons), np.array(lats))
    assert abs(d - _hit_distance(hits, 0, z)) < 0.05  # type: ignore[operator]
    assert index.zones[z].geometry.distance(Point(nlon, nlat)) < 1e-7


def _big_jurisdiction() -> list[Zone]:
    """A 3-degree, 4,000-vertex jurisdiction polygon around Rio (a large, costly zone)."""
    ang = np.linspace(0, 2 * np.pi, 4000, endpoint=False)
    r = 1.5 + 0.05 * np.sin(ang * 37)
    ring = np.column_stack([-43.2 + r * np.cos(ang), -23.0 + r * np.sin(ang)])
    ring = np.vstack([ring, ring[:1]])
    feat = {
        "type": "Feature",
        "properties": {"id": "juris", "kind": "jurisdiction", "authority": "CPRJ"},
        "geometry": {"type": "Polygon", "coordinates": [ring.tolist()]},
    }
    return parse_feature_collection(feat)


@pytest.mark.parametrize("extra", ["bundled", "with jurisdiction and far zones"])
def test_vectorised_equals_brute_force(index: ZoneIndex, extra: str) -> None:
    """A random sample near and far from the zones gives the same pairs and distances
    as checking every point against every zone one by one."""
    if extra != "bundled":
        index = ZoneIndex(
            index.zones + _big_jurisdiction() + _synthetic(-29.32, -20.51) + _synthetic(-72.9, -7.6)
        )
    rng = np.random.default_rng(11)
    anchors = np.array([z.geometry.representative_point().coords[0] for z in index.zones])
    pick = anchors[rng.integers(0, len(anchors), 3000)]
    lon = np.concatenate([pick[:, 0] + rng.normal(0, 0.006, 3000), rng.uniform(-46, -39, 2000)])
    lat = np.concatenate([pick[:, 1] + rng.normal(0, 0.006, 3000), rng.uniform(-24.5, -21, 2000)])
    lon[7], lat[7] = np.nan, np.nan
    lon[8], lat[9] = np.inf, -np.inf
    for margin in (0.0, 75.0):
        hits = index.evaluate(lon, lat, margin_m=margin)
        expected = {}
        for zi in range(len(index.zones)):
            d = index.distance_m(zi, lon, lat)
            for p in np.flatnonzero(d <= index.threshold_m[zi] + margin):
                expected[(int(p), zi)] = float(d[p])
        got = {
            (int(p), int(z)): float(d)
            for p, z, d in zip(hits.pos, hits.zone, hits.distance_m, strict=True)
        }
        assert got.keys() == expected.keys()
        assert all(abs(got[k] - expected[k]) < 1e-6 for k in got)
        assert len(got) > 300
        assert list(zip(hits.pos, hits.zone, strict=True)) == sorted(got)
        plain = index.evaluate(lon, lat, margin_m=margin, prefilter=False)
        assert np.array_equal(plain.pos, hits.pos) and np.array_equal(plain.zone, hits.zone)


def test_empty_inputs() -> None:
    """No zones or no positions give no hits, not an error."""
    empty = ZoneIndex([])
    assert len(empty.evaluate(np.array([-43.0]), np.array([-23.0]))) == 0
    index = ZoneIndex(_synthetic(-43.0, -23.0))
    assert len(index.evaluate(np.empty(0), np.empty(0))) == 0


def test_band_polygon_for_maps(index: ZoneIndex) -> None:
    """The band drawn on a map holds 190 m points and not 210 m ones (beach, 200 m)."""
    z = _idx(index, "beach-ipanema-leblon")
    lons, lats = _offsets_from_line(index.zones[z].geometry, [190.0, 210.0])  # type: ignore[arg-type]
    band = index.band(z)
    assert band.contains(Point(lons[0], lats[0])) and not band.contains(Point(lons[1], lats[1]))
    sail = index.band(z, index.sail_band_m)
    assert sail.area < band.area and band.contains(sail)
