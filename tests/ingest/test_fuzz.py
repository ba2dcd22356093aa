"""Property and fuzz tests: nothing in the input raises, and the counters add up.

The identity checked everywhere (documented in ingest/counters.py):
    lines == blank + not_nmea + bad_tag_block + truncated + bad_checksum + non_ais
             + orphan_fragment + undecodable + bad_mmsi + unsupported_type
             + decoded_lines + internal_error + pending fragments
and ``internal_error`` (a line that hit a bug in Vigia) must stay 0.
"""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.nmea import checksum, sentence, tag_block
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import AidToNavigation, BaseStation, Position, RawLine, Record

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REAL = [
    line.strip()
    for line in (FIXTURES / "pyais_nmea_data_sample.txt").read_text().splitlines()
    if line.startswith("!AIVDM,1,1")
]
PAYLOAD_ALPHABET = "".join(chr(c) for c in range(48, 88)) + "".join(chr(c) for c in range(96, 120))
# the type 5 halves in the fixture never have their second part; use known pairs
PAIRS = [
    (
        "55?MbV02;H;s<HtKR20EHE:0@T4@Dn2222222216L961O5Gf0NSQEp6ClRp8",
        "88888888880",
        2,
    ),
    (
        "538CQ>02A;h?D9QC800pu8@T>0P4l9E8L0000017Ah:;;5r50Ahm5;C0",
        "F@V@00000000000",
        2,
    ),
    ("E4eHJhPR37q0000000000000000KUOSc=rq4h00000a", "@20", 4),
]

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def with_checksum(body: str, lead: str = "!") -> str:
    return sentence(body, lead)


def run(lines: list[str], *, flush: bool = True) -> tuple[Ingestor, list[Record]]:
    ing = Ingestor()
    out = list(ing.feed_many(RawLine(t, 1000.0 + i, "fuzz") for i, t in enumerate(lines)))
    if flush:
        ing.flush()
    return ing, out


def check_identity(ing: Ingestor) -> None:
    c = ing.counters
    assert c.internal_error == 0
    assert c.lines == c.outcomes() + ing.pending_fragments
    assert c.messages <= c.sentences <= c.lines


def check_values(recs: list[Record]) -> None:
    for r in recs:
        assert 0 <= r.mmsi < 1 << 30
        if isinstance(r, Position | BaseStation | AidToNavigation):
            assert r.lon is None or -180 <= r.lon <= 180
            assert r.lat is None or -90 <= r.lat <= 90
        if isinstance(r, Position):
            assert r.sog is None or 0 <= r.sog <= 102.2
            assert r.cog is None or 0 <= r.cog < 360
            assert r.heading is None or 0 <= r.heading < 360


@SETTINGS
@given(st.lists(st.binary(max_size=120), max_size=30))
def test_random_bytes_never_raise(chunks: list[bytes]) -> None:
    lines = [c.decode("utf-8", "replace") for c in chunks]
    ing, recs = run(lines)
    check_values(recs)
    check_identity(ing)
    assert ing.counters.lines == len(lines)


@SETTINGS
@given(st.lists(st.text(alphabet="!$\\*,:0123456789ABVDMIOcsg-\n", max_size=90), max_size=30))
def test_nmea_shaped_garbage_never_raises(lines: list[str]) -> None:
    ing, recs = run(lines)
    check_identity(ing)
    check_values(recs)


@SETTINGS
@given(
    st.sampled_from(REAL),
    st.lists(
        st.tuples(st.integers(0, 200), st.sampled_from(PAYLOAD_ALPHABET + "@*!xyz~ ")),
        max_size=8,
    ),
    st.integers(-30, 30),
    st.sampled_from(["0", "2", "5", "6", "", "x"]),
)
def test_mutated_payloads_with_valid_checksum(
    real: str, edits: list[tuple[int, str]], resize: int, fill: str
) -> None:
    fields = real[1 : real.rindex("*")].split(",")
    payload = list(fields[5])
    for pos, ch in edits:
        if payload:
            payload[pos % len(payload)] = ch
    text = "".join(payload)
    text = text[: len(text) + resize] if resize < 0 else text + "w" * resize
    fields[5] = text
    fields[6] = fill
    line = with_checksum(",".join(fields))
    ing, recs = run([line])
    check_identity(ing)
    check_values(recs)
    c = ing.counters
    # a checksum-valid AIS sentence is always either decoded or skipped for a reason
    assert c.bad_checksum == 0 and c.not_nmea == 0
    outcome = c.decoded_lines + c.undecodable + c.unsupported_type + c.truncated + c.bad_mmsi
    assert outcome == 1


@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["c", "s", "g", "d", "n", "x", "cc", ""]),
            st.text(alphabet="0123456789-abc,:*\\", max_size=16),
        ),
        max_size=4,
    ),
    st.booleans(),
)
def test_odd_tag_blocks(items: list[tuple[str, str]], good_checksum: bool) -> None:
    body = ",".join(f"{k}:{v}" if k else v for k, v in items)
    cs = checksum(body) if good_checksum else 0x100
    line = f"\\{body}*{cs:02X}\\{REAL[0]}"
    ing, recs = run([line])
    check_identity(ing)
    c = ing.counters
    assert c.bad_tag_block + c.decoded_lines + c.not_nmea + c.truncated + c.bad_checksum == 1
    if not good_checksum:
        assert c.bad_tag_block == 1
    for r in recs:
        assert r.t >= 0


@SETTINGS
@given(st.randoms(use_true_random=False), st.integers(1, 12), st.booleans())
def test_fragments_out_of_order_all_reassemble(rnd: random.Random, n: int, grouped: bool) -> None:
    """n two-part messages with distinct sequence ids, parts shuffled: all n decode."""
    lines: list[str] = []
    for i in range(n):
        p1, p2, fill = PAIRS[i % len(PAIRS)]
        seq = str(i % 10)
        parts = [
            with_checksum(f"AIVDM,2,1,{seq},{'AB'[i // 10]},{p1},0"),
            with_checksum(f"AIVDM,2,2,{seq},{'AB'[i // 10]},{p2},{fill}"),
        ]
        if grouped:
            parts = [
                tag_block(f"g:{k + 1}-2-{i},c:{1700000000 + i}") + p for k, p in enumerate(parts)
            ]
        lines += parts
    rnd.shuffle(lines)
    ing, recs = run(lines, flush=False)
    check_identity(ing)
    assert ing.counters.messages == n
    assert ing.counters.decoded_lines == 2 * n
    assert ing.pending_fragments == 0
    assert ing.counters.orphan_fragment == 0
    assert len(recs) == n


@SETTINGS
@given(st.randoms(use_true_random=False), st.integers(0, 40))
def test_dropped_and_duplicated_lines_keep_counters_consistent(
    rnd: random.Random, drops: int
) -> None:
    lines = [
        with_checksum(f"AIVDM,2,{k},3,A,{p[k - 1]},{p[2] if k == 2 else 0}")
        for p in PAIRS
        for k in (1, 2)
    ]
    lines = lines * 3 + REAL[:20]
    rnd.shuffle(lines)
    for _ in range(drops):
        if lines:
            lines.pop(rnd.randrange(len(lines)))
    ing, recs = run(lines)
    check_identity(ing)
    check_values(recs)
    assert ing.pending_fragments == 0


def test_whole_fixture_file_counters_add_up() -> None:
    lines = (FIXTURES / "pyais_nmea_data_sample.txt").read_text().splitlines()
    ing, recs = run(lines)
    check_identity(ing)
    check_values(recs)
    assert ing.counters.records == len(recs) > 700
