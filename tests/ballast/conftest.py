"""Ballast fixtures: the bundled assessor and an independent geodesic reference."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.geodesy import reference_distance_nm
from vigia.zones.ballast import BallastAssessor, get_assessor
from vigia.zones.basemap import LandBasemap


@pytest.fixture(scope="session")
def assessor() -> BallastAssessor:
    """The assessor on the bundled basemap."""
    return get_assessor()


@pytest.fixture(scope="session")
def reference() -> Callable[[float, float], float]:
    """The independent reference distance (nm) on the bundled land."""
    land = get_assessor().basemap.land
    return lambda lon, lat: reference_distance_nm(land, lon, lat)


@pytest.fixture(scope="session")
def reference_on() -> Callable[[LandBasemap, float, float], float]:
    """The independent reference distance (nm) against any land basemap."""
    return reference_distance_nm
