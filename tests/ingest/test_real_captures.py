"""Real captures nobody on the project wrote (gpsd, libais): nothing pyais decodes is lost.

Sources and licences of the files are in tests/fixtures/README.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyais import decode as pyais_decode
from pyais.stream import FileReaderStream

from vigia.ingest.decoder import Ingestor
from vigia.ingest.jsonout import record_to_json
from vigia.ingest.records import Position, RawLine, Record, StaticData
from vigia.ingest.sources import FileSource

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NOW = 1_800_000_000.0  # receipt time of the tests' lines (2027), after every capture
#: the types that make records
JUDGED_TYPES = (1, 2, 3, 4, 5, 14, 18, 19, 21, 24, 27)
#: senders in the captures with no ITU-R M.585 form (read by hand: 8 then MID 996, a
#: 94 prefix, a 90 prefix): decoded by pyais, skipped by Vigia as ``bad_mmsi``
NO_IDENTITY = frozenset({899_646_391, 944_561_759, 903_670_001})


def kept(messages: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The (type, mmsi) pairs of decoded messages that Vigia keeps as records."""
    return {(t, m) for t, m in messages if t in JUDGED_TYPES and m not in NO_IDENTITY}


def ingest(name: str) -> tuple[Ingestor, list[Record]]:
    ing = Ingestor()
    recs = list(ing.feed_many(FileSource(FIXTURES / name).lines()))
    recs += ing.flush()
    return ing, recs


def lines(ing: Ingestor, *texts: str, source: str = "feed", peer: str = "") -> list[Record]:
    out: list[Record] = []
    for text in texts:
        out += ing.feed(RawLine(text, NOW, source, peer))
    return out


def pyais_mmsi(*tagged: str) -> int:
    """The MMSI pyais decodes from the AIS sentences of tagged lines (tag blocks cut)."""
    sentences = [t.rsplit("\\", 1)[-1] for t in tagged]
    return int(pyais_decode(*[s for s in sentences if s.startswith("!")]).mmsi)


def pyais_messages(name: str) -> list[tuple[int, int]]:
    """(type, mmsi) of every message pyais decodes from the file, in order."""
    out = []
    for msg in FileReaderStream(str(FIXTURES / name)):
        d = msg.decode()
        out.append((int(d.msg_type), int(d.mmsi)))
    return out


# libais tag_block_test.py: a USCG group of an AIS type 5 in two sentences and a $SAVSI
# signal report; c: and s: only on the group's first line
VSI_GROUP = (
    r"\g:1-3-6417,n:4504,s:D13MN-PS-MTEBS1,c:1428451206*07\!SAVDM,2,1,7,B,59NSGLD2Cn5@CDLkN21Tu8dL5@F2222222222216EHMC=4w`0L@hEPC`8888,0*1A",
    r"\g:2-3-6417,n:4505*24\!SAVDM,2,2,7,B,88888888880,2*3A",
    r"\g:3-3-6417,n:4506*26\$SAVSI,D13MN-PS-MTEBS1,7,000006.831194,256,-97,19*67",
)
# a single-sentence position in a two-line group with an $ARVSI
VSI_POS = (
    r"\g:1-2-89372,n:192113,s:r003669946,c:1428451252*41\!AIVDM,1,1,,A,181520h000JstMLHbOFc1CUd0<07,0*35",
    r"\g:2-2-89372,n:192114*1C\$ARVSI,r003669946,,000052.59031009,1972,-108,0*1B",
)
# NAIS/USCG lines with their trailing fields: signal, slot, station, Unix time
USCG_POS = (
    "!AIVDM,1,1,,B,3592u`iP03GWEflBRosm0Ov@0000,0*70,d-107,S0297,t161407.00,"
    "T07.92201452,r11CSDO1,1429287248"
)


def test_group_with_a_vsi_member_decodes_the_message_with_its_signal() -> None:
    ing = Ingestor()
    recs = lines(ing, *VSI_GROUP)
    (static,) = recs
    assert isinstance(static, StaticData) and static.msg_type == 5
    assert static.mmsi == pyais_mmsi(*VSI_GROUP)
    assert static.t == 1428451206.0  # c: of the first line, for the whole group
    assert static.source == "D13MN-PS-MTEBS1"
    c = ing.counters
    assert c.decoded_lines == 3 and c.orphan_fragment == 0 and ing.pending_fragments == 0


def test_vsi_signal_and_slot_stay_on_the_position() -> None:
    ing = Ingestor()
    (pos,) = lines(ing, *VSI_POS)
    assert isinstance(pos, Position) and pos.mmsi == pyais_mmsi(*VSI_POS)
    assert pos.t == 1428451252.0 and pos.source == "r003669946"
    assert pos.extras == {"slot": 1972.0, "signal_dbm": -108.0, "snr_db": 0.0}
    assert pos.raw == VSI_POS
    # vigia decode shows them; a report without them has no "extras" key at all
    assert record_to_json(pos)["extras"] == pos.extras
    (plain,) = lines(Ingestor(), VSI_POS[0].rsplit("\\", 1)[-1])
    assert "extras" not in record_to_json(plain)


