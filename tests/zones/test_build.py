"""The bundled zone files are exactly what the build script makes from the reference data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from scripts.build_national_catalogue import THEME_FILES as NATIONAL_FILES
from tests.conftest import SHARED
from vigia.zones.catalogue import bundled_zones_dir

ROOT = Path(__file__).resolve().parents[2]
# found as the other tests find it (beside the checkout, VIGIA_SHARED or /work/shared):
# a clone made elsewhere skipped this test in silence when it looked beside itself only
SHARED_DATA = SHARED / "data"


def test_build_script_regenerates_bundled_files_byte_identically(tmp_path: Path) -> None:
    """Running scripts/build_zones.py reproduces every committed file, byte for byte."""
    assert (SHARED_DATA / "enc").is_dir(), f"the reference geodata is missing: {SHARED_DATA}"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_zones.py"),
            "--data",
            str(SHARED_DATA),
            "--out",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    built = sorted(p.name for p in tmp_path.glob("*.geojson"))
    # the national files have their own builder and test (test_national_catalogue.py)
    committed = sorted(
        p.name for p in bundled_zones_dir().glob("*.geojson") if p.name not in NATIONAL_FILES
    )
    assert built == committed
    for name in built:
        assert (tmp_path / name).read_bytes() == (bundled_zones_dir() / name).read_bytes(), name
