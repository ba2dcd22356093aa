"""What an MMSI's MID says of the flag, against what the rest of the static data says
(issue 34).

The MID (Maritime Identification Digits) of a ship station's MMSI names the
administration that assigned it (ITU-R M.585-9 annex 1; the ITU's table of MIDs,
bundled as ``mid.csv`` with its source and date). AIS carries no flag field; the one
other flag a ship sends is its call sign, drawn from its administration's series of the
ITU Table of Allocation of International Call Sign Series (Radio Regulations Appendix
42). Brazil holds PPA-PYZ and ZVA-ZZZ. Vigia judges only that pair: an MMSI with
Brazil's MID (710) whose call sign lies in no Brazilian series, or a call sign in a
Brazilian series under another administration's MID. Either way one of the two is not
what the ship's flag state assigned; Brazilian flag is what earns NORMAM-20 2.1.1 d)
and a coastal vessel's lighter regime, so the contradiction is worth an inspector's look.

Only a value shaped like an international call sign is judged (three to seven letters
and digits, a digit in it or four letters): small craft put names, registration numbers
or "0" in the field, and those say nothing of a flag. Other administrations' series are
not bundled, so a foreign MID with a foreign call sign is never judged (evidence only:
the MID's country is shown).
"""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

MID_FILE = Path(__file__).with_name("mid.csv")
BRAZIL_MID = 710
#: RR Appendix 42: the series allocated to Brazil
_BRAZIL_SERIES = (("PP", "PY"), ("ZV", "ZZ"))
_CALLSIGN = re.compile(r"[A-Z0-9]{3,7}")


@cache
def table() -> dict[int, tuple[str, str]]:
    """MID -> (ISO 3166-1 alpha-2, name) from the bundled ITU table."""
    with MID_FILE.open(encoding="utf-8") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {int(r["mid"]): (r["iso2"], r["name"]) for r in rows}


def mid_of(mmsi: int) -> int | None:
    """The MID in an MMSI of any form that carries one (ship, coast station, SAR
    aircraft, handheld, craft of a parent ship, AtoN); None for distress beacons and
    numbers of no form."""
    digits = f"{mmsi:09d}"
    if len(digits) != 9:
        return None
    for prefix in ("111", "00", "98", "99", "8"):
        if digits.startswith(prefix):
            return int(digits[len(prefix) : len(prefix) + 3])
    return int(digits[:3]) if "2" <= digits[0] <= "7" else None


def country(mmsi: int) -> tuple[int | None, str | None]:
    """(MID, ISO alpha-2 of the administration holding it); the code is None for a MID
    the ITU has allocated to no one (a made-up or misconfigured number)."""
    mid = mid_of(mmsi)
    hit = table().get(mid) if mid is not None else None
    return mid, hit[0] if hit else None


def callsign_shape(callsign: str | None) -> str | None:
    """The call sign as an ITU series would hold it (upper case, AIS padding dropped),
    or None when the value is not shaped like one (a name, a number, "0")."""
    if not callsign:
        return None
    cs = callsign.replace("@", "").strip().upper()
    if not _CALLSIGN.fullmatch(cs) or cs.isdigit():
        return None
    if not any(c.isdigit() for c in cs) and len(cs) != 4:
        return None
    return cs


def brazilian_series(cs: str) -> bool:
    """Whether a call sign (from :func:`callsign_shape`) lies in a Brazilian series."""
    return any(lo <= cs[:2] <= hi for lo, hi in _BRAZIL_SERIES)


def flag_conflict(mmsi: int, callsign: str | None) -> str | None:
    """Why the MID and the call sign name different flags (see the module's docstring),
    or None when they agree or cannot be compared."""
    cs = callsign_shape(callsign)
    if cs is None:
        return None
    mid, iso = country(mmsi)
    brazil = brazilian_series(cs)
    if mid == BRAZIL_MID and not brazil:
        return f"MID 710 (Brazil) but call sign {cs} is in no Brazilian series (PP-PY, ZV-ZZ)"
    if brazil and mid != BRAZIL_MID and iso is not None:
        return f"call sign {cs} is in a Brazilian series but MID {mid} is {iso}'s"
    return None
