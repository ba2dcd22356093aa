"""Units and limits every stage shares, so each is written once.

Lives in the lowest layer (ingest) because decoding, zones, rules and the service all
need it and ingest imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

M_PER_NM = 1852.0  # metres in an international nautical mile
S_PER_H = 3600.0
MS_PER_KN = M_PER_NM / S_PER_H  # metres per second in a knot

LON_MIN, LON_MAX = -180.0, 180.0
LAT_MIN, LAT_MAX = -90.0, 90.0


def valid_lonlat(lon: float | None, lat: float | None) -> bool:
    """Whether a position has a longitude and a latitude in range (AIS sends 181/91 for
    "not available", and a broken transmitter anything)."""
    return (
        lon is not None
        and lat is not None
        and LON_MIN <= lon <= LON_MAX
        and LAT_MIN <= lat <= LAT_MAX
    )


def lon_or_none(lon: float | None) -> float | None:
    """The longitude if in range, else None ("not available" or impossible)."""
    return lon if lon is not None and LON_MIN <= lon <= LON_MAX else None


def lat_or_none(lat: float | None) -> float | None:
    """The latitude if in range, else None ("not available" or impossible)."""
    return lat if lat is not None and LAT_MIN <= lat <= LAT_MAX else None


def lonlat_in_range(lon: Any, lat: Any) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Vectorised :func:`valid_lonlat` over arrays (NaN is out of range)."""
    import numpy as np  # here, not above: `vigia decode` of a small file needs no numpy

    x = np.asarray(lon, dtype=np.float64)
    y = np.asarray(lat, dtype=np.float64)
    return np.asarray(
        (x >= LON_MIN) & (x <= LON_MAX) & (y >= LAT_MIN) & (y <= LAT_MAX), dtype=np.bool_
    )
