"""What real receivers and archives say around an AIS sentence: time, station, signal.

- USCG / NAIS trailing fields after the checksum:
  ``!AIVDM,...,0*hh,d-117,S1760,t205246.00,T46.932137,r003669930,1429046147``
  (``d`` signal strength in dBm, ``S`` slot, ``rXXX``/``bXXX``/``DXXX`` the station, then
  the Unix time the station stamped; some archives add a second time, which is ignored).
- Gatehouse ``$PGHP,1,yyyy,mm,dd,hh,mm,ss,ms,...`` headers, which give the time of the AIS
  message on the next line.
- ``$xxVSI,station,seq,hhmmss.ss,slot,dBm,snr`` signal reports that shore networks put in
  the tag-block group of an AIS message.

Nothing here raises: a field that does not parse is simply not used.
"""

from __future__ import annotations

from datetime import UTC, datetime

from vigia.ingest.nmea import MAX_TAG_FIELD, clean_text

_STATION_PREFIX = frozenset("rRbBD")


def _number(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if v == v and abs(v) != float("inf") else None


def uscg_trailer(rest: str) -> tuple[float | None, str | None, dict[str, float] | None]:
    """(time, station, signal extras) from the text after ``*hh``, e.g. ``,d-98,r1,14..``."""
    time: float | None = None
    station: str | None = None
    extras: dict[str, float] | None = None
    for f in rest.split(","):
        if not f:
            continue
        c0 = f[0]
        if c0.isdigit():
            if time is None and f.replace(".", "", 1).isdigit() and f.isascii():
                time = float(f)
            continue
        if c0 in _STATION_PREFIX and 1 < len(f) <= MAX_TAG_FIELD and station is None:
            # outside the checksum: a name with control characters is no station's
            if clean_text(f) == f:
                station = f
        elif c0 == "d" or c0 == "S":
            v = _number(f[1:])
            if v is not None:
                if extras is None:
                    extras = {}
                extras["signal_dbm" if c0 == "d" else "slot"] = v
    return time, station, extras


def pghp_time(fields: list[str]) -> float | None:
    """The message time of a ``$PGHP,1,...`` header (split on commas, checksum removed)."""
    if len(fields) < 9 or fields[1] != "1":
        return None
    try:
        y, mo, d, h, mi, s, ms = (int(v) for v in fields[2:9])
        if not 0 <= ms < 1000:
            return None
        return datetime(y, mo, d, h, mi, s, tzinfo=UTC).timestamp() + ms / 1000.0
    except (ValueError, OverflowError):
        return None


def vsi_extras(fields: list[str]) -> dict[str, float] | None:
    """Slot, signal strength and signal-to-noise of a ``$xxVSI`` sentence, if given."""
    out: dict[str, float] = {}
    for i, name in ((4, "slot"), (5, "signal_dbm"), (6, "snr_db")):
        if i < len(fields) and fields[i]:
            v = _number(fields[i])
            if v is not None:
                out[name] = v
    return out or None
