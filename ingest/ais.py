"""From an assembled AIS payload to typed records, with pyais doing the bit decoding.

pyais decodes the 6-bit payload into its message classes; this module turns those into
Vigia's records and replaces "not available" and impossible values with None.
"""

from __future__ import annotations

import re
from typing import Any

from pyais import bit_vector
from pyais.exceptions import AISBaseException
from pyais.messages import MSG_CLASS

from vigia.ingest.records import (
    AidToNavigation,
    BaseStation,
    Position,
    Record,
    SafetyBroadcast,
    StaticData,
)
from vigia.ingest.units import lat_or_none, lon_or_none

#: characters allowed in an armoured payload (ITU-R M.1371 / IEC 61162: '0'..'W', '`'..'w')
PAYLOAD_CHARS = "".join(chr(c) for c in range(48, 88)) + "".join(chr(c) for c in range(96, 120))
# pyais maps a character outside the alphabet to 0 without a word ("upstream validation
# is expected"), so the payload is checked here; a compiled class search is the cheapest
# check CPython offers (faster than str.strip with the alphabet or a set)
_BAD_CHAR = re.compile(f"[^{re.escape(PAYLOAD_CHARS)}]")
_ARMOR = {ch: (ord(ch) - 48 if ord(ch) < 88 else ord(ch) - 56) for ch in PAYLOAD_CHARS}

#: message types that produce records, with the fewest bits that still carry the fields used
MIN_BITS: dict[int, int] = {
    1: 137,
    2: 137,
    3: 137,
    4: 134,
    5: 270,
    14: 40,
    18: 133,
    19: 301,
    21: 219,
    24: 160,
    27: 94,
}


class UnsupportedType(Exception):
    """The message type is valid AIS but produces no record."""


class Undecodable(Exception):
    """The payload cannot be decoded (bad characters, too short, bad part number)."""


def message_type(payload: str) -> int:
    """The AIS message id (first 6 bits) of an armoured payload, or -1."""
    return _ARMOR.get(payload[:1], -1)


def payload_mmsi(payload: str) -> int:
    """The MMSI (bits 8 to 37) of an armoured payload whose first 7 characters are
    valid: read without decoding the message, where a message is only queued."""
    bits = 0
    for ch in payload[1:7]:
        bits = (bits << 6) | _ARMOR[ch]
    return (bits >> 4) & 0x3FFF_FFFF  # the 36 bits read are 6 to 41


def _text(v: str | None) -> str | None:
    if not v:
        return None
    v = v.strip()
    return v or None


def _dims(a: int | None, b: int | None, c: int | None, d: int | None) -> tuple[Any, Any]:
    """Length A+B and beam C+D in metres; 0 in a sum means not available."""
    length = float(a + b) if a is not None and b is not None and a + b > 0 else None
    beam = float(c + d) if c is not None and d is not None and c + d > 0 else None
    return length, beam


def _int_or_none(v: Any) -> int | None:
    return None if v is None else int(v)


def decode_payload(
    payload: str, fill: int, t: float, source: str, raw: tuple[str, ...]
) -> list[Record]:
    """Decode one complete armoured payload into records.

    Raises :class:`UnsupportedType` or :class:`Undecodable`; nothing else escapes.
    """
    msg_id = _ARMOR.get(payload[:1], -1)
    min_bits = MIN_BITS.get(msg_id)
    if min_bits is None:
        if msg_id < 0:
            raise Undecodable("empty or invalid payload")
        raise UnsupportedType(msg_id)
    if _BAD_CHAR.search(payload) is not None:
        raise Undecodable("invalid payload character")
    nbits = len(payload) * 6 - fill
    if nbits < min_bits:
        raise Undecodable(f"type {msg_id} payload too short")
    try:
        # from_vector takes pyais's own fast path for 168-bit reports by itself
        m: Any = MSG_CLASS[msg_id].from_vector(bit_vector(payload.encode("ascii"), fill))
    except AISBaseException as exc:
        # pyais's own verdict on the payload; anything else is a bug and must surface
        raise Undecodable(str(exc)) from exc
    return _BUILDERS[msg_id](m, msg_id, t, source, raw)


def _position_a(m: Any, k: int, t: float, source: str, raw: tuple[str, ...]) -> list[Record]:
    return [_position(m, k, t, source, raw, int(m.status))]


