"""What an MMSI's MID says of the flag, against what the rest of the static data says
(issue 34).

The MID (Maritime Identification Digits) of a ship station's MMSI names the
administration that assigned it (ITU-R M.585-9 annex 1; the ITU's table of MIDs,
bundled as ``mid.csv`` with its source and date). AIS carries no flag field; the one
other flag a ship sends is its call sign, drawn from its administration's series of the
ITU Table of Allocation of International Call Sign Series (Radio Regulations Appendix
42), bundled as ``callsign_series.csv``: the ITU's own export (its entries dated
2024-12-09) as shipped in callsign-regex 0.7.1, written by
scripts/build_callsign_series.py. ``ID-MID-FLAG`` is a call sign in a series of one
administration under the MID of another: one of the two is not what the ship's flag
state assigned.

Administrations are compared by family, never code against code: a territory with a MID
of its own sails under call signs of its parent's series (Bermuda's ships under the
United Kingdom's ZC, the Faroes' under Denmark's OW-OY, Taiwan's under China's B),
so :data:`PARENT` ties each such MID's code to the administration that holds its series,
and a MID and a series agree when they lead to the same one. Hong Kong (VR), Macao (XX),
Aruba (P4), the Netherlands Caribbean (PJ), the Cook Islands (E5) and Niue (E6) hold
series of their own and still belong to their parent's family. Not judged: a MID the
ITU allocated to no one, a MID whose family holds no series, a call sign in no series,
in a series of an international organisation (UN 4U, ICAO 4Y, WMO C7), or in a half
series (3DA-3DM Eswatini, 3DN-3DZ Fiji; SSA-SSM Egypt, SSN-SSZ Sudan) whose third
character does not say which half.

Brazil is judged as it always was, with its own wording: MID 710 with a call sign in no
Brazilian series (PP-PY, ZV-ZZ), allocated to anyone or not, or a Brazilian call sign
under another administration's MID. A Brazilian flag is what earns NORMAM-20 2.1.1 d)
and a coastal vessel's lighter regime.

Only a value shaped like an international call sign is judged (three to seven letters
and digits, a digit in it or four letters, but not a word for "none" nor one letter
repeated): small craft put names, registration numbers, "0" or "NONE" in the field, and
those say nothing of a flag.
"""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

MID_FILE = Path(__file__).with_name("mid.csv")
SERIES_FILE = Path(__file__).with_name("callsign_series.csv")
BRAZIL_MID = 710
_CALLSIGN = re.compile(r"[A-Z0-9]{3,7}")
#: words typed into the call sign field for "none": four letters, so shaped like a call
#: sign, but a ship's own says nothing of a flag (NO/NU and TE are real series)
_PLACEHOLDERS = frozenset({"NONE", "NULL", "UNKN", "TEST", "NOCS"})

#: ISO code of a MID's territory -> ISO code of the administration whose call sign series
#: its ships use (or, for HK, MO, AW, BQ, CW, SX, CK and NU, which hold series of their
#: own, the family they belong to). A code of mid.csv that holds no series and is not
#: here is never judged; tests/alerts/test_identity_callsign_series.py checks this table
#: against the "(parent)" in mid.csv's names and that every MID is covered.
PARENT: dict[str, str] = {
    # United Kingdom overseas territories: British registers, UK series (VP-VQ, VS, ZB-ZJ)
    **dict.fromkeys(("AI", "BM", "FK", "GI", "KY", "MS", "PN", "SH", "TC", "VG"), "GB"),
    # Denmark: the Faroes and Greenland (OW-OY, XP)
    **dict.fromkeys(("FO", "GL"), "DK"),
    # France: overseas departments, collectivities and the southern territories (TF)
    **dict.fromkeys(("GF", "GP", "MQ", "NC", "PF", "PM", "RE", "TF", "WF"), "FR"),
    # Kingdom of the Netherlands: Aruba (P4) and the Caribbean parts (PJ) hold series
    **dict.fromkeys(("AW", "BQ", "CW", "SX"), "NL"),
    # United States territories
    **dict.fromkeys(("AS", "MP", "PR", "VI"), "US"),
    **dict.fromkeys(("CC", "CX"), "AU"),
    # New Zealand: the Cook Islands (E5) and Niue (E6) hold series
    **dict.fromkeys(("CK", "NU"), "NZ"),
    # China: Hong Kong (VR) and Macao (XX) hold series; the ITU lists none for Taiwan,
    # whose ships use B series
    **dict.fromkeys(("HK", "MO", "TW"), "CN"),
    # Liechtenstein holds no series: its stations take Switzerland's HB (HB0, HB3Y)
    "LI": "CH",
}


