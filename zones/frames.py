"""Local conformal frames in metres for measuring distances near zones.

Choice: a transverse Mercator projection on the WGS84 ellipsoid (PROJ's exact
Poder/Engsager ``tmerc``), scale 1 on a central meridian, one frame per 0.25 degree
band of longitude, the band holding the zone's centre. Transverse Mercator is conformal,
and its point scale grows only with the east-west offset ``x`` from the central meridian,
``k ~ 1 + x**2 / (2 R**2)``. A zone centre is at most 0.125 degree (about 13 km) from its
band's meridian; add a few km of zone and a 500 m buffer and ``x`` stays under about
20 km, so ``k - 1 < 5e-6``: a 500 m distance is off by under 3 mm. Measured
(``tests/zones/test_frames.py``, against ``pyproj.Geod.inv`` at the worst offset from a
band meridian, in UTM zones 18 to 26 from the equator to 32 S): at most 5 mm for
distances up to 700 m, at most 3 cm for distances up to 6 km (relative error < 6e-6).
One UTM zone for the whole coast would not do: at 20 degrees of longitude from its
meridian the scale error is several percent. Lines are densified in lon/lat before
projecting (:data:`DENSIFY_DEG`) so a GeoJSON edge, straight in lon/lat (RFC 7946),
stays that edge in metres to a millimetre.

Sharing a frame among every zone of a band keeps the number of projection calls small
(a few dozen bands cover Brazil), which is what lets evaluation stay vectorised.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt
import shapely
from pyproj import Transformer
from pyproj.enums import TransformDirection
from shapely.geometry.base import BaseGeometry

#: Width of a frame's longitude band, degrees.
BAND_DEG = 0.25
#: Longest edge, in degrees, left undensified before projecting a geometry.
DENSIFY_DEG = 0.005

FloatArray = npt.NDArray[np.float64]


def band_of(lon: float) -> int:
    """The frame band holding longitude ``lon``."""
    return round(lon / BAND_DEG)


class Frame:
    """A transverse Mercator frame (metres) with its central meridian at one band."""

    def __init__(self, band: int) -> None:
        self.band = band
        self.lon_0 = band * BAND_DEG
        # A bare PROJ pipeline: no CRS database search, so a frame costs ~1 ms, not ~40.
        self.proj = f"+proj=tmerc +lat_0=0 +lon_0={self.lon_0!r} +k_0=1 +x_0=0 +y_0=0 +ellps=WGS84"
        self._tr = Transformer.from_pipeline(
            f"+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad +step {self.proj}"
        )

    def forward(self, lon: FloatArray, lat: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Lon/lat degrees to frame metres (arrays)."""
        x, y = self._tr.transform(lon, lat)
        return np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)

    def inverse(self, x: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Frame metres to lon/lat degrees (arrays)."""
        lon, lat = self._tr.transform(x, y, direction=TransformDirection.INVERSE)
        return np.asarray(lon, dtype=np.float64), np.asarray(lat, dtype=np.float64)

    def project(self, geom: BaseGeometry) -> BaseGeometry:
        """A lon/lat geometry in this frame, edges densified first."""
        out: BaseGeometry = self.project_many(np.array([geom], dtype=object))[0]
        return out

    def project_many(self, geoms: npt.NDArray[np.object_]) -> npt.NDArray[np.object_]:
        """An array of lon/lat geometries in this frame, in one projection call."""
        dense = shapely.segmentize(geoms, DENSIFY_DEG)

        def fwd(coords: FloatArray) -> FloatArray:
            x, y = self.forward(coords[:, 0].copy(), coords[:, 1].copy())
            return np.column_stack([x, y])

        return np.asarray(shapely.transform(dense, fwd), dtype=object)


@lru_cache(maxsize=512)
def frame_for_band(band: int) -> Frame:
    """The (cached) frame of a band."""
    return Frame(band)


def frame_for(geom: BaseGeometry) -> Frame:
    """The frame a zone geometry is measured in: the band of its bounding-box centre."""
    minx, _, maxx, _ = geom.bounds
    return frame_for_band(band_of((minx + maxx) / 2.0))
