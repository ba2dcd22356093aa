"""Historical AIS from CSV exports: Danish Maritime Authority and NOAA MarineCadastre.

Both become the same Position / StaticData records as NMEA. Columns are matched by name,
case-insensitively. A row that cannot be read (no MMSI, bad time, a number that is not
one) is counted in ``bad_row`` and skipped, one whose MMSI is no station's identity in
``bad_mmsi``; static data is emitted only when it changes.
"""

from __future__ import annotations

import csv
import gzip
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from vigia.ingest.counters import IngestCounters
from vigia.ingest.errors import IngestError, InputFormatError
from vigia.ingest.mmsi import is_valid_mmsi
from vigia.ingest.records import AidToNavigation, BaseStation, Position, Record, StaticData
from vigia.ingest.units import lat_or_none, lon_or_none

DMA_REQUIRED = ("timestamp", "mmsi", "latitude", "longitude")
NOAA_REQUIRED = ("mmsi", "basedatetime", "lat", "lon")

# DMA writes navigational status and ship type as text (ITU-R M.1371 tables 45 and 53)
NAV_STATUS = {
    "under way using engine": 0,
    "at anchor": 1,
    "not under command": 2,
    "restricted maneuverability": 3,
    "restricted manoeuverability": 3,
    "restricted manoeuvrability": 3,
    "constrained by her draught": 4,
    "moored": 5,
    "aground": 6,
    "engaged in fishing": 7,
    "under way sailing": 8,
    "reserved for future amendment [hsc]": 9,
    "reserved for future amendment [wig]": 10,
    "power-driven vessel towing astern": 11,
    "power-driven vessel pushing ahead or towing alongside": 12,
    "reserved for future use": 13,
    "ais-sart": 14,
    "unknown value": 15,
    "unknown": 15,
    # NOAA MarineCadastre 2015-2017 spell them out too, with a few variants of their own
    "power-driven vessel pushing ahead": 12,
    "ais-sart (active)": 14,
    "undefined": 15,
    "not defined": 15,
    "default": 15,
}
SHIP_TYPE = {
    "wig": 20,
    "fishing": 30,
    "towing": 31,
    "towing long/wide": 32,
    "dredging": 33,
    "diving": 34,
    "military": 35,
    "sailing": 36,
    "pleasure": 37,
    "hsc": 40,
    "pilot": 50,
    "sar": 51,
    "tug": 52,
    "port tender": 53,
    "anti-pollution": 54,
    "law enforcement": 55,
    "spare 1": 56,
    "spare 2": 57,
    "medical": 58,
    "not party to conflict": 59,
    "passenger": 60,
    "cargo": 70,
    "tanker": 80,
    "other": 90,
}
_Getter = Callable[[str], str | None]
_UNKNOWN = frozenset(("", "unknown", "undefined", "n/a", "na", "nan", "none", "null"))


class _BadRow(ValueError):
    pass


class _BadMmsi(_BadRow):
    """A readable MMSI that is no station's identity: counted as NMEA's are."""


def _num(v: str | None) -> float | None:
    if v is None or v.strip().lower() in _UNKNOWN:
        return None
    try:
        return float(v)
    except ValueError as exc:
        raise _BadRow(f"not a number: {v!r}") from exc


def _int(v: str | None) -> int | None:
    f = _num(v)
    return None if f is None else int(f)


def _str(v: str | None) -> str | None:
    if v is None:
        return None
    v = v.strip()
    return None if v.lower() in _UNKNOWN else v


def _dma_time(v: str) -> float:
    try:
        date, _, clock = v.strip().partition(" ")
        d, m, y = date.split("/")
        hh, mm, ss = clock.split(":")
        return datetime(int(y), int(m), int(d), int(hh), int(mm), int(ss), tzinfo=UTC).timestamp()
    except ValueError as exc:
        raise _BadRow(f"bad timestamp {v!r}") from exc


def _iso_time(v: str) -> float:
    try:
        dt = datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise _BadRow(f"bad BaseDateTime {v!r}") from exc
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def _pos_fields(
    lon: float | None, lat: float | None, sog: float | None, cog: float | None, hdg: int | None
) -> tuple[float | None, float | None, float | None, float | None, int | None]:
    return (
        lon_or_none(lon),
        lat_or_none(lat),
        sog if sog is not None and 0.0 <= sog < 102.25 else None,
        cog if cog is not None and 0.0 <= cog < 360.0 else None,
        hdg if hdg is not None and 0 <= hdg < 360 else None,
    )


def _header_key(name: str) -> str:
    return name.strip().lstrip("#").strip().lower()


def _open(path: str) -> IO[str]:
    try:
        if path.endswith(".gz"):
            return gzip.open(path, "rt", encoding="utf-8-sig", errors="replace", newline="")
        return open(path, encoding="utf-8-sig", errors="replace", newline="")
    except OSError as exc:
        raise IngestError(f"cannot read {path}: {exc}") from exc


