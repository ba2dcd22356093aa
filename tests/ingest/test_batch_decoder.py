"""The batch decoder gives what the per-line path (pyais) gives: every record, field by
field, in the same order, every counter and the vessel registry, on every real capture
in tests/fixtures, the golden and demo inputs, and fuzzed input.

The oracle is the per-line :class:`Ingestor`, whose bit decoding is pyais's; the hand
checks below pin the "not available" values and rounding rules to numbers worked out
from ITU-R M.1371 independently of both.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scripts.fuzz_ais import armor, compare, fuzz_lines
from vigia.ingest.batch import BatchIngestor
from vigia.ingest.batch_frame import frame
from vigia.ingest.decoder import Ingestor
from vigia.ingest.nmea import nmea_checksum
from vigia.ingest.records import Position, RawLine, StaticData
from vigia.ingest.sources import FileSource

ROOT = Path(__file__).resolve().parents[2]
INPUTS = sorted(
    p
    for p in [
        *(ROOT / "tests" / "fixtures").iterdir(),
        *(ROOT / "tests" / "golden").glob("*.nmea"),
        ROOT / "data" / "demo" / "rio_demo.nmea",
    ]
    # captures only: not the CSV feeds, the README, or the chart cells' folder (issue 40)
    if p.is_file() and p.suffix not in (".csv", ".md")
)
NOW = 1_800_000_000.0


def _differences(texts: list[str], block: int, **options: object) -> dict[str, int]:
    checked, differ = compare(texts, block, NOW, **options)
    assert checked["records"] > 0 or not texts
    return {k: v for k, v in differ.items() if v}


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
@pytest.mark.parametrize("block", [1, 5, 4096])
def test_every_capture_decodes_as_per_line(path: Path, block: int) -> None:
    """Records field by field, counters and registry agree on every real capture."""
    texts = [ln.text for ln in FileSource(path).lines()]
    assert texts
    assert _differences(texts, block) == {}


def test_two_sentence_messages_are_framed_whole() -> None:
    """With no part lost, the two-sentence messages are framed whole (beside the single
    sentences, hundreds of their lines go the column way), and still nothing differs."""
    texts = fuzz_lines(random.Random(5), 3000, lost_parts=False)
    checked, differ = compare(texts, 4096, NOW)
    assert sum(differ.values()) == 0
    fr = frame(texts, 1024)
    assert fr is not None
    assert len(fr.pairs) > 100
    assert checked["lines in columns"] >= len(fr.rows) + 2 * 50  # at least 50 pairs


def test_captures_are_mostly_decoded_in_columns() -> None:
    """The comparison above is not vacuous: the batch path does decode most lines."""
    texts = [ln.text for p in INPUTS for ln in FileSource(p).lines()]
    checked, differ = compare(texts, 4096, NOW)
    assert sum(differ.values()) == 0
    assert checked["lines in columns"] > 0.5 * len(texts)


def test_file_blocks_yield_what_lines_yield() -> None:
    """feed_blocks (the replay's path) gives feed_many's records and registry."""
    for path in INPUTS:
        a, b = Ingestor(), BatchIngestor()
        blocks = list(FileSource(path).blocks())  # one read: the same receipt times
        want = [repr(r) for r in a.feed_many(ln for block in blocks for ln in block)]
        got = [repr(r) for r in b.feed_blocks(blocks)]
        assert got == want, path.name
        assert dict(b.registry.items()) == dict(a.registry.items())
        assert b.counters == a.counters
        # the commands' path: texts and a receipt time per block, no RawLine
        c = BatchIngestor()
        texts = [([ln.text for ln in block], block[0].received_at) for block in blocks]
        assert [repr(r) for r in c.feed_texts(texts, str(path))] == want, path.name
        assert c.counters == a.counters


def test_statics_reach_the_registry_before_their_line_is_yielded() -> None:
    """A lazy consumer sees the registry as the per-line path leaves it: a type 5 is in
    the registry when its record is yielded, and not before."""
    path = ROOT / "tests" / "fixtures" / "pyais_nmea_data_sample.txt"
    b = BatchIngestor()
    seen = 0
    for rec in b.feed_blocks(FileSource(path).blocks()):
        if type(rec) is StaticData:
            assert rec.mmsi in b.registry
            seen += 1
    assert seen > 0


@given(st.integers(0, 2**32), st.sampled_from([1, 3, 64, 4096]), st.booleans())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_fuzzed_lines_decode_as_per_line(seed: int, block: int, lost_parts: bool) -> None:
    """Random payloads of every type, special values, odd framing: no difference."""
    texts = fuzz_lines(random.Random(seed), 300, lost_parts=lost_parts)
    assert _differences(texts, block) == {}
    assert _differences(texts, block, max_behind_s=1e8 + 50_000.0) == {}


def _line(bits: int, nbits: int) -> str:
    chars = (nbits + 5) // 6
    body = f"AIVDM,1,1,,A,{armor(bits << (chars * 6 - nbits), chars * 6)},{chars * 6 - nbits}"
    return f"!{body}*{nmea_checksum(body):02X}"


def _type1(lon: int, lat: int, speed: int, course: int, heading: int, status: int = 0) -> int:
    fields = [(1, 6), (0, 2), (710_000_001, 30), (status, 4), (128, 8), (speed, 10), (1, 1)]
    fields += [(lon & (1 << 28) - 1, 28), (lat & (1 << 27) - 1, 27), (course, 12)]
    fields += [(heading, 9), (0, 6), (0, 2), (0, 3), (0, 1), (0, 19)]
    v = 0
    for value, width in fields:
        v = v << width | value
    return v


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        # lon/lat in 1/10000 minute: -43.2 deg = -25,920,000; round(x / 600000, 6)
        ((-25_920_000, -13_740_000, 123, 2345, 234), (-43.2, -22.9, 12.3, 234.5, 234)),
        # 1 unit is 1/600000 deg = 1.6667e-6, rounded to 2e-6; -1 to -2e-6
        ((1, -1, 0, 0, 0), (2e-06, -2e-06, 0.0, 0.0, 0)),
        # "not available": lon 181, lat 91, speed 1023, course 3600, heading 511
        ((108_600_000, 54_600_000, 1023, 3600, 511), (None, None, None, None, None)),
        # last values in range: lon 180, lat 90, speed 102.2, course 359.9, heading 359
        ((108_000_000, 54_000_000, 1022, 3599, 359), (180.0, 90.0, 102.2, 359.9, 359)),
        # just out of range: heading 360, course 4095
        ((0, 0, 0, 4095, 360), (0.0, 0.0, 0.0, None, None)),
    ],
)
def test_hand_computed_values(
    raw: tuple[int, int, int, int, int], want: tuple[object, ...]
) -> None:
    """Values worked out by hand from the bit layout, the same on both paths."""
    text = _line(_type1(*raw), 168)
    for ing in (Ingestor(), BatchIngestor()):
        recs = (
            ing.feed_batch([RawLine(text, NOW, "t")])
            if isinstance(ing, BatchIngestor)
            else ing.feed(RawLine(text, NOW, "t"))
        )
        (p,) = recs
        assert type(p) is Position
        assert (p.lon, p.lat, p.sog, p.cog, p.heading) == want
        assert p.mmsi == 710_000_001 and p.accuracy is True and p.nav_status == 0


def test_a_cut_field_is_read_as_pyais_reads_it() -> None:
    """A type 24 part B of 160 bits (the least accepted) cuts to_starboard after 4 of its
    6 bits: pyais reads those 4 bits as the number; so must the columns."""
    v = 24
    for value, width in [(0, 2), (338_000_001, 30), (1, 2), (70, 8), (0, 18), (0, 4)]:
        v = v << width | value
    v = v << 20 | 0
    v = v << 42 | 0
    for value, width in [(10, 9), (20, 9), (3, 6), (0b1011, 4)]:  # to_starboard's top 4
        v = v << width | value
    text = _line(v, 160)
    want = Ingestor().feed(RawLine(text, NOW, "t"))
    b = BatchIngestor()
    got = b.feed_batch([RawLine(text, NOW, "t")])
    assert b.column_lines == 1
    assert [repr(r) for r in got] == [repr(r) for r in want]
    (s,) = got
    assert type(s) is StaticData
    assert (s.length_m, s.beam_m, s.ship_type, s.part) == (30.0, 3.0 + 0b1011, 70, "B")
