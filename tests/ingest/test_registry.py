"""Vessel registry: latest static data per MMSI, 24A and 24B merged, cheap at scale."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc

from vigia.ingest.progress import progress
from vigia.ingest.records import StaticData
from vigia.ingest.registry import VesselRegistry


def test_parts_a_and_b_merge_and_none_never_erases() -> None:
    reg = VesselRegistry()
    reg.update(StaticData(710000001, 10.0, 24, part="B", ship_type=37, callsign="PU1234"))
    reg.update(StaticData(710000001, 12.0, 24, part="B", ship_type=37, length_m=12.0))
    info = reg.update(StaticData(710000001, 11.0, 24, part="A", name="BRISA"))
    assert (info.name, info.ship_type, info.callsign, info.length_m) == (
        "BRISA",
        37,
        "PU1234",
        12.0,
    )
    assert info.updated_at == 12.0
    assert reg.get(710000001) == info
    assert reg.get(1) is None
    assert len(reg) == 1
    assert [m for m, _ in reg.items()] == [710000001]


def test_newer_report_overrides_older_does_not() -> None:
    reg = VesselRegistry()
    reg.update(StaticData(710000001, 100.0, 5, name="NEW NAME", destination="SANTOS"))
    info = reg.update(StaticData(710000001, 50.0, 5, name="OLD NAME", imo=1234567))
    assert (info.name, info.destination, info.imo) == ("NEW NAME", "SANTOS", 1234567)
    info = reg.update(StaticData(710000001, 150.0, 5, destination="RIO"))
    assert (info.name, info.destination) == ("NEW NAME", "RIO")


def test_hundred_thousand_vessels_are_cheap() -> None:
    reg = VesselRegistry()
    tracemalloc.start()
    for i in range(100_000):
        reg.update(
            StaticData(
                200_000_000 + i,
                float(i),
                5,
                name=f"VESSEL {i}",
                callsign=f"C{i}",
                imo=9_000_000 + i,
                ship_type=70,
                length_m=100.0,
                beam_m=20.0,
                destination="SANTOS",
            )
        )
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(reg) == 100_000
    # about 300 bytes a vessel, names and callsigns included
    assert current < 40 * 1024 * 1024, current


def test_progress_is_silent_when_piped() -> None:
    code = (
        "from ingest.progress import progress\n"
        "print(sum(progress(range(1000), total=1000, desc='x')))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=True
    )
    assert res.stdout.strip() == "499500"
    assert res.stderr == ""  # no bar when stderr is not a terminal
    assert list(progress(iter([1, 2, 3]))) == [1, 2, 3]
