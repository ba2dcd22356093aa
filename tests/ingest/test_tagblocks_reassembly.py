"""NMEA 4.0 tag blocks and multi-sentence reassembly, with and without g: grouping."""

from __future__ import annotations

import pytest

from tests.support.nmea import sentence, tag_block
from vigia.ingest.decoder import Ingestor
from vigia.ingest.nmea import TagBlockError, parse_tag_block
from vigia.ingest.records import Position, RawLine, Record, StaticData

POS = "!AIVDM,1,1,,B,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"  # MMSI 366053209
# a real two-part type 5 (EVER DIADEM, pyais's test data) and a second one (NORDIC HAMBURG)
T5_A = (
    "!AIVDM,2,1,1,A,55?MbV02;H;s<HtKR20EHE:0@T4@Dn2222222216L961O5Gf0NSQEp6ClRp8,0*1C",
    "!AIVDM,2,2,1,A,88888888880,2*25",
)
T5_B = (
    "!AIVDM,2,1,1,A,538CQ>02A;h?D9QC800pu8@T>0P4l9E8L0000017Ah:;;5r50Ahm5;C0,0*07",
    "!AIVDM,2,2,1,A,F@V@00000000000,2*35",
)


def tag(body: str) -> str:
    """A tag block with its checksum (tests.support.nmea, independent of ingest.nmea)."""
    return tag_block(body)


def feed(
    ing: Ingestor, *lines: str, at: float = 1_800_000_000.0, source: str = "feed"
) -> list[Record]:
    out: list[Record] = []
    for text in lines:
        out += ing.feed(RawLine(text, at, source))
    return out


def test_c_in_seconds_and_s_station() -> None:
    ing = Ingestor()
    (rec,) = feed(ing, tag("s:SAT-1,c:1700000000") + POS)
    assert rec.t == 1_700_000_000.0
    assert rec.source == "SAT-1"
    assert rec.raw == (tag("s:SAT-1,c:1700000000") + POS,)


def test_c_in_milliseconds_when_13_digits() -> None:
    ing = Ingestor()
    (rec,) = feed(ing, tag("c:1700000000123") + POS)
    assert rec.t == pytest.approx(1_700_000_000.123)
    assert rec.source == "feed"  # no s: keeps the source's own name


def test_without_tag_block_time_is_receipt() -> None:
    ing = Ingestor()
    (rec,) = feed(ing, POS, at=1234.5)
    assert rec.t == 1234.5


@pytest.mark.parametrize(
    "bad",
    [
        "\\c:1700000000*00\\",  # wrong checksum
        "\\c:1700000000\\",  # no checksum
        tag("c:17000000001"),  # 11 digits: neither seconds nor ms
        tag("c:abc"),
        tag("g:3-2-9"),  # sentence 3 of 2
        tag("s:"),
        tag("nonsense"),
        "\\s:x,c:1700000000",  # never closed
    ],
)
def test_bad_tag_blocks_are_counted_and_skipped(bad: str) -> None:
    ing = Ingestor()
    assert feed(ing, bad + POS) == []
    assert ing.counters.bad_tag_block == 1
    assert ing.counters.lines == 1


def test_parse_tag_block_fields() -> None:
    body = "g:2-3-1234,s:rORBCOMM000,c:1241544035"
    tb = parse_tag_block(tag_block(body).strip("\\"))
    assert (tb.group_num, tb.group_total, tb.group_id) == (2, 3, "1234")
    assert tb.station == "rORBCOMM000"
    assert tb.time == 1_241_544_035.0
    with pytest.raises(TagBlockError):
        parse_tag_block(body + "*00")


def test_two_parts_without_grouping_and_out_of_order() -> None:
    ing = Ingestor()
    assert feed(ing, T5_A[1]) == []  # part 2 first
    (rec,) = feed(ing, T5_A[0])
    assert isinstance(rec, StaticData) and rec.name == "EVER DIADEM"
    assert rec.raw == T5_A  # in part order, whatever the arrival order
    assert ing.counters.orphan_fragment == 0
    assert ing.pending_fragments == 0


