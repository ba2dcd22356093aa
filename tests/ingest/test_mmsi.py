"""One rule for an MMSI Vigia keeps (issue 31), here at ingest (NMEA per line and in
columns, CSV); the store's share is in tests/storage/test_repository.py, the API's in
tests/api/test_vessels_leads.py. The forms are read off ITU-R M.585-9 annex 1 by hand,
not from the code under test."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyais import encode_dict

from vigia.ingest.batch import BatchIngestor
from vigia.ingest.counters import IngestCounters
from vigia.ingest.csv_import import read_csv
from vigia.ingest.decoder import Ingestor
from vigia.ingest.mmsi import is_valid_mmsi
from vigia.ingest.records import Position, RawLine, StaticData

#: not a station's identity: placeholders, too few digits, too many, unknown forms
INVALID = [
    0,
    1,
    12345,
    999_999_999,
    1_073_741_823,  # the largest 30-bit field
    1_000_000_000,
    123_456_789,  # first digit 1 is only 111MIDxxx
    111_111_111,  # 111 then MID 111: no MID starts with 1
    12_345_678,  # 0MIDxxxxx: a group call, never a sender
    786_434,  # 000786434: three leading zeros
    1_234_567,  # 001234567: coast station with MID 123
    812_345_678,  # handheld with MID 123
    980_000_001,  # craft associated with a parent ship, MID 000
    990_000_001,  # AtoN with MID 000
    900_000_000,
    971_000_001,  # between SART and MOB
    973_000_001,
    975_000_001,
    899_646_391,  # real, from the USCG capture: 8 then MID 996
]
#: one per kept form, the edges of the ship range included
VALID = [
    200_000_000,  # ship, MID 200
    710_000_001,  # Brazilian ship
    799_999_999,
    2_190_068,  # 002190068: a Danish base station (DMA export)
    7_100_001,  # 007100001: a Brazilian coast station
    111_710_001,  # SAR aircraft
    871_000_123,  # handheld
    987_100_001,  # craft associated with a parent ship
    992_710_001,  # AtoN
    970_000_001,  # AIS-SART, whatever the manufacturer digits
    972_000_007,  # MOB
    974_123_456,  # EPIRB-AIS
]


@pytest.mark.parametrize("mmsi", INVALID)
def test_not_an_identity(mmsi: int) -> None:
    assert not is_valid_mmsi(mmsi)


@pytest.mark.parametrize("mmsi", VALID)
def test_every_kept_form(mmsi: int) -> None:
    assert is_valid_mmsi(mmsi)


def _lines(mmsis: list[int]) -> list[RawLine]:
    """A type 1 report and a (two-sentence) type 5 per MMSI, in that order."""
    out: list[RawLine] = []
    for k, mmsi in enumerate(mmsis):
        texts = encode_dict({"type": 1, "mmsi": mmsi, "lon": -43.1, "lat": -22.9})
        texts += encode_dict({"type": 5, "mmsi": mmsi, "shipname": "X", "ship_type": 70})
        out += [RawLine(t, 1_700_000_000.0 + k, "test") for t in texts]
    return out


@pytest.mark.parametrize("batch", [False, True], ids=["per_line", "columns"])
def test_ingest_skips_and_counts_what_is_not_an_identity(batch: bool) -> None:
    lines = _lines([*INVALID[:5], *VALID])
    if batch:
        ing: Ingestor = BatchIngestor()
        recs = ing.feed_batch(lines)  # type: ignore[attr-defined]
    else:
        ing = Ingestor()
        recs = [r for line in lines for r in ing.feed(line)]
    recs += ing.flush()
    assert sorted({r.mmsi for r in recs}) == sorted(VALID)
    assert sum(type(r) is Position for r in recs) == len(VALID)
    assert sum(type(r) is StaticData for r in recs) == len(VALID)
    c = ing.counters
    assert c.bad_mmsi == 5 * 3  # each refused MMSI's report and two-line type 5
    assert c.outcomes() == c.lines
    assert all(m not in ing.registry for m in INVALID[:5])


def test_csv_rows_under_the_same_rule(tmp_path: Path) -> None:
    path = tmp_path / "noaa.csv"
    rows = ["MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName"]
    rows += [f"{m},2023-01-01T00:00:0{i},-22.9,-43.1,1,1,1,X" for i, m in enumerate([0, 12345])]
    rows += ["710000001,2023-01-01T00:00:05,-22.9,-43.1,1,1,1,X"]
    path.write_text("\n".join(rows) + "\n")
    counters = IngestCounters()
    recs = list(read_csv(path, counters=counters))
    assert {r.mmsi for r in recs} == {710_000_001}
    assert (counters.bad_mmsi, counters.bad_row) == (2, 0)
