"""Which MMSIs are the identity of a station Vigia keeps: one rule for ingest, the store
and the API.

An MMSI is nine digits (ITU-R M.585-9 annex 1); the number a transponder sends is read
with its leading zeros. The forms of one transmitting station are kept, with M (the
first digit of its Maritime Identification Digits, MID) from 2 to 7:

- ``MIDxxxxxx`` a ship station (200000000..799999999);
- ``00MIDxxxx`` a coast station, AIS base stations among them;
- ``111MIDxxx`` a SAR aircraft;
- ``8MIDxxxxx`` a handheld VHF with DSC and GNSS;
- ``98MIDxxxx`` a craft associated with a parent ship (a lifeboat, a tender);
- ``99MIDxxxx`` an aid to navigation;
- ``970xxxxxx`` AIS-SART, ``972xxxxxx`` MOB and ``974xxxxxx`` EPIRB-AIS devices: distress
  beacons, whatever follows the prefix (a manufacturer's number, not a MID).

Everything else is refused: 000000000 and 999999999 (placeholders of unconfigured
transponders), other numbers with leading zeros (``0MIDxxxxx`` is a group call, an
address and never a sender; three or more zeros are nothing), a MID beginning with 0, 1,
8 or 9, other 9-prefixed forms, and anything above nine digits (a 30-bit AIS field holds
up to 1073741823). Such a report cannot be tied to one vessel: kept, it would merge
unrelated transmitters into one track and one lead.
"""

from __future__ import annotations

#: prefixes of the nine digits followed by a MID (a distress beacon's prefix is not)
_MID_PREFIXES = ("00", "111", "8", "98", "99")
_DISTRESS_PREFIXES = ("970", "972", "974")


def is_valid_mmsi(mmsi: int) -> bool:
    """Whether ``mmsi`` is a station identity Vigia keeps (see the module's docstring)."""
    if 200_000_000 <= mmsi <= 799_999_999:  # ships, nearly all traffic: one comparison
        return True
    if not 0 < mmsi <= 999_999_999:
        return False
    digits = f"{mmsi:09d}"
    if digits.startswith(_DISTRESS_PREFIXES):
        return True
    for prefix in _MID_PREFIXES:
        if digits.startswith(prefix):
            return "2" <= digits[len(prefix)] <= "7"
    return False
