"""Decoded values, field by field, against independently known values.

Sources of the expected values:
- "pyais": the assertions in pyais's own tests/test_decode.py (test name given per case);
  pyais's authors checked them against aislib and ais.tbsalling.dk.
- "bit layout": decoded in this file with a separate six-bit de-armouring and the field
  table of ITU-R M.1371-5 annex 8 (message 1), not with pyais.
"""

from __future__ import annotations

import pytest

from tests.support.nmea import sentence
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import (
    AidToNavigation,
    BaseStation,
    Position,
    RawLine,
    Record,
    SafetyBroadcast,
    StaticData,
)


def decode(*lines: str) -> tuple[list[Record], Ingestor]:
    ing = Ingestor()
    out: list[Record] = []
    for i, text in enumerate(lines):
        out += ing.feed(RawLine(text, 1_700_000_000.0 + i, "test"))
    return out, ing


def one(*lines: str) -> Record:
    recs, _ = decode(*lines)
    assert len(recs) == 1, recs
    return recs[0]


# --- by hand from the ITU-R M.1371 bit layout ---------------------------------------


def _bits(payload: str, fill: int) -> str:
    out = []
    for ch in payload:
        v = ord(ch) - 48
        if v > 40:
            v -= 8
        out.append(format(v, "06b"))
    s = "".join(out)
    return s[: len(s) - fill] if fill else s


def _u(bits: str, start: int, width: int) -> int:
    return int(bits[start : start + width], 2)


def _s(bits: str, start: int, width: int) -> int:
    v = _u(bits, start, width)
    return v - (1 << width) if v >= 1 << (width - 1) else v


def test_type1_matches_itu_bit_layout() -> None:
    line = "!AIVDM,1,1,,B,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"
    b = _bits("15M67FC000G?ufbE`FepT@3n00Sa", 0)
    assert len(b) == 168
    # ITU-R M.1371 message 1: id 0-5, repeat 6-7, MMSI 8-37, nav status 38-41, ROT 42-49,
    # SOG 50-59 (1/10 kn), accuracy 60, lon 61-88 (1/10000 min), lat 89-115, COG 116-127
    # (1/10 deg), true heading 128-136
    rec = one(line)
    assert isinstance(rec, Position)
    assert rec.msg_type == _u(b, 0, 6) == 1
    assert rec.mmsi == _u(b, 8, 30)
    assert rec.nav_status == _u(b, 38, 4)
    assert rec.sog == _u(b, 50, 10) / 10
    assert rec.accuracy is bool(_u(b, 60, 1))
    assert rec.lon == pytest.approx(_s(b, 61, 28) / 600_000, abs=1e-6)
    assert rec.lat == pytest.approx(_s(b, 89, 27) / 600_000, abs=1e-6)
    assert rec.cog == pytest.approx(_u(b, 116, 12) / 10)
    assert rec.heading == _u(b, 128, 9)
    # and the same numbers pyais's test_msg_type_1_a states
    assert (rec.mmsi, rec.nav_status, rec.sog, rec.lon, rec.lat, rec.cog, rec.heading) == (
        366053209,
        3,
        0.0,
        -122.341618,
        37.802118,
        219.3,
        1,
    )
    assert rec.raw == (line,)
    assert rec.t == 1_700_000_000.0
    assert rec.source == "test"


# --- from pyais's tests ------------------------------------------------------------


def test_type1_not_available_course_and_heading_become_none() -> None:
    # pyais test_msg_type_1_b: course == 360, heading == 511 (both "not available")
    rec = one("!AIVDM,1,1,,A,15NPOOPP00o?b=bE`UNv4?w428D;,0*24")
    assert isinstance(rec, Position)
    assert rec.mmsi == 367533950
    assert rec.nav_status == 0
    assert rec.sog == 0.0
    assert round(rec.lat or 0, 4) == 37.8084
    assert round(rec.lon or 0, 4) == -122.4082
    assert rec.cog is None
    assert rec.heading is None


def test_type3() -> None:
    # pyais test_msg_type_3
    rec = one("!AIVDM,1,1,,A,35NSH95001G?wopE`beasVk@0E5:,0*6F")
    assert isinstance(rec, Position)
    assert (rec.msg_type, rec.mmsi, rec.nav_status, rec.sog) == (3, 367581220, 5, 0.1)
    assert round(rec.lat or 0, 4) == 37.8107
    assert round(rec.lon or 0, 4) == -122.3343
    assert rec.cog == 254.2
    assert rec.heading == 217


