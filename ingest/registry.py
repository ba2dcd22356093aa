"""The latest static data per vessel, so a position can be judged with type and length."""

from __future__ import annotations

from collections.abc import Iterator

from vigia.ingest.records import StaticData, VesselInfo

# Internally each vessel is one tuple (far smaller than a VesselInfo with its ``extra``
# dict): 100,000 vessels cost a few tens of MB, mostly their names.
_Row = tuple[
    str | None,  # name
    str | None,  # callsign
    int | None,  # imo
    int | None,  # ship_type
    float | None,  # length_m
    float | None,  # beam_m
    str | None,  # destination
    float | None,  # updated_at
]
_EMPTY: _Row = (None, None, None, None, None, None, None, None)


def _info(mmsi: int, row: _Row) -> VesselInfo:
    return VesselInfo(mmsi, *row)


class VesselRegistry:
    """Latest known static data per MMSI; type 24 parts A and B merge into one entry.

    A field the new report does not carry (None) keeps its earlier value, so a 24A
    (name only) never erases what a 24B (type, callsign, dimensions) said.
    """

    def __init__(self) -> None:
        self._rows: dict[int, _Row] = {}

    def update(self, s: StaticData) -> VesselInfo:
        """Merge one static report; return what is now known of the vessel."""
        old = self._rows.get(s.mmsi, _EMPTY)
        prev_t = old[7]
        if prev_t is not None and s.t < prev_t:
            # an older report only fills gaps, it never overrides newer values
            row: _Row = (
                old[0] if old[0] is not None else s.name,
                old[1] if old[1] is not None else s.callsign,
                old[2] if old[2] is not None else s.imo,
                old[3] if old[3] is not None else s.ship_type,
                old[4] if old[4] is not None else s.length_m,
                old[5] if old[5] is not None else s.beam_m,
                old[6] if old[6] is not None else s.destination,
                prev_t,
            )
        else:
            row = (
                s.name if s.name is not None else old[0],
                s.callsign if s.callsign is not None else old[1],
                s.imo if s.imo is not None else old[2],
                s.ship_type if s.ship_type is not None else old[3],
                s.length_m if s.length_m is not None else old[4],
                s.beam_m if s.beam_m is not None else old[5],
                s.destination if s.destination is not None else old[6],
                s.t,
            )
        self._rows[s.mmsi] = row
        return _info(s.mmsi, row)

    def get(self, mmsi: int) -> VesselInfo | None:
        """What is known of one vessel, or None."""
        row = self._rows.get(mmsi)
        return None if row is None else _info(mmsi, row)

    def row(self, mmsi: int) -> _Row | None:
        """One vessel's entry as it stands, to put back with :meth:`restore` (a
        consumer that judges a late record again goes back to what it knew then)."""
        return self._rows.get(mmsi)

    def restore(self, mmsi: int, row: _Row | None) -> None:
        """Put back an entry taken with :meth:`row` (None: the vessel was unknown)."""
        if row is None:
            self._rows.pop(mmsi, None)
        else:
            self._rows[mmsi] = row

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, mmsi: object) -> bool:
        return mmsi in self._rows

    def items(self) -> Iterator[tuple[int, VesselInfo]]:
        """Every vessel known, as (mmsi, info)."""
        for mmsi, row in self._rows.items():
            yield mmsi, _info(mmsi, row)
