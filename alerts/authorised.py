"""The authorised-vessel register: who may work inside a platform's 500 m (0212 f)).

0212 f) bars only the vessels not engaged in the platform's service. AIS cannot show a
contract, so the register says it: an entry authorises one MMSI at one zone, or at every
zone of one operator (a zone's ``operator`` property), for a validity window. It is
applied at judgement time, with the position's own time: an entry that expired last
week does not cover this week's positions, and one that starts tomorrow does not cover
today's. Entries come from CSV (``mmsi,zone_id,operator,valid_from,valid_to,note``) or
from admins through ``/authorised-vessels``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from vigia.ingest.errors import InputFormatError
from vigia.zones.model import Zone

CSV_COLUMNS = ("mmsi", "zone_id", "operator", "valid_from", "valid_to", "note")
#: a register larger than this is a mistake (or an attack), not a list of supply boats
MAX_ENTRIES = 100_000
_MAX_TEXT = 200
#: at most this many bad rows are named in the refusal (all of them are counted)
_NAMED_ERRORS = 20


@dataclass(frozen=True, slots=True)
class Authorisation:
    """One register entry; ``id`` is the store's (None before it is stored)."""

    mmsi: int
    zone_id: str | None = None
    operator: str | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    note: str | None = None
    id: int | None = None

    def covers(self, t: float) -> bool:
        """Whether the entry is valid at Unix time ``t``."""
        if self.valid_from is not None and t < self.valid_from:
            return False
        return not (self.valid_to is not None and t > self.valid_to)


def check(entry: Authorisation) -> Authorisation:
    """Validate one entry (raises :class:`InputFormatError` naming the problem)."""
    if not 100_000_000 <= entry.mmsi <= 999_999_999:
        raise InputFormatError(f"mmsi {entry.mmsi} is not a nine-digit MMSI")
    if (entry.zone_id is None) == (entry.operator is None):
        raise InputFormatError("an entry names either a zone_id or an operator, not both")
    for name, text in (("zone_id", entry.zone_id), ("operator", entry.operator)):
        if text is not None and (not text.strip() or len(text) > _MAX_TEXT):
            raise InputFormatError(f"{name} must be 1 to {_MAX_TEXT} characters")
    if entry.note is not None and len(entry.note) > 1_000:
        raise InputFormatError("note is longer than 1000 characters")
    for name, v in (("valid_from", entry.valid_from), ("valid_to", entry.valid_to)):
        if v is not None and not math.isfinite(v):
            raise InputFormatError(f"{name} is not a finite time")
    if (
        entry.valid_from is not None
        and entry.valid_to is not None
        and entry.valid_to < entry.valid_from
    ):
        raise InputFormatError("valid_to is before valid_from")
    return entry


def parse_instant(text: str, what: str) -> float:
    """An ISO 8601 instant with an offset, as Unix seconds."""
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        raise InputFormatError(f"{what} {text[:40]!r} is not an ISO 8601 instant") from None
    if dt.tzinfo is None:
        raise InputFormatError(f"{what} {text[:40]!r} has no UTC offset")
    if not 1970 <= dt.year <= 2200:
        raise InputFormatError(f"{what} {text[:40]!r} is out of range")
    return dt.timestamp()


def parse_mmsi(raw: str | None) -> int:
    """An MMSI cell as a number: ASCII digits only. ``str.isdigit`` also accepts
    superscripts (which ``int`` then refuses), Arabic-Indic and fullwidth digits (which
    ``int`` silently reads): a register names vessels as AIS sends them, in ASCII."""
    if raw is None or not (raw.isascii() and raw.isdigit()):
        raise InputFormatError(f"mmsi {raw!r} is not a number in ASCII digits")
    return int(raw)


def parse_csv(text: str) -> list[Authorisation]:
    """Entries from CSV text with a header naming :data:`CSV_COLUMNS` (``mmsi`` and one
    of ``zone_id``/``operator`` required per row; empty cells are absent). Bad rows
    refuse the whole file; the refusal counts them and names the first lines."""
    # newline="" hands line ends to the csv module, as its documentation asks; what it
    # still cannot read (a bare carriage return after a quoted field) is the file's fault
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        return _entries(reader)
    except csv.Error as exc:
        raise InputFormatError(f"line {reader.line_num}: not CSV ({exc})") from None


def _entries(reader: csv.DictReader[str]) -> list[Authorisation]:
    if reader.fieldnames is None or "mmsi" not in reader.fieldnames:
        raise InputFormatError("the CSV needs a header with at least mmsi and zone_id or operator")
    unknown = set(reader.fieldnames) - set(CSV_COLUMNS)
    if unknown:
        raise InputFormatError(f"unknown CSV columns {sorted(unknown)[:5]}")
    out: list[Authorisation] = []
    errors: list[str] = []
    bad = 0
    for row in reader:
        line = reader.line_num
        if len(out) + bad >= MAX_ENTRIES:
            raise InputFormatError(f"more than {MAX_ENTRIES} entries")

        def cell(name: str, row: dict[str, str | None] = row) -> str | None:
            v = row.get(name)
            return v.strip() if isinstance(v, str) and v.strip() else None

        try:
            mmsi = parse_mmsi(cell("mmsi"))
            vf, vt = cell("valid_from"), cell("valid_to")
            out.append(
                check(
                    Authorisation(
                        mmsi=mmsi,
                        zone_id=cell("zone_id"),
                        operator=cell("operator"),
                        valid_from=None if vf is None else parse_instant(vf, "valid_from"),
                        valid_to=None if vt is None else parse_instant(vt, "valid_to"),
                        note=cell("note"),
                    )
                )
            )
        except InputFormatError as exc:
            bad += 1
            if len(errors) < _NAMED_ERRORS:
                errors.append(f"line {line}: {exc}")
    if bad:
        more = "" if bad <= len(errors) else f"; {bad - len(errors)} more"
        raise InputFormatError(f"{bad} bad row(s), nothing added: {'; '.join(errors)}{more}")
    return out


class AuthorisedRegister:
    """The register as the pipeline asks it: is this MMSI authorised here, now?"""

    def __init__(self, entries: Iterable[Authorisation] = ()) -> None:
        self._by_mmsi: dict[int, list[Authorisation]] = {}
        for e in entries:
            self._by_mmsi.setdefault(e.mmsi, []).append(e)

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_mmsi.values())

    def allows(self, zone: Zone, mmsi: int, t: float) -> bool:
        """Whether an entry valid at ``t`` authorises ``mmsi`` at ``zone`` (by its id,
        or by the zone's ``operator``)."""
        entries = self._by_mmsi.get(mmsi)
        if not entries:
            return False
        operator = zone.properties.get("operator")
        for e in entries:
            if (e.zone_id == zone.id or (e.operator is not None and e.operator == operator)) and (
                e.covers(t)
            ):
                return True
        return False
