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

from collections.abc import Iterable
from dataclasses import dataclass

from vigia.alerts.registers import (
    Cell,
    check_mmsi,
    check_text,
    check_window,
    instant_cell,
    parse_mmsi,
    read_csv,
)
from vigia.ingest.errors import InputFormatError
from vigia.zones.model import Zone

CSV_COLUMNS = ("mmsi", "zone_id", "operator", "valid_from", "valid_to", "note")
_MAX_TEXT = 200


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
    check_mmsi(entry.mmsi)
    if (entry.zone_id is None) == (entry.operator is None):
        raise InputFormatError("an entry names either a zone_id or an operator, not both")
    check_text("zone_id", entry.zone_id, _MAX_TEXT)
    check_text("operator", entry.operator, _MAX_TEXT)
    if entry.note is not None and len(entry.note) > 1_000:
        raise InputFormatError("note is longer than 1000 characters")
    check_window(entry.valid_from, entry.valid_to)
    return entry


def parse_csv(text: str) -> list[Authorisation]:
    """Entries from CSV text with a header naming :data:`CSV_COLUMNS` (``mmsi`` and one
    of ``zone_id``/``operator`` required per row; empty cells are absent). Bad rows
    refuse the whole file; the refusal counts them and names the first lines."""
    return read_csv(text, CSV_COLUMNS, "mmsi and zone_id or operator", _row)


def _row(cell: Cell) -> Authorisation:
    return check(
        Authorisation(
            mmsi=parse_mmsi(cell("mmsi")),
            zone_id=cell("zone_id"),
            operator=cell("operator"),
            valid_from=instant_cell(cell, "valid_from"),
            valid_to=instant_cell(cell, "valid_to"),
            note=cell("note"),
        )
    )


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
