"""Shared test fixtures: paths to real data."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = ROOT.parent / "shared"


@pytest.fixture
def fixtures() -> Path:
    """Folder of real NMEA files and other test inputs."""
    return FIXTURES
