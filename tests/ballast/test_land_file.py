"""A land basemap read from a shapefile in a projected CRS comes back in lon/lat."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import shapely
from pyogrio.raw import write
from pyproj import Transformer

from vigia.zones.basemap import load_land_file


def test_projected_shapefile_is_read_in_lonlat(tmp_path: Path) -> None:
    """An island drawn in UTM 23S (EPSG:31983, SIRGAS 2000) lands where it is on Earth."""
    to_utm = Transformer.from_crs(4326, 31983, always_xy=True)
    ring = [(-43.2, -23.1), (-43.1, -23.1), (-43.1, -23.0), (-43.2, -23.0), (-43.2, -23.1)]
    utm = shapely.Polygon([to_utm.transform(x, y) for x, y in ring])
    path = tmp_path / "island.shp"
    write(
        path,
        np.array([shapely.to_wkb(utm)], dtype=object),
        [np.array([1])],
        fields=["id"],
        crs="EPSG:31983",
        geometry_type="Polygon",
        driver="ESRI Shapefile",
    )
    land = load_land_file(path)
    x0, y0, x1, y1 = land.polygons.bounds
    assert np.allclose([x0, y0, x1, y1], [-43.2, -23.1, -43.1, -23.0], atol=1e-6)
