"""Complete AIS sentences inside tag-block groups that never complete (their signal report,
or any other member, lost on the way) are decoded when the group times out or the input
ends, never dropped (issue 23). pyais, which decodes sentences without groups, is the
oracle of what each message is; both decoders (per line and batch) must agree.
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
from pathlib import Path

import pytest
from pyais import decode as pyais_decode
from pyais.stream import FileReaderStream

from scripts.fuzz_ais import compare
from tests.ingest.test_real_captures import kept
from tests.ingest.test_sockets import collect
from tests.support.nmea import tag_block
from vigia.ingest.batch import BatchIngestor
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import Position, RawLine, Record, StaticData
from vigia.ingest.sources import FileSource, UdpSource

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NOW = 1_800_000_000.0
# real sentences (libais and pyais test data): two single-sentence positions, a
# two-sentence type 5, and a real USCG signal report
POS_A = "!AIVDM,1,1,,A,181520h000JstMLHbOFc1CUd0<07,0*35"
POS_B = "!AIVDM,1,1,,B,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"
T5 = (
    "!AIVDM,2,1,1,A,55?MbV02;H;s<HtKR20EHE:0@T4@Dn2222222216L961O5Gf0NSQEp6ClRp8,0*1C",
    "!AIVDM,2,2,1,A,88888888880,2*25",
)
# the two sentences of the real group of 3 (libais) whose $SAVSI member is lost below
T5_SAVDM = (
    "!SAVDM,2,1,7,B,59NSGLD2Cn5@CDLkN21Tu8dL5@F2222222222216EHMC=4w`0L@hEPC`8888,0*1A",
    "!SAVDM,2,2,7,B,88888888880,2*3A",
)
VSI = "$ARVSI,r003669946,,000052.59031009,1972,-108,0*1B"
C_TIME = 1_428_451_252  # the group's c: (2015-04-08), on its first line only


def g(num: int, total: int, gid: int, first: bool = False) -> str:
    """A USCG-style group tag block: s: and c: on the first line only."""
    extra = f",s:r003669946,c:{C_TIME}" if first else ""
    return tag_block(f"g:{num}-{total}-{gid}{extra}")


def mmsi_of(*sentences: str) -> int:
    return int(pyais_decode(*sentences).mmsi)


def feed_all(
    ing: Ingestor, texts: list[str], step: float = 0.0, flush: bool = True
) -> list[Record]:
    out: list[Record] = []
    for i, text in enumerate(texts):
        line = RawLine(text, NOW + i * step, "feed")
        out += ing.feed_batch([line]) if isinstance(ing, BatchIngestor) else ing.feed(line)
    if flush:
        out += ing.flush()
    return out


DECODERS = [Ingestor, BatchIngestor]


@pytest.mark.parametrize("decoder", DECODERS, ids=lambda d: d.__name__)
def test_two_reports_sharing_a_group_whose_report_is_lost_come_out_at_the_end(
    decoder: type[Ingestor],
) -> None:
    ing = decoder()
    lines = [g(1, 3, 77, first=True) + POS_A, g(2, 3, 77) + POS_B]  # g:3-3 (VSI) lost
    assert feed_all(ing, lines, flush=False) == []  # the group may still complete
    recs = ing.flush()
    assert [r.mmsi for r in recs] == [mmsi_of(POS_A), mmsi_of(POS_B)]
    # both carry the group's time and station, which only its first line states
    assert [(r.t, r.source) for r in recs] == [(C_TIME, "r003669946")] * 2
    c = ing.counters
    assert c.orphan_fragment == 0 and c.decoded_lines == 2 and c.outcomes() == c.lines


@pytest.mark.parametrize("decoder", DECODERS, ids=lambda d: d.__name__)
def test_an_incomplete_group_is_decoded_by_the_first_line_after_its_timeout(
    decoder: type[Ingestor],
) -> None:
    # a live feed of single reports after the group: the group is given up (and its
    # report decoded) by the first line received after the timeout, not thousands later
    ing = decoder(fragment_timeout_s=60.0)
    recs = feed_all(ing, [g(1, 2, 78, first=True) + POS_A], flush=False)
    assert recs == []
    just_before = ing.feed(RawLine(POS_B, NOW + 60.0, "feed"))  # 60 s: not yet over
    assert [r.mmsi for r in just_before] == [mmsi_of(POS_B)]
    after = ing.feed(RawLine(POS_B, NOW + 60.5, "feed"))
    assert [r.mmsi for r in after] == [mmsi_of(POS_A), mmsi_of(POS_B)]
    assert after[0].t == C_TIME and ing.pending_fragments == 0
    assert ing.flush() == [] and ing.counters.orphan_fragment == 0


@pytest.mark.parametrize("decoder", DECODERS, ids=lambda d: d.__name__)
def test_a_report_and_a_two_part_message_in_one_incomplete_group(
    decoder: type[Ingestor],
) -> None:
    ing = decoder()
    lines = [g(1, 4, 79, first=True) + POS_A, g(2, 4, 79) + T5[0], g(3, 4, 79) + T5[1]]
    recs = feed_all(ing, lines)
    assert [type(r) for r in recs] == [Position, StaticData]
    assert [r.mmsi for r in recs] == [mmsi_of(POS_A), mmsi_of(*T5)]
    assert ing.counters.decoded_lines == 3 and ing.counters.orphan_fragment == 0


@pytest.mark.parametrize("decoder", DECODERS, ids=lambda d: d.__name__)
def test_half_a_message_in_an_incomplete_group_is_still_an_orphan(
    decoder: type[Ingestor],
) -> None:
    # the other side of the boundary: a report's lost second part cannot be invented
    ing = decoder()
    recs = feed_all(ing, [g(1, 3, 80, first=True) + POS_A, g(2, 3, 80) + T5[0]])
    assert [r.mmsi for r in recs] == [mmsi_of(POS_A)]
    c = ing.counters
    assert c.orphan_fragment == 1 and c.decoded_lines == 1 and c.outcomes() == c.lines


def test_a_complete_group_keeps_its_signal_report_on_its_message() -> None:
    (pos,) = feed_all(Ingestor(), [g(1, 2, 81, first=True) + POS_A, g(2, 2, 81) + VSI])
    assert isinstance(pos, Position)
    assert pos.extras == {"slot": 1972.0, "signal_dbm": -108.0, "snr_db": 0.0}


def test_two_senders_on_one_udp_port_with_the_same_group_id() -> None:
    """Two receivers number their groups alike; one loses its signal report. Each
    sender's group is its own: B's completes at once with B's signal, A's report comes
    out when A's group times out, and nothing is mixed or lost."""
    stop = threading.Event()
    src = UdpSource("127.0.0.1", 0, stop=stop)
    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sends = [
        (a, g(1, 2, 4242, first=True) + POS_A),  # A's g:2-2-4242 never comes
        (b, g(1, 2, 4242, first=True) + POS_B),
        (b, g(2, 2, 4242) + VSI),
    ]
    got: list[RawLine] = []
    try:
        th = threading.Thread(target=lambda: got.extend(collect(src.lines(), 4, stop)))
        th.start()
        time.sleep(0.1)
        for sock, text in sends:
            sock.sendto((text + "\r\n").encode(), src.address)
            time.sleep(0.02)
        time.sleep(0.6)  # past the test's 0.5 s group timeout
        b.sendto((POS_B + "\r\n").encode(), src.address)  # a plain report, no group
        th.join(15)
    finally:
        a.close()
        b.close()
    assert len(got) == 4 and len({line.peer for line in got}) == 2
    ing = Ingestor(fragment_timeout_s=0.5)
    per_line: list[list[Record]] = [ing.feed(line) for line in got]
    assert per_line[:2] == [[], []]
    (b_pos,) = per_line[2]  # B's group completes with B's own signal report
    assert b_pos.mmsi == mmsi_of(POS_B) and b_pos.extras is not None
    assert b_pos.extras["signal_dbm"] == -108.0
    # the next line after A's timeout gives A's report first, then its own message
    after = per_line[3]
    assert [r.mmsi for r in after] == [mmsi_of(POS_A), mmsi_of(POS_B)]
    assert after[0].t == C_TIME and after[0].extras is None  # not B's signal
    assert ing.flush() == []
    assert ing.counters.orphan_fragment == 0 and ing.counters.outcomes() == ing.counters.lines