def test_type18_all_not_available() -> None:
    # pyais test_empty_channel: speed 102.3, lon 181, lat 91, course 360, heading 511, from
    # MMSI 1000000000, ten digits: no station's identity, so skipped and counted
    recs, ing = decode("!AIVDO,1,1,,,B>qc:003wk?8mP=18D3Q3wgTiT;T,0*13")
    assert recs == [] and ing.counters.bad_mmsi == 1
    # the same payload with bits 8-37 set to MMSI 710000009, everything else unchanged
    rec = one("!AIVDO,1,1,,,B:U6uR@3wk?8mP=18D3Q3wgTiT;T,0*3B")
    assert isinstance(rec, Position)
    assert rec.msg_type == 18
    assert rec.mmsi == 710000009
    assert (rec.lon, rec.lat, rec.sog, rec.cog, rec.heading) == (None, None, None, None, None)
    assert rec.nav_status is None  # type 18 carries no navigational status


def test_type18_values() -> None:
    # pyais test_msg_type_18
    rec = one("!AIVDM,1,1,,A,B5NJ;PP005l4ot5Isbl03wsUkP06,0*76")
    assert isinstance(rec, Position)
    assert rec.mmsi == 367430530
    assert (rec.sog, rec.cog, rec.heading) == (0.0, 0.0, None)
    assert round(rec.lat or 0, 2) == 37.79
    assert round(rec.lon or 0, 2) == -122.27


def test_type5_two_parts_with_dimensions() -> None:
    # pyais test_msg_type_5: EVER DIADEM, 3FOF8, cargo (70), A=225 B=70 C=1 D=31, NEW YORK
    rec = one(
        "!AIVDM,2,1,1,A,55?MbV02;H;s<HtKR20EHE:0@T4@Dn2222222216L961O5Gf0NSQEp6ClRp8,0*1C",
        "!AIVDM,2,2,1,A,88888888880,2*25",
    )
    assert isinstance(rec, StaticData)
    assert rec.name == "EVER DIADEM"
    assert rec.callsign == "3FOF8"
    assert rec.ship_type == 70
    assert rec.length_m == 225 + 70
    assert rec.beam_m == 1 + 31
    assert rec.destination == "NEW YORK"
    assert len(rec.raw) == 2
    # the message time is the first part's
    assert rec.t == 1_700_000_000.0


def test_type19_gives_position_and_static() -> None:
    # pyais test_msg_type_19: CAPT.J.RIMES, cargo, A=5 B=21 C=4 D=4, heading 511
    recs, ing = decode("!AIVDM,1,1,,B,C5N3SRgPEnJGEBT>NhWAwwo862PaLELTBJ:V00000000S0D:R220,0*0B")
    pos, static = recs
    assert isinstance(pos, Position) and isinstance(static, StaticData)
    assert pos.mmsi == static.mmsi == 367059850
    assert (pos.sog, pos.lat, pos.cog, pos.heading) == (8.7, 29.543695, 335.9, None)
    assert (static.name, static.ship_type, static.length_m, static.beam_m) == (
        "CAPT.J.RIMES",
        70,
        26.0,
        8.0,
    )
    assert ing.registry.get(367059850) is not None


def test_type21_aid_to_navigation() -> None:
    # pyais test_msg_type_21: DFO2, reference point (1), lat 48.65457 lon -123.429155
    rec = one(
        "!AIVDM,2,1,7,B,E4eHJhPR37q0000000000000000KUOSc=rq4h00000a,0*4A",
        "!AIVDM,2,2,7,B,@20,4*54",
    )
    assert isinstance(rec, AidToNavigation)
    assert (rec.mmsi, rec.name, rec.aid_type) == (316021442, "DFO2", 1)
    assert (rec.lat, rec.lon) == (48.65457, -123.429155)
    assert rec.off_position is True
    assert rec.virtual is False


def test_type14_safety_broadcast() -> None:
    # pyais test_msg_type_14
    rec = one("!AIVDM,1,1,,A,>5?Per18=HB1U:1@E=B0m<L,2*51")
    assert isinstance(rec, SafetyBroadcast)
    assert (rec.mmsi, rec.text) == (351809000, "RCVD YR TEST MSG")


def test_type4_base_station() -> None:
    # pyais test_msg_type_4_a
    rec = one("!AIVDM,1,1,,A,403OviQuMGCqWrRO9>E6fE700@GO,0*4D")
    assert isinstance(rec, BaseStation)
    assert (rec.lon, rec.lat) == (-76.352362, 36.883767)


def test_type27_long_range() -> None:
    # pyais test_msg_type_27: not under command (2), lon 137.023333, lat 4.84, 57 kn, 167 deg
    rec = one("!AIVDM,1,1,,B,KC5E2b@U19PFdLbMuc5=ROv62<7m,0*16")
    assert isinstance(rec, Position)
    assert (rec.msg_type, rec.mmsi, rec.nav_status) == (27, 206914217, 2)
    assert (rec.lon, rec.lat, rec.sog, rec.cog, rec.heading) == (137.023333, 4.84, 57, 167, None)


