"""The distress fast lane recognises beacons by MMSI without decoding, and nothing else."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from pyais import decode

from scripts import aisgen
from vigia.ingest.urgent import is_distress_line

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@given(st.integers(min_value=0, max_value=999_999_999), st.booleans())
def test_matches_pyais_on_the_mmsi(mmsi: int, tagged: bool) -> None:
    line = aisgen.fast_type1(mmsi, 1_767_261_600.0, -43.1, -23.0, 0.0, 0.0, 14)
    if not tagged:
        line = line.split("\\")[-1]
    assert decode(line.split("\\")[-1]).mmsi == mmsi
    assert is_distress_line(line) == (mmsi // 1_000_000 in (970, 972, 974))


@given(st.text(max_size=120))
def test_garbage_is_never_urgent_and_never_raises(text: str) -> None:
    assert is_distress_line(text) in (True, False)


def test_real_traffic_has_no_false_alarms() -> None:
    lines = (FIXTURES / "pyais_nmea_data_sample.txt").read_text().splitlines()
    assert not any(is_distress_line(x) for x in lines)
    # a fragment of a two-part message never skips the queue, even from a beacon's MMSI
    assert not is_distress_line("!AIVDM,2,1,3,B,5qsSur000000000000000000000000000000,0*34")