def test_interleaved_messages_with_same_sequence_id_need_tag_groups() -> None:
    # Both messages use sequence id 1 on channel A; only their g: groups tell them apart.
    ing = Ingestor()
    lines = [
        tag("g:1-2-10,s:st,c:1700000000") + T5_A[0],
        tag("g:1-2-11,s:st,c:1700000001") + T5_B[0],
        tag("g:2-2-11") + T5_B[1],
        tag("g:2-2-10") + T5_A[1],
    ]
    recs = feed(ing, *lines)
    names = {r.name: r for r in recs if isinstance(r, StaticData)}
    assert set(names) == {"EVER DIADEM", "NORDIC HAMBURG"}
    # c: and s: come from the group's first line even though later lines carry neither
    assert names["EVER DIADEM"].t == 1_700_000_000.0
    assert names["NORDIC HAMBURG"].t == 1_700_000_001.0
    assert names["EVER DIADEM"].source == "st"
    assert ing.counters.orphan_fragment == 0


def test_same_interleaving_without_groups_loses_them_as_orphans() -> None:
    ing = Ingestor()
    recs = feed(ing, T5_A[0], T5_B[0], T5_B[1], T5_A[1])
    # B's first part supersedes A's; B completes, A's second part waits in vain
    assert [r.name for r in recs if isinstance(r, StaticData)] == ["NORDIC HAMBURG"]
    ing.flush()
    assert ing.counters.orphan_fragment == 2
    assert ing.counters.lines == ing.counters.outcomes()


def test_fragment_that_never_completes_times_out() -> None:
    ing = Ingestor(fragment_timeout_s=60.0)
    feed(ing, tag("c:1700000000") + T5_A[0])
    assert ing.pending_fragments == 1
    # 30 s later the part still waits; 61 s later it is given up and counted
    feed(ing, tag("c:1700000030") + POS)
    assert ing.pending_fragments == 1
    feed(ing, tag("c:1700000061") + T5_B[0])
    assert ing.counters.orphan_fragment == 1
    assert ing.pending_fragments == 1  # the new one
    # its second part arriving after the timeout does not resurrect the first message
    (rec,) = feed(ing, tag("c:1700000062") + T5_B[1])
    assert isinstance(rec, StaticData) and rec.name == "NORDIC HAMBURG"


def test_flush_counts_pending_as_orphans() -> None:
    ing = Ingestor()
    feed(ing, T5_A[0], POS)
    ing.flush()
    c = ing.counters
    assert (c.orphan_fragment, c.decoded_lines, c.lines) == (1, 1, 2)
    assert c.lines == c.outcomes()


def test_sources_do_not_mix_fragments() -> None:
    ing = Ingestor()
    out = feed(ing, T5_A[0], source="rx1")
    out += feed(ing, T5_A[1], source="rx2")
    assert out == []
    out = feed(ing, T5_A[1], source="rx1")
    assert len(out) == 1 and out[0].source == "rx1"


def test_duplicate_part_restarts_the_message() -> None:
    ing = Ingestor()
    out = feed(ing, T5_A[0], T5_A[0], T5_A[1])
    assert len(out) == 1
    assert ing.counters.orphan_fragment == 1


def test_position_record_type() -> None:
    (rec,) = feed(Ingestor(), POS)
    assert isinstance(rec, Position)


def test_pending_fragments_are_bounded() -> None:
    ing = Ingestor(max_pending_messages=50)
    body = "AIVDM,2,1,{seq},{ch},55?MbV02;H;s<HtKR20EHE:0@T4@Dn2222222216L961O5Gf0NSQEp6ClRp8,0"
    lines = []
    for i in range(200):
        b = body.format(seq=i % 10, ch="AB"[i % 2])
        lines.append(sentence(b))
    for i, line in enumerate(lines):
        ing.feed(RawLine(line, 1000.0, f"rx{i}"))
    assert ing.pending_fragments == 50
    assert ing.counters.orphan_fragment == 150
    assert ing.counters.lines == ing.counters.outcomes() + ing.pending_fragments
