"""Bearings from fixes to their beach's baseline, worked out a batch at a time.

The 0211 b) 3) approach judgement needs, for every fix inside a bather band, the bearing
to the nearest point of the beach's baseline. Worked out one judged fix at a time (a
projection, a shortest line and a geodesic inverse each) they took about a quarter of
:meth:`LeadPipeline.process`; here they are worked out for a whole batch in one
vectorised pass per beach, and kept until the fix is judged (the glitch look-ahead may
judge it a batch later). The figures are those of the one-fix path, element by element.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pyproj import Geod

from vigia.zones.evaluate import FloatArray, Hits, ZoneIndex
from vigia.zones.model import Zone, ZoneKind

GEOD = Geod(ellps="WGS84")
_ON_THE_LINE_M = 5.0  # closer than this a bearing means nothing: None
_KEEP_MAX = 50_000  # bearings kept for fixes judged later; then all are dropped


class BeachBearings:
    """Per (zone, lon, lat), the bearing (degrees) to the beach's baseline."""

    __slots__ = ("_beach_thr", "_index", "known")

    def __init__(self, index: ZoneIndex, zones: Sequence[Zone], thr: Sequence[float]) -> None:
        # per zone, its rule distance if it is a bather beach, else -1 (never within)
        beach = ZoneKind.BATHER_BEACH
        self._setup(
            index, [t if z.kind is beach else -1.0 for z, t in zip(zones, thr, strict=True)]
        )

    def _setup(self, index: ZoneIndex, thr: list[float]) -> None:
        self._index = index
        self._beach_thr = np.array(thr, dtype=np.float64)
        self.known: dict[tuple[int, float, float], float] = {}

    def __getstate__(self) -> tuple[ZoneIndex, list[float]]:
        # a partition's checkpoint carries neither the cache nor an array
        return self._index, self._beach_thr.tolist()

    def __setstate__(self, state: tuple[ZoneIndex, list[float]]) -> None:
        self._setup(*state)

    def prepare(self, hits: Hits, lon: FloatArray, lat: FloatArray) -> None:
        """Work out the bearing of every hit of a batch inside a bather band."""
        if len(self.known) > _KEEP_MAX:
            self.known.clear()
        if len(hits.zone) == 0:
            return
        d = hits.distance_m
        sel = np.flatnonzero((d >= _ON_THE_LINE_M) & (d <= self._beach_thr[hits.zone]))
        if len(sel) == 0:
            return
        zones, at = hits.zone[sel], hits.pos[sel]
        for z in np.unique(zones).tolist():
            i = at[zones == z]
            plon, plat = lon[i], lat[i]
            nlon, nlat = self._index.nearest_points(z, plon, plat)
            az, _, _ = GEOD.inv(plon, plat, nlon, nlat)
            for lo, la, a in zip(
                plon.tolist(), plat.tolist(), np.asarray(az).tolist(), strict=True
            ):
                self.known[(z, lo, la)] = a % 360.0

    def bearing(self, z: int, lon: float, lat: float, d: float) -> float | None:
        """Bearing from (lon, lat) to zone ``z``'s nearest baseline point (None when on
        it): the prepared figure, or worked out now for a fix no batch prepared."""
        if d < _ON_THE_LINE_M:
            return None
        known = self.known.get((z, lon, lat))
        if known is not None:
            return known
        nlon, nlat = self._index.nearest_point(z, lon, lat)
        az, _, _ = GEOD.inv(lon, lat, nlon, nlat)
        return float(az) % 360.0
