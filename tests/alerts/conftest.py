"""Lead scenario fixtures; the helpers live in scenario_kit (importable from here)."""

from __future__ import annotations

import pytest

from tests.alerts.scenario_kit import bundled_index
from vigia.zones.evaluate import ZoneIndex


@pytest.fixture(scope="session")
def bundled() -> ZoneIndex:
    """The real bundled zones, compiled once."""
    return bundled_index()
