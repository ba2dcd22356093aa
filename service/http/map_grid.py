"""Vessels counted in map cells, for a map zoomed out too far to draw each one (issue 39).

The cells are Web Mercator map tiles, as Elasticsearch's ``geotile_grid`` aggregation
cuts them (the binning Kibana's and other maps' server-side clusters use): at display
zoom *z* the tiles of zoom *z* + ``CELL_ZOOM_STEP`` are 256 / 2**step pixels wide on the
screen whatever the latitude, so a cluster stands for a fixed patch of the screen. Each
cluster sits at the mean of its vessels (Elasticsearch's ``geo_centroid``), not at the
tile's centre, so it lies on the traffic it counts, and carries the box of its vessels
so a click can zoom to them. Pure numpy, one pass over the coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

#: tiles of zoom z + 3 are 32 pixels across at zoom z: a patch a thumb covers
CELL_ZOOM_STEP = 3
#: deepest tile zoom cut (a 76 m tile at the equator; the page clusters only far out)
MAX_CELL_ZOOM = 24
#: latitudes beyond Web Mercator's square are clamped to its edge
_MERC_LAT = 85.05112878


class Cluster(NamedTuple):
    """The vessels of one cell: their mean position, how many (size), and their box."""

    lon: float
    lat: float
    size: int
    west: float
    south: float
    east: float
    north: float


def cell_zoom(display_zoom: float) -> int:
    """The tile zoom cut for a map at ``display_zoom`` (fractional zooms round down)."""
    return min(MAX_CELL_ZOOM, max(0, int(np.floor(display_zoom))) + CELL_ZOOM_STEP)


def tiles(lon: np.ndarray, lat: np.ndarray, zoom: int) -> tuple[np.ndarray, np.ndarray]:
    """The (x, y) tile of each point at ``zoom`` (the slippy-map tile scheme)."""
    n = float(2**zoom)
    x = np.floor((lon + 180.0) / 360.0 * n)
    phi = np.radians(np.clip(lat, -_MERC_LAT, _MERC_LAT))
    y = np.floor((1.0 - np.arcsinh(np.tan(phi)) / np.pi) / 2.0 * n)
    top = n - 1.0
    return np.clip(x, 0.0, top).astype(np.int64), np.clip(y, 0.0, top).astype(np.int64)


def grid_clusters(points: Sequence[tuple[float, float]], zoom: int) -> list[Cluster]:
    """The clusters of ``points`` (lon, lat) on the tiles of ``zoom``, largest first (a
    tie: west to east)."""
    if not points:
        return []
    xy = np.asarray(points, dtype=np.float64)
    lon, lat = xy[:, 0], xy[:, 1]
    x, y = tiles(lon, lat, zoom)
    key = x * (1 << zoom) + y
    cells, which, counts = np.unique(key, return_inverse=True, return_counts=True)
    k = len(cells)
    mean_lon = np.bincount(which, weights=lon, minlength=k) / counts
    mean_lat = np.bincount(which, weights=lat, minlength=k) / counts
    west, south = np.full(k, np.inf), np.full(k, np.inf)
    east, north = np.full(k, -np.inf), np.full(k, -np.inf)
    np.minimum.at(west, which, lon)
    np.minimum.at(south, which, lat)
    np.maximum.at(east, which, lon)
    np.maximum.at(north, which, lat)
    order = np.lexsort((mean_lon, -counts))
    return [
        Cluster(
            round(float(mean_lon[i]), 5), round(float(mean_lat[i]), 5), int(counts[i]),
            float(west[i]), float(south[i]), float(east[i]), float(north[i]),
        )
        for i in order
    ]  # fmt: skip
