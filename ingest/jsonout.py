"""The ``vigia decode`` JSON object of a record (docs/contract.md, section 4)."""

from __future__ import annotations

from vigia.ingest.records import Record, StaticData, device_class, iso_utc, record_json

# what each record type's message carries beyond mmsi, msg_type and t (the rest of its
# fields are bookkeeping: source and raw are added or dropped below)
_BOOKKEEPING = frozenset({"mmsi", "msg_type", "t", "source", "raw", "accuracy"})
# Types whose position report carries no navigational status / no heading
_NOT_CARRIED: dict[int, frozenset[str]] = {
    18: frozenset({"nav_status"}),
    19: frozenset({"nav_status"}),
    27: frozenset({"heading"}),
}
# type 24 part A carries only the name; part B everything else; type 19 no callsign
_STATIC_PART = {
    "A": frozenset({"callsign", "ship_type", "length_m", "beam_m"}),
    "B": frozenset({"name"}),
}
_STATIC_NOT_TYPE5 = frozenset({"imo", "destination"})


def _not_carried(rec: Record) -> frozenset[str]:
    drop = _BOOKKEEPING | _NOT_CARRIED.get(rec.msg_type, frozenset())
    if isinstance(rec, StaticData):
        drop |= _STATIC_PART.get(rec.part or "", frozenset())
        if rec.msg_type != 5:
            drop |= _STATIC_NOT_TYPE5
        if rec.msg_type == 19:
            drop |= {"callsign"}
        if rec.part is None:
            drop |= {"part"}
    return drop


def record_to_json(rec: Record) -> dict[str, object]:
    """One decoded message as a JSON-ready dict; "not available" values are None. The
    fields come from the record's dataclass, so a new field shows up here by itself."""
    out: dict[str, object] = {"mmsi": rec.mmsi, "msg_type": rec.msg_type, "t": iso_utc(rec.t)}
    out.update(record_json(rec, _not_carried(rec)))
    out["source"] = rec.source
    out["device"] = device_class(rec.mmsi, rec.msg_type)
    return out
