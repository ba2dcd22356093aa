"""Fixes deep inside land (issue 34): a spoofing signal, measured before it is a rule.

A ship cannot sail on land; a transponder fed a false position (GNSS spoofing, a
simulator, a position typed in) can report one. The land is the bundled basemap
(zones/basemap.py: Natural Earth 1:10m, the Navy's chart land around Rio), whose coast
runs up to a few hundred metres off the real one (300 m at Copacabana), and which knows
no rivers, canals or docks built out on reclaimed ground. So a fix counts only when it
lies more than :data:`MARGIN_M` inside that land (metres, in SIRGAS 2000 / Brazil
Polyconic, EPSG:5880: a few per mille of scale error at the coast), and only a run of
:data:`MIN_FIXES` such fixes over :data:`MIN_SPAN_S` is a candidate: one bad fix is a
glitch, not a ship.

This is not yet a lead rule: the basemap holds no inland waters, so a ship up the Amazon
to Manaus, on the Paraguay or the Tietê-Paraná waterway, lies "deep inside land" by it.
``benchmarks/identity.py`` counts the candidates on real traffic and on planted ones;
it becomes ``ID-ON-LAND`` once an inland-water layer (ANTAQ's waterways) is bundled.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import shapely
from numpy.typing import NDArray
from pyproj import Transformer
from shapely.geometry import box
from shapely.geometry.base import BaseGeometry

from vigia.zones.basemap import bundled_land

MARGIN_M = 2_000.0
MIN_FIXES = 5
MIN_SPAN_S = 600.0
#: Brazil and its neighbours' coasts, where the polyconic projection holds its scale
WINDOW = (-75.0, -35.0, -28.0, 7.0)
_CRS = "EPSG:5880"


@cache
def _to_metres() -> Transformer:
    return Transformer.from_crs("EPSG:4326", _CRS, always_xy=True)


@cache
def _core(margin_m: float = MARGIN_M) -> BaseGeometry:
    """The land less a band of ``margin_m`` along every coast, in projected metres."""
    land = shapely.intersection(bundled_land().polygons, box(*WINDOW))
    proj = shapely.transform(land, lambda xy: np.column_stack(_to_metres().transform(*xy.T)))
    core = shapely.buffer(proj, -margin_m)
    shapely.prepare(core)
    return core


def deep_on_land(
    lons: NDArray[np.float64], lats: NDArray[np.float64], margin_m: float = MARGIN_M
) -> NDArray[np.bool_]:
    """Whether each fix lies more than ``margin_m`` inside land (vectorised)."""
    lons = np.asarray(lons, dtype=np.float64)
    lats = np.asarray(lats, dtype=np.float64)
    x0, y0, x1, y1 = WINDOW
    out = np.zeros(lons.shape, dtype=bool)
    near = (lons >= x0) & (lons <= x1) & (lats >= y0) & (lats <= y1)
    if near.any():
        x, y = _to_metres().transform(lons[near], lats[near])
        out[near] = shapely.contains_xy(_core(margin_m), x, y)
    return out


def land_runs(
    t: Sequence[float], deep: Sequence[bool], min_fixes: int = MIN_FIXES
) -> list[tuple[int, int]]:
    """(first, last) indices of each run of consecutive deep fixes (one vessel's, in
    time order) of at least ``min_fixes`` fixes spanning at least :data:`MIN_SPAN_S`."""
    runs = []
    i, n = 0, len(deep)
    while i < n:
        if not deep[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and deep[j + 1]:
            j += 1
        if j - i + 1 >= min_fixes and t[j] - t[i] >= MIN_SPAN_S:
            runs.append((i, j))
        i = j + 1
    return runs
