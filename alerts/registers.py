"""What the registers an admin keeps share (the authorised vessels of 0212 f), the state
vessels of issue 34): CSV read all or nothing, MMSIs in ASCII digits, instants with an
offset, validity windows and bounded texts. Each register says only its columns and how
one row becomes an entry."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from vigia.ingest.errors import InputFormatError

T = TypeVar("T")
#: a register larger than this is a mistake (or an attack), not a list of vessels
MAX_ENTRIES = 100_000
#: at most this many bad rows are named in the refusal (all of them are counted)
_NAMED_ERRORS = 20

#: one cell of the row being read, stripped; None when empty or absent
Cell = Callable[[str], str | None]


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


def check_mmsi(mmsi: int) -> None:
    """A register names ships by their nine-digit MMSI."""
    if not 100_000_000 <= mmsi <= 999_999_999:
        raise InputFormatError(f"mmsi {mmsi} is not a nine-digit MMSI")


def check_text(name: str, text: str | None, longest: int) -> None:
    """A text cell, when present, holds 1 to ``longest`` characters (not only blanks)."""
    if text is not None and (not text.strip() or len(text) > longest):
        raise InputFormatError(f"{name} must be 1 to {longest} characters")


def check_window(valid_from: float | None, valid_to: float | None) -> None:
    """A validity window: finite ends, the end not before the start."""
    for name, v in (("valid_from", valid_from), ("valid_to", valid_to)):
        if v is not None and not math.isfinite(v):
            raise InputFormatError(f"{name} is not a finite time")
    if valid_from is not None and valid_to is not None and valid_to < valid_from:
        raise InputFormatError("valid_to is before valid_from")


def instant_cell(cell: Cell, name: str) -> float | None:
    """An optional instant cell as Unix seconds."""
    text = cell(name)
    return None if text is None else parse_instant(text, name)


def read_csv(text: str, columns: Sequence[str], header: str, row: Callable[[Cell], T]) -> list[T]:
    """Entries from CSV text whose header names some of ``columns`` (``mmsi`` among
    them; ``header`` says what it needs at least); ``row`` makes one entry from one
    row's cells (raising :class:`InputFormatError`). Bad rows refuse the whole file;
    the refusal counts them and names the first lines."""
    # newline="" hands line ends to the csv module, as its documentation asks; what it
    # still cannot read (a bare carriage return after a quoted field) is the file's fault
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        return _rows(reader, columns, header, row)
    except csv.Error as exc:
        raise InputFormatError(f"line {reader.line_num}: not CSV ({exc})") from None


def _rows(
    reader: csv.DictReader[str], columns: Sequence[str], header: str, row: Callable[[Cell], T]
) -> list[T]:
    if reader.fieldnames is None or "mmsi" not in reader.fieldnames:
        raise InputFormatError(f"the CSV needs a header with at least {header}")
    unknown = set(reader.fieldnames) - set(columns)
    if unknown:
        raise InputFormatError(f"unknown CSV columns {sorted(unknown)[:5]}")
    out: list[T] = []
    errors: list[str] = []
    bad = 0
    for cells in reader:
        line = reader.line_num
        if len(out) + bad >= MAX_ENTRIES:
            raise InputFormatError(f"more than {MAX_ENTRIES} entries")

        def cell(name: str, cells: dict[str, str | None] = cells) -> str | None:
            v = cells.get(name)
            return v.strip() if isinstance(v, str) and v.strip() else None

        try:
            out.append(row(cell))
        except InputFormatError as exc:
            bad += 1
            if len(errors) < _NAMED_ERRORS:
                errors.append(f"line {line}: {exc}")
    if bad:
        more = "" if bad <= len(errors) else f"; {bad - len(errors)} more"
        raise InputFormatError(f"{bad} bad row(s), nothing added: {'; '.join(errors)}{more}")
    return out