class Series(NamedTuple):
    """One row of callsign_series.csv: the series lo..hi on a call sign's first three
    characters, and the ISO code of its holder ("" for an international organisation)."""

    lo: str
    hi: str
    iso2: str

    @property
    def whole(self) -> bool:
        """Whole series (XYA-XYZ, merged): any third character, a digit too, is in it."""
        return self.lo[2] == "A" and self.hi[2] == "Z"

    def holds(self, cs: str) -> bool:
        if cs[0] != self.lo[0]:
            return False
        if self.whole:
            return self.lo[:2] <= cs[:2] <= self.hi[:2]
        # a half series: the third character must be one of its letters; a digit there
        # (3D2AB, below "A") could be either half, so neither holds it
        return cs[:2] == self.lo[:2] and self.lo[2] <= cs[2] <= self.hi[2]


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
    if cs in _PLACEHOLDERS or len(set(cs)) == 1:  # "NONE", "XXXX", "AAAA"
        return None
    return cs


@cache
def series() -> tuple[Series, ...]:
    """The bundled ITU table of call sign series."""
    with SERIES_FILE.open(encoding="utf-8") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return tuple(Series(r["lo"], r["hi"], r["iso2"]) for r in rows)


def family(iso: str) -> str:
    """The administration whose series a territory's ships use (itself when none)."""
    while iso in PARENT:
        iso = PARENT[iso]
    return iso


@cache
def _families_with_series() -> frozenset[str]:
    return frozenset(family(s.iso2) for s in series() if s.iso2)


@cache
def holders(prefix: str) -> frozenset[str]:
    """ISO codes of the holders of the series a call sign's first three characters lie
    in: one code, three for PJ (Bonaire..., Curaçao, Sint Maarten), none for a call sign
    in no series or an ambiguous half series; "" for an international organisation. The
    ITU's table nests no series in another (a half series stands beside its other half,
    never inside a whole one; tested), so no match is more specific than another."""
    return frozenset(s.iso2 for s in series() if s.holds(prefix))


def brazilian_series(cs: str) -> bool:
    """Whether a call sign (from :func:`callsign_shape`) lies in a Brazilian series."""
    return "BR" in holders(cs[:3])


def flag_conflict(mmsi: int, callsign: str | None) -> str | None:
    """Why the MID and the call sign name different flags (see the module's docstring),
    or None when they agree or cannot be compared."""
    cs = callsign_shape(callsign)
    if cs is None:
        return None
    mid, iso = country(mmsi)
    who = holders(cs[:3])
    brazil = "BR" in who
    if mid == BRAZIL_MID and not brazil:
        return f"MID 710 (Brazil) but call sign {cs} is in no Brazilian series (PP-PY, ZV-ZZ)"
    if iso is None or mid == BRAZIL_MID:
        return None
    if brazil:
        return f"call sign {cs} is in a Brazilian series but MID {mid} is {iso}'s"
    if not who or "" in who or family(iso) not in _families_with_series():
        return None
    if family(iso) in {family(h) for h in who}:
        return None
    return f"MID {mid} ({iso}) but call sign {cs} is in a series of {'/'.join(sorted(who))}"
