"""Typed records that ingestion produces and every later stage consumes.

Times are Unix seconds (UTC) as floats. Values AIS marks "not available" are None.
Records are plain slotted dataclasses so they serialise cheaply onto a message bus.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from functools import cache
from typing import Any


@dataclass(slots=True)  # not frozen: a frozen dataclass is built 3x slower, once per line
class RawLine:
    """One line as a source delivered it (never changed after it is made)."""

    text: str
    received_at: float
    source: str
    # who sent it within the source (a UDP sender's address, a TCP connection's number):
    # fragments of one message are only ever joined within one source and one peer
    peer: str = ""


@dataclass(slots=True)
class Position:
    """A position report (types 1, 2, 3, 18, 19, 27) or a CSV row."""

    mmsi: int
    t: float
    msg_type: int
    lon: float | None
    lat: float | None
    sog: float | None = None
    cog: float | None = None
    heading: int | None = None
    nav_status: int | None = None
    accuracy: bool | None = None
    source: str = ""
    raw: tuple[str, ...] = ()
    # what the receiver said of the signal, when it said it (USCG trailing fields, a
    # $xxVSI sentence in the tag group): ``signal_dbm``, ``snr_db``, ``slot``
    extras: dict[str, float] | None = None


@dataclass(slots=True)
class StaticData:
    """Static and voyage data (type 5, type 24 A/B, type 19's static part, CSV)."""

    mmsi: int
    t: float
    msg_type: int
    name: str | None = None
    callsign: str | None = None
    imo: int | None = None
    ship_type: int | None = None
    length_m: float | None = None
    beam_m: float | None = None
    destination: str | None = None
    part: str | None = None  # "A" / "B" for type 24
    source: str = ""
    raw: tuple[str, ...] = ()


@dataclass(slots=True)
class AidToNavigation:
    """An aid-to-navigation report (type 21)."""

    mmsi: int
    t: float
    msg_type: int
    lon: float | None
    lat: float | None
    name: str | None = None
    aid_type: int | None = None
    off_position: bool | None = None
    virtual: bool | None = None
    source: str = ""
    raw: tuple[str, ...] = ()


@dataclass(slots=True)
class SafetyBroadcast:
    """A safety-related broadcast (type 14)."""

    mmsi: int
    t: float
    msg_type: int
    text: str
    source: str = ""
    raw: tuple[str, ...] = ()


@dataclass(slots=True)
class BaseStation:
    """A base-station report (type 4)."""

    mmsi: int
    t: float
    msg_type: int
    lon: float | None
    lat: float | None
    source: str = ""
    raw: tuple[str, ...] = ()


Record = Position | StaticData | AidToNavigation | SafetyBroadcast | BaseStation


@dataclass(slots=True)
class VesselInfo:
    """What the registry knows of one vessel, merged from its static reports."""

    mmsi: int
    name: str | None = None
    callsign: str | None = None
    imo: int | None = None
    ship_type: int | None = None
    length_m: float | None = None
    beam_m: float | None = None
    destination: str | None = None
    updated_at: float | None = None
    extra: dict[str, object] = field(default_factory=dict)


def flag_mid(mmsi: int) -> int | None:
    """Maritime Identification Digits (flag) of a ship-station MMSI, else None."""
    if 200_000_000 <= mmsi <= 799_999_999:
        return mmsi // 1_000_000
    return None


def device_class(mmsi: int, msg_type: int | None = None) -> str:
    """Kind of transmitter: ``sart``, ``mob``, ``epirb``, ``base_station``, ``aton``,
    ``sar_aircraft`` or ``vessel``."""
    prefix = mmsi // 1_000_000
    if prefix == 970:
        return "sart"
    if prefix == 972:
        return "mob"
    if prefix == 974:
        return "epirb"
    # base stations are 00MIDxxxx, i.e. below 10,000,000 as an integer
    if msg_type == 4 or 0 < mmsi < 10_000_000:
        return "base_station"
    if msg_type == 21 or mmsi // 10_000_000 == 99:
        return "aton"
    if msg_type == 9 or mmsi // 1_000_000 == 111:
        return "sar_aircraft"
    return "vessel"


def iso_utc(t: float) -> str:
    """ISO 8601 UTC with a ``Z`` and millisecond precision when needed."""
    dt = datetime.fromtimestamp(t, tz=UTC)
    if dt.microsecond:
        return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return dt.isoformat(timespec="seconds").replace("+00:00", "Z")


# fields every JSON view shows as ISO 8601 UTC (records keep Unix seconds)
TIME_FIELDS = frozenset({"t", "updated_at"})


@cache
def field_names(cls: type, without: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """A record class's field names in declaration order, less ``without``: the one
    source every row, journal entry and JSON view of a record is derived from."""
    return tuple(f.name for f in fields(cls) if f.name not in without)


def record_values(rec: Any, without: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A record's fields (storage form: times as Unix seconds), less ``without``."""
    names: tuple[str, ...] = field_names(type(rec), without)  # type: ignore[arg-type]
    return {n: getattr(rec, n) for n in names}


def record_json(rec: Any, without: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A record's fields as JSON (times as ISO 8601 UTC), less ``without``; ``raw``
    sentences are evidence, never part of a record's view."""
    out = record_values(rec, without | {"raw"})
    if "extras" in out and out["extras"] is None:  # signal extras appear only when heard
        del out["extras"]
    for k in TIME_FIELDS & out.keys():
        if out[k] is not None:
            out[k] = iso_utc(out[k])
    return out
