"""The ``vigia decode`` JSON object of a record (CONTRACT section 4)."""

from __future__ import annotations

from vigia.ingest.records import (
    AidToNavigation,
    BaseStation,
    Position,
    Record,
    SafetyBroadcast,
    StaticData,
    device_class,
    iso_utc,
)

# Types whose position report carries no navigational status / no heading
_NO_NAV_STATUS = frozenset((18, 19))
_NO_HEADING = frozenset((27,))


def record_to_json(rec: Record) -> dict[str, object]:
    """One decoded message as a JSON-ready dict; "not available" values are None."""
    out: dict[str, object] = {"mmsi": rec.mmsi, "msg_type": rec.msg_type, "t": iso_utc(rec.t)}
    if isinstance(rec, Position):
        out["lon"] = rec.lon
        out["lat"] = rec.lat
        out["sog"] = rec.sog
        out["cog"] = rec.cog
        if rec.msg_type not in _NO_HEADING:
            out["heading"] = rec.heading
        if rec.msg_type not in _NO_NAV_STATUS:
            out["nav_status"] = rec.nav_status
    elif isinstance(rec, StaticData):
        if rec.part != "B":
            out["name"] = rec.name
        if rec.part != "A":
            out["callsign"] = rec.callsign
            out["ship_type"] = rec.ship_type
            out["length_m"] = rec.length_m
            out["beam_m"] = rec.beam_m
        if rec.msg_type == 5:
            out["imo"] = rec.imo
            out["destination"] = rec.destination
        elif rec.msg_type == 19:
            out.pop("callsign", None)
        if rec.part is not None:
            out["part"] = rec.part
    elif isinstance(rec, AidToNavigation):
        out["lon"] = rec.lon
        out["lat"] = rec.lat
        out["name"] = rec.name
        out["aid_type"] = rec.aid_type
        out["off_position"] = rec.off_position
        out["virtual"] = rec.virtual
    elif isinstance(rec, SafetyBroadcast):
        out["text"] = rec.text
    elif isinstance(rec, BaseStation):
        out["lon"] = rec.lon
        out["lat"] = rec.lat
    out["source"] = rec.source
    out["device"] = device_class(rec.mmsi, rec.msg_type)
    return out