def read_csv(path: str | Path, *, counters: IngestCounters | None = None) -> Iterator[Record]:
    """Records from a DMA or NOAA MarineCadastre CSV export.

    Raises :class:`InputFormatError` at once when the header matches neither format.
    """
    path = str(path)
    f = _open(path)
    reader = csv.reader(f)
    try:
        header = next(reader)
    except (StopIteration, csv.Error, OSError, EOFError) as exc:
        f.close()
        raise InputFormatError(f"{path}: empty or unreadable CSV") from exc
    cols = {_header_key(h): i for i, h in enumerate(header)}
    missing_dma = [c for c in DMA_REQUIRED if c not in cols]
    missing_noaa = [c for c in NOAA_REQUIRED if c not in cols]
    if missing_dma and missing_noaa:
        f.close()
        raise InputFormatError(
            f"{path}: header matches neither the DMA export (missing "
            f"{', '.join(missing_dma)}) nor the NOAA MarineCadastre export (missing "
            f"{', '.join(missing_noaa)})"
        )
    fmt = "dma" if not missing_dma else "noaa"
    return _rows(f, reader, cols, fmt, counters if counters is not None else IngestCounters())


def _rows(
    f: IO[str],
    reader: Iterator[list[str]],
    cols: dict[str, int],
    fmt: str,
    c: IngestCounters,
) -> Iterator[Record]:
    last_static: dict[int, tuple[object, ...]] = {}
    parse = _dma_row if fmt == "dma" else _noaa_row
    with f:
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except (csv.Error, OSError, EOFError):
                c.lines += 1
                c.bad_row += 1
                continue
            if not any(cell.strip() for cell in row):
                continue
            c.lines += 1

            def get(name: str, row: list[str] = row) -> str | None:
                i = cols.get(name)
                return row[i] if i is not None and i < len(row) else None

            try:
                recs = parse(get)
            except _BadMmsi:
                c.bad_mmsi += 1
                continue
            except (_BadRow, ValueError, OverflowError):
                c.bad_row += 1
                continue
            out: list[Record] = []
            for r in recs:
                if isinstance(r, StaticData):
                    key = (r.name, r.callsign, r.imo, r.ship_type, r.length_m, r.beam_m)
                    if last_static.get(r.mmsi) == key or not any(v is not None for v in key):
                        continue
                    last_static[r.mmsi] = key
                out.append(r)
            c.messages += 1
            c.records += len(out)
            yield from out


def _status(v: str | None) -> int | None:
    """NOAA's status: a number (2018 on) or, in 2015-2017 exports, the words of ITU's
    table ("moored", "under way using engine"); words not in the table are None."""
    text = _str(v)
    if text is None:
        return None
    if text.replace(".", "", 1).isdigit():
        n = int(float(text))
        return n if 0 <= n <= 15 else None
    return NAV_STATUS.get(text.lower())


def _mmsi(v: str | None) -> int:
    m = _int(v)
    if m is None:
        raise _BadRow(f"bad MMSI {v!r}")
    if not is_valid_mmsi(m):
        raise _BadMmsi(f"MMSI {m} is no station's identity")
    return m


def _dma_row(get: _Getter) -> list[Record]:
    mmsi = _mmsi(get("mmsi"))
    t = _dma_time(get("timestamp") or "")
    mobile = (get("type of mobile") or "").strip().lower()
    src = "dma"
    lon, lat, sog, cog, hdg = _pos_fields(
        _num(get("longitude")),
        _num(get("latitude")),
        _num(get("sog")),
        _num(get("cog")),
        _int(get("heading")),
    )
    if mobile == "base station":
        return [BaseStation(mmsi, t, 4, lon, lat, source=src)]
    if mobile == "aton":
        return [AidToNavigation(mmsi, t, 21, lon, lat, name=_str(get("name")), source=src)]
    class_b = mobile == "class b"
    status = _str(get("navigational status"))
    nav = None if status is None or class_b else NAV_STATUS.get(status.lower())
    pos = Position(mmsi, t, 18 if class_b else 1, lon, lat, sog, cog, hdg, nav, source=src)
    length = _num(get("length"))
    beam = _num(get("width"))
    ship = _str(get("ship type"))
    static = StaticData(
        mmsi,
        t,
        24 if class_b else 5,
        name=_str(get("name")),
        callsign=_str(get("callsign")),
        imo=_int(get("imo")) or None,
        ship_type=SHIP_TYPE.get(ship.lower()) if ship else None,
        length_m=length or None,
        beam_m=beam or None,
        destination=_str(get("destination")),
        source=src,
    )
    return [pos, static]


def _noaa_row(get: _Getter) -> list[Record]:
    mmsi = _mmsi(get("mmsi"))
    t = _iso_time(get("basedatetime") or "")
    class_b = (get("transceiverclass") or "").strip().upper() == "B"
    lon, lat, sog, cog, hdg = _pos_fields(
        _num(get("lon")), _num(get("lat")), _num(get("sog")), _num(get("cog")), _int(get("heading"))
    )
    status = None if class_b else _status(get("status"))
    pos = Position(mmsi, t, 18 if class_b else 1, lon, lat, sog, cog, hdg, status, source="noaa")
    imo_text = (_str(get("imo")) or "").upper().removeprefix("IMO")
    static = StaticData(
        mmsi,
        t,
        24 if class_b else 5,
        name=_str(get("vesselname")),
        callsign=_str(get("callsign")),
        imo=int(imo_text) if imo_text.isdigit() and int(imo_text) else None,
        ship_type=_int(get("vesseltype")) or None,
        length_m=_num(get("length")) or None,
        beam_m=_num(get("width")) or None,
        source="noaa",
    )
    return [pos, static]