def _pyais_messages(path: Path) -> list[tuple[int, int]]:
    return [(int(m.decode().msg_type), int(m.decode().mmsi)) for m in FileReaderStream(str(path))]


def _regroup(texts: list[str]) -> list[str]:
    """The capture as a USCG receiver with lossy signal reports would send it: each
    single-sentence AIS line without a tag block paired with the next in a three-member
    group whose third member (the signal report) is lost."""
    out: list[str] = []
    pending: str | None = None
    gid = 9000
    for text in texts:
        if not text.startswith("!") or ",1,1," not in text[:12]:
            out.append(text)
            continue
        if pending is None:
            pending = text
            continue
        gid += 1
        out += [g(1, 3, gid, first=True) + pending, g(2, 3, gid) + text]
        pending = None
    if pending is not None:
        out.append(pending)
    return out


CAPTURES = [
    "gpsd_ais_raw_messages.log",
    "libais_tagblock_groups.nmea",
    "libais_uscg.aivdm",
    "libais_uscg_multiline.nmea",
]


@pytest.mark.parametrize("name", CAPTURES)
@pytest.mark.parametrize("drop", ["vsi", "regroup"])
def test_real_captures_lose_nothing_when_groups_never_complete(name: str, drop: str) -> None:
    """Golden: the messages pyais decodes from a real capture, all kept when every signal
    report of its groups is lost (``vsi``), or when its reports come in groups whose
    report is lost too (``regroup``); both decoders agree field by field."""
    path = FIXTURES / name
    texts = [ln.text for ln in FileSource(path).lines() if "VSI," not in ln.text]
    if drop == "regroup":
        texts = _regroup(texts)
    want = _pyais_messages(path)
    ing = Ingestor()
    recs = feed_all(ing, texts)
    c = ing.counters
    assert c.messages == len(want)  # every message pyais decodes reached the decoder
    assert c.orphan_fragment == 0 and c.undecodable == 0 and c.internal_error == 0
    assert {(r.msg_type, r.mmsi) for r in recs} == kept(want)
    checked, differ = compare(texts, 64, NOW)
    assert checked["records"] >= len(recs) and sum(differ.values()) == 0