def test_a_group_that_loses_its_vsi_still_gives_its_message_at_the_end() -> None:
    ing = Ingestor()
    assert lines(ing, *VSI_GROUP[:2]) == []  # the signal report never comes (UDP loss)
    (static,) = ing.flush()
    assert static.mmsi == pyais_mmsi(*VSI_GROUP)
    assert ing.counters.decoded_lines == 2 and ing.counters.orphan_fragment == 0


def test_second_line_without_c_is_joined_not_orphaned() -> None:
    # libais nmea_queue_test.py: the second line carries only g: and n:
    ing = Ingestor()
    group = (
        r"\g:1-2-27300,n:636994,s:b003669710,c:1428621738*5F\!SAVDM,2,1,2,B,55Mw@A7J1adAL@?;7WPl58F0U<h4pB222222220t1PN5553fN4g?`4iSp5Rc,0*26",
        r"\g:2-2-27300,n:636995*15\!SAVDM,2,2,2,B,iP`88888880,2*5E",
    )
    (static,) = lines(ing, *group)
    assert isinstance(static, StaticData) and static.mmsi == pyais_mmsi(*group)
    assert static.t == 1428621738.0 and static.source == "b003669710"
    assert ing.counters.orphan_fragment == 0


@pytest.mark.parametrize(
    "name",
    [
        "gpsd_ais_nmea.log",
        "gpsd_ais_raw_messages.log",
        "libais_tagblock_orbcomm.nmea",
        "libais_uscg.aivdm",
        "libais_uscg_multiline.nmea",
    ],
)
def test_every_message_pyais_decodes_from_a_capture_is_kept_or_named(name: str) -> None:
    ing, recs = ingest(name)
    want = pyais_messages(name)
    c = ing.counters
    assert c.orphan_fragment == 0 and c.undecodable == 0 and c.internal_error == 0
    # every message pyais decodes is a record, a valid type no rule uses, or a sender
    # with no identity
    assert c.messages == len(want)
    got = [(r.msg_type, r.mmsi) for r in recs]
    assert sorted(set(got)) == sorted(kept(want))


def test_types_no_rule_uses_are_not_counted_as_errors() -> None:
    ing, _ = ingest("libais_uscg_multiline.nmea")  # types 6, 8, 17, 20, 26 ... (real)
    c = ing.counters
    assert c.unsupported_type > 0
    from vigia.ingest.counters import BAD_REASONS, NOT_USED

    assert "unsupported_type" in NOT_USED and "unsupported_type" not in BAD_REASONS
    assert "non_ais" in NOT_USED  # a receiver's own GPS sentences are normal traffic
    # the only errors: the lines of the three messages whose senders have no identity
    assert c.bad_mmsi == 6
    assert sum(getattr(c, k) for k in BAD_REASONS) == c.bad_mmsi


def test_gpsd_capture_outcomes_add_up() -> None:
    ing, recs = ingest("gpsd_ais_nmea.log")
    c = ing.counters
    assert c.outcomes() == c.lines
    assert c.non_ais > 300  # the GPS fixes around the AIS, not errors
    assert len(recs) == 45 and c.untimed == c.messages  # this capture carries no time


def test_uscg_trailing_fields_give_time_station_and_signal() -> None:
    ing = Ingestor()
    (pos,) = lines(ing, USCG_POS)
    assert isinstance(pos, Position)
    assert pos.t == 1429287248.0 and pos.source == "r11CSDO1"
    assert pos.extras == {"signal_dbm": -107.0, "slot": 297.0}
    ing2, recs = ingest("libais_uscg.aivdm")
    assert ing2.counters.untimed == 0 and recs
    assert all(1_200_000_000 < r.t < 1_400_000_000 for r in recs)


def test_pghp_header_times_the_next_message() -> None:
    ing, recs = ingest("pyais_timestamped.ais")  # pyais's test capture (Gatehouse)
    # the first message follows a $PGHP of 2008-05-09 00:00:00.010; the others do not
    assert recs[0].t == pytest.approx(1210291200.01)
    assert ing.counters.untimed == 3


def test_orbcomm_groups_interleaved_with_another_message() -> None:
    ing, recs = ingest("libais_tagblock_orbcomm.nmea")
    assert [r.msg_type for r in recs] == [1, 5, 1, 1]
    assert {r.source for r in recs} >= {"rORBCOMM008", "rORBCOMM104"}
    assert ing.counters.orphan_fragment == 0
