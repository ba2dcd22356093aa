"""The register of state vessels an admin keeps (issue 34): the Navy's and the
authorities' own craft, each entry with its source. A ship type 35 (military) or 55
(law enforcement) in AIS static data is only a claim; the exemption it would give from
the military-area rules (NORMAM-07 0212 a)) is earned only by a vessel on this register.
Entries come from CSV (``mmsi,name,kind,source,valid_from,valid_to,note``) or from admins
through ``/state-vessels``; every entry says where it comes from (``source``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from vigia.alerts import registers as reg
from vigia.ingest.errors import InputFormatError

CSV_COLUMNS = ("mmsi", "name", "kind", "source", "valid_from", "valid_to", "note")
#: what a state vessel is: the Navy's, a police force's, customs', a coast guard's, or
#: another state service's (IBAMA, a port authority, ...)
KINDS = ("navy", "police", "customs", "coast-guard", "other-state")
_MAX_NAME = 200
_MAX_SOURCE = 1_000


@dataclass(frozen=True, slots=True)
class StateVessel:
    """One register entry: an MMSI, what it is, from when to when, and the source."""

    mmsi: int
    name: str
    kind: str  # navy, police, coast guard, customs, other state service
    source: str
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    note: str | None = None
    id: int | None = None  # the store's (None before it is stored)

    def valid_at(self, t: float) -> bool:
        """Whether the entry holds at epoch time ``t``."""
        if self.valid_from is not None and t < self.valid_from.timestamp():
            return False
        return self.valid_to is None or t <= self.valid_to.timestamp()


def check(entry: StateVessel) -> StateVessel:
    """Validate one entry (raises :class:`InputFormatError` naming the problem): a
    nine-digit MMSI, a name, a kind of :data:`KINDS`, a source, a window."""
    reg.check_mmsi(entry.mmsi)
    for name, text, longest in (
        ("name", entry.name, _MAX_NAME),
        ("source", entry.source, _MAX_SOURCE),
        ("note", entry.note, _MAX_SOURCE),
    ):
        reg.check_text(name, text, longest)
    if entry.kind not in KINDS:
        raise InputFormatError(f"kind {entry.kind[:40]!r} is not one of {', '.join(KINDS)}")
    ends = (entry.valid_from, entry.valid_to)
    reg.check_window(*(None if d is None else d.timestamp() for d in ends))
    return entry


def when(t: float | None) -> datetime | None:
    """Unix seconds as an aware UTC datetime (the register's validity ends)."""
    return None if t is None else datetime.fromtimestamp(t, UTC)


def parse_csv(text: str) -> list[StateVessel]:
    """Entries from CSV text with a header naming :data:`CSV_COLUMNS` (``mmsi``,
    ``name``, ``kind`` and ``source`` required per row; empty cells are absent). Bad
    rows refuse the whole file; the refusal counts them and names the first lines."""
    return reg.read_csv(text, CSV_COLUMNS, "mmsi,name,kind,source", _row)


def _required(cell: reg.Cell, what: str) -> str:
    text = cell(what)
    if text is None:
        raise InputFormatError(f"no {what}: every entry says what it is and where it comes from")
    return text


def _row(cell: reg.Cell) -> StateVessel:
    return check(
        StateVessel(
            reg.parse_mmsi(cell("mmsi")),
            _required(cell, "name"),
            _required(cell, "kind"),
            _required(cell, "source"),
            valid_from=when(reg.instant_cell(cell, "valid_from")),
            valid_to=when(reg.instant_cell(cell, "valid_to")),
            note=cell("note"),
        )
    )


class StateVessels:
    """Lookup of the register by MMSI (a few hundred entries at most)."""

    __slots__ = ("_by_mmsi",)

    def __init__(self, entries: Iterable[StateVessel] = ()) -> None:
        self._by_mmsi: dict[int, list[StateVessel]] = {}
        for e in entries:
            self._by_mmsi.setdefault(e.mmsi, []).append(e)

    def entry(self, mmsi: int, t: float) -> StateVessel | None:
        """The entry that makes ``mmsi`` a state vessel at ``t``, or None."""
        for e in self._by_mmsi.get(mmsi, ()):
            if e.valid_at(t):
                return e
        return None

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_mmsi.values())