def _position_b(m: Any, k: int, t: float, source: str, raw: tuple[str, ...]) -> list[Record]:
    # class B reports carry no navigational status
    return [_position(m, k, t, source, raw, None)]


def _position(
    m: Any, k: int, t: float, source: str, raw: tuple[str, ...], status: int | None
) -> Position:
    lon = m.lon
    lat = m.lat
    sog = m.speed
    cog = m.course
    hdg = m.heading
    return Position(
        m.mmsi,
        t,
        k,
        lon_or_none(lon),
        lat_or_none(lat),
        sog if sog < 102.25 else None,
        cog if 0.0 <= cog < 360.0 else None,
        hdg if hdg < 360 else None,
        status,
        m.accuracy,
        source,
        raw,
    )


def _type19(m: Any, k: int, t: float, source: str, raw: tuple[str, ...]) -> list[Record]:
    pos = _position_b(m, k, t, source, raw)
    length, beam = _dims(m.to_bow, m.to_stern, m.to_port, m.to_starboard)
    static = StaticData(
        m.mmsi,
        t,
        k,
        name=_text(m.shipname),
        ship_type=int(m.ship_type) or None,
        length_m=length,
        beam_m=beam,
        source=source,
        raw=raw,
    )
    return [*pos, static]


def _type27(m: Any, k: int, t: float, source: str, raw: tuple[str, ...]) -> list[Record]:
    sog = m.speed  # whole knots, 63 = not available
    cog = m.course  # whole degrees, 511 = not available
    return [
        Position(
            m.mmsi,
            t,
            k,
            lon_or_none(m.lon),
            lat_or_none(m.lat),
            sog if sog is not None and sog < 63 else None,
            cog if cog is not None and cog < 360 else None,
            None,
            int(m.status),
            m.accuracy,
            source,
            raw,
        )
    ]


def _type5(m: Any, k: int, t: float, source: str, raw: tuple[str, ...]) -> list[Record]:
    length, beam = _dims(m.to_bow, m.to_stern, m.to_port, m.to_starboard)
    return [
        StaticData(
            m.mmsi,
            t,
            k,
            name=_text(m.shipname),
            callsign=_text(m.callsign),
            imo=m.imo or None,
            ship_type=_int_or_none(m.ship_type) or None,
            length_m=length,
            beam_m=beam,
            destination=_text(m.destination),
            source=source,
            raw=raw,
        )
    ]


def _type24(m: Any, k: int, t: float, source: str, raw: tuple[str, ...]) -> list[Record]:
    if m.partno == 0:
        return [StaticData(m.mmsi, t, k, name=_text(m.shipname), part="A", source=source, raw=raw)]
    if hasattr(m, "to_bow"):
        length, beam = _dims(m.to_bow, m.to_stern, m.to_port, m.to_starboard)
    else:  # auxiliary craft carry the mothership's MMSI instead of dimensions
        length, beam = None, None
    return [
        StaticData(
            m.mmsi,
            t,
            k,
            callsign=_text(m.callsign),
            ship_type=_int_or_none(m.ship_type) or None,
            length_m=length,
            beam_m=beam,
            part="B",
            source=source,
            raw=raw,
        )
    ]


def _type21(m: Any, k: int, t: float, source: str, raw: tuple[str, ...]) -> list[Record]:
    name = (m.name or "") + (m.name_ext or "")
    return [
        AidToNavigation(
            m.mmsi,
            t,
            k,
            lon_or_none(m.lon),
            lat_or_none(m.lat),
            name=_text(name),
            aid_type=_int_or_none(m.aid_type),
            off_position=m.off_position,
            virtual=m.virtual_aid,
            source=source,
            raw=raw,
        )
    ]


def _type14(m: Any, k: int, t: float, source: str, raw: tuple[str, ...]) -> list[Record]:
    return [SafetyBroadcast(m.mmsi, t, k, (m.text or "").strip(), source=source, raw=raw)]


def _type4(m: Any, k: int, t: float, source: str, raw: tuple[str, ...]) -> list[Record]:
    return [
        BaseStation(m.mmsi, t, k, lon_or_none(m.lon), lat_or_none(m.lat), source=source, raw=raw)
    ]


_BUILDERS = {
    1: _position_a,
    2: _position_a,
    3: _position_a,
    4: _type4,
    5: _type5,
    14: _type14,
    18: _position_b,
    19: _type19,
    21: _type21,
    24: _type24,
    27: _type27,
}
