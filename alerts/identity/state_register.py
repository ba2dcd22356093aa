"""The register of state vessels an admin keeps (issue 34): the Navy's and the
authorities' own craft, each entry with its source. A ship type 35 (military) or 55
(law enforcement) in AIS static data is only a claim; the exemption it would give from
the military-area rules (NORMAM-07 0212 a)) is earned only by a vessel on this register.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime


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

    def valid_at(self, t: float) -> bool:
        """Whether the entry holds at epoch time ``t``."""
        if self.valid_from is not None and t < self.valid_from.timestamp():
            return False
        return self.valid_to is None or t <= self.valid_to.timestamp()


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
