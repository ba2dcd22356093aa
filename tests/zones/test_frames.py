"""The local frames measure distances like the geodesic, all along the Brazilian coast."""

from __future__ import annotations

import numpy as np
import pytest
from pyproj import Geod

from vigia.zones.frames import BAND_DEG, band_of, frame_for_band

GEOD = Geod(ellps="WGS84")


@pytest.mark.parametrize(
    ("lon", "lat"),
    [
        (-73.0, -7.5),  # UTM 18 (Acre border)
        (-48.5, -1.3),  # UTM 22, near the equator (Belém)
        (-43.17, -22.97),  # UTM 23 (Rio de Janeiro)
        (-51.0, -32.0),  # UTM 22 (Rio Grande do Sul, far south)
        (-29.33, -20.5),  # UTM 26 (Trindade)
        (-29.35, 0.92),  # UTM 26 (São Pedro e São Paulo)
    ],
)
def test_frame_distances_match_geodesic_to_millimetres(lon: float, lat: float) -> None:
    """Pairs up to 6 km apart, placed at the worst offset from the band meridian, measure
    within 3 cm of pyproj.Geod.inv, and within 5 mm at rule scale (700 m and less)."""
    band = band_of(lon)
    frame = frame_for_band(band)
    # the farthest a zone centre can sit from its band's meridian, plus a few km
    worst_lon = band * BAND_DEG + BAND_DEG / 2
    rng = np.random.default_rng(7)
    n = 400
    lon0 = worst_lon + rng.uniform(-0.03, 0.03, n)
    lat0 = lat + rng.uniform(-0.03, 0.03, n)
    az = rng.uniform(0, 360, n)
    dist = rng.uniform(50, 6000, n)
    lon1, lat1, _ = GEOD.fwd(lon0, lat0, az, dist)
    x0, y0 = frame.forward(lon0, lat0)
    x1, y1 = frame.forward(np.asarray(lon1), np.asarray(lat1))
    measured = np.hypot(x1 - x0, y1 - y0)
    _, _, truth = GEOD.inv(lon0, lat0, lon1, lat1)
    err = np.abs(measured - truth)
    assert err.max() < 0.03, f"max error {err.max():.4f} m"
    assert err[dist <= 700].max() < 0.005, f"max error {err[dist <= 700].max():.4f} m"
    assert (err / truth).max() < 6e-6


def test_one_utm_zone_for_the_coast_would_not_do() -> None:
    """Why per-band frames: a single frame centred on Rio is metres off at Trindade."""
    frame = frame_for_band(band_of(-43.0))
    lon0, lat0 = -29.33, -20.5
    lon1, lat1, _ = GEOD.fwd(lon0, lat0, 90.0, 500.0)
    x, y = frame.forward(np.array([lon0, lon1]), np.array([lat0, lat1]))
    assert abs(np.hypot(x[1] - x[0], y[1] - y[0]) - 500.0) > 1.0


def test_inverse_returns_to_the_same_place() -> None:
    """Frame metres go back to the same lon/lat (sub-millimetre)."""
    frame = frame_for_band(band_of(-40.3))
    lon = np.array([-40.3, -40.2, -40.45])
    lat = np.array([-22.5, -22.4, -22.6])
    back_lon, back_lat = frame.inverse(*frame.forward(lon, lat))
    _, _, d = GEOD.inv(lon, lat, back_lon, back_lat)
    assert np.max(d) < 1e-3