def test_type24_parts_merge_in_registry() -> None:
    # part B: pyais test_msg_type_24 (MMSI 338091445, pleasure craft 37, no dimensions);
    # part A below is built for the same MMSI with the name "SEA DOG"
    part_b = "!AIVDM,1,1,,A,H52KMeDU653hhhi0000000000000,0*1A"
    part_a = _sentence(_armor([(24, 6), (0, 2), (338091445, 30), (0, 2)]) + _text("SEA DOG", 20))
    recs, ing = decode(part_b, part_a)
    b, a = recs
    assert isinstance(a, StaticData) and isinstance(b, StaticData)
    assert (b.part, b.ship_type, b.length_m) == ("B", 37, None)
    assert (a.part, a.name) == ("A", "SEA DOG")
    info = ing.registry.get(338091445)
    assert info is not None
    assert (info.name, info.ship_type) == ("SEA DOG", 37)


def test_bad_checksum_in_pyais_test_data_is_rejected() -> None:
    # pyais test_msg_with_more_that_82_chars_payload carries *35; the XOR of the body is 0x36
    recs, ing = decode(
        "!AIVDM,1,1,,B,53ktrJ82>ia4=50<0020<5=@Dhv0t8T@u<0000001PV854Si0;mR@CPH13p0hDm1C3h0000,2*35"
    )
    assert recs == []
    assert ing.counters.bad_checksum == 1


def test_a_payload_character_outside_the_alphabet_is_undecodable() -> None:
    # pyais turns such a character into 0 bits without a word; Vigia must refuse it, and
    # accept every character of the alphabet ('0'..'W', '`'..'w')
    good = "13aEOK?P00PD2wVMdLDRhgvL289?"
    framing = set(",*!$\\")  # these would break the sentence apart, not the payload
    for code in range(32, 127):
        ch = chr(code)
        if ch in framing:
            continue
        payload = good[:5] + ch + good[6:]
        recs, ing = decode(sentence(f"AIVDM,1,1,,A,{payload},0"))
        in_alphabet = "0" <= ch <= "W" or "`" <= ch <= "w"
        assert (len(recs) == 1) is in_alphabet, (ch, recs)
        assert ing.counters.undecodable == (0 if in_alphabet else 1), ch


# --- helpers to build sentences for fields pyais's tests do not cover ---------------


def _armor(fields: list[tuple[int, int]]) -> str:
    return "".join(format(v & ((1 << w) - 1), f"0{w}b") for v, w in fields)


def _text(s: str, chars: int) -> str:
    out = []
    for ch in s.ljust(chars, "@")[:chars]:
        v = ord(ch)
        out.append(format(v - 64 if v >= 64 else v, "06b"))
    return "".join(out)


def _sentence(bits: str) -> str:
    fill = (-len(bits)) % 6
    bits += "0" * fill
    payload = ""
    for i in range(0, len(bits), 6):
        v = int(bits[i : i + 6], 2)
        payload += chr(v + 48 if v < 40 else v + 56)
    return sentence(f"AIVDM,1,1,,A,{payload},{fill}")


def _type1(lon_min10k: int, lat_min10k: int, sog10: int, cog10: int, hdg: int) -> str:
    return _sentence(
        _armor(
            [
                (1, 6),
                (0, 2),
                (710000001, 30),
                (0, 4),
                (0, 8),
                (sog10, 10),
                (1, 1),
                (lon_min10k, 28),
                (lat_min10k, 27),
                (cog10, 12),
                (hdg, 9),
                (0, 6),
                (0, 2),
                (0, 3),
                (0, 1),
                (0, 19),
            ]
        )
    )


def test_not_available_and_impossible_values_become_none() -> None:
    rec = one(_type1(181 * 600_000, 91 * 600_000, 1023, 3600, 511))
    assert isinstance(rec, Position)
    assert (rec.lon, rec.lat, rec.sog, rec.cog, rec.heading) == (None, None, None, None, None)
    # impossible: lon 200, lat -95, COG 400.0, heading 400
    rec = one(_type1(200 * 600_000, -95 * 600_000, 5, 4000, 400))
    assert isinstance(rec, Position)
    assert (rec.lon, rec.lat, rec.cog, rec.heading) == (None, None, None, None)
    assert rec.sog == 0.5
    # the edges that are valid: 102.2 kn ("102.2 or more"), COG 359.9, heading 359
    rec = one(_type1(-43 * 600_000, -23 * 600_000, 1022, 3599, 359))
    assert isinstance(rec, Position)
    assert (rec.lon, rec.lat, rec.sog, rec.cog, rec.heading) == (-43.0, -23.0, 102.2, 359.9, 359)