@pytest.mark.parametrize("batch", [False, True], ids=["per-line", "batch"])
def test_vigia_decode_writes_the_messages_of_groups_left_at_the_end(
    batch: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 35: the real capture with its signal reports lost ends with a group of 2 that
    has only its position line and a group of 3 whose $SAVSI never comes. Nothing after
    them gives them up, so the end of the input does; ``vigia decode`` counted their
    messages and wrote neither (5 of the 7 records pyais's messages make)."""
    from vigia.service.cli import decode

    path = tmp_path / "lost_vsi.nmea"
    texts = (FIXTURES / "libais_tagblock_groups.nmea").read_text().splitlines()
    path.write_text("\n".join(t for t in texts if "VSI," not in t) + "\n")
    # 0 bytes: every input is "large", so the batch decoder reads it
    monkeypatch.setattr(decode, "SMALL_INPUT_BYTES", 0 if batch else 1 << 30)
    assert decode.run(argparse.Namespace(files=[str(path)])) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(out) == 7
    # the last two, each with its own group's c: and s: (read off the lines by hand)
    # (1428451200 is 2015-04-08 00:00:00 UTC: 16,533 days of 86,400 s)
    assert [(o["msg_type"], o["mmsi"], o["t"], o["source"]) for o in out[-2:]] == [
        (1, mmsi_of(POS_A), "2015-04-08T00:00:52Z", "r003669946"),  # c:1428451252
        (5, mmsi_of(*T5_SAVDM), "2015-04-08T00:00:06Z", "D13MN-PS-MTEBS1"),  # c:1428451206
    ]
