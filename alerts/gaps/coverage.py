"""What the receivers heard: vessels per H3 cell and 5-minute bucket, and vessels per
receiver (source) and bucket, measured from the data itself. Distinct vessels, not
messages: the same transmission heard twice, or a feed replayed, counts once.

H3 (Uber's hexagonal grid, the field's choice for AIS coverage maps) at resolution 6
(cells of about 36 km², edge 3.7 km). Positions are binned to a 0.01° grid first and each
grid square takes the cell of its centre (worked out once per square, then cached): a
point within about 500 m of a cell edge may be counted in its neighbour, which a
coverage measure over hours and kilometres does not notice, and the batch is counted
with numpy instead of one H3 call per record.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import h3.api.basic_int as h3
import numpy as np

RES = 6
_GRID = 100.0  # squares per degree
#: a silence of 15 min (the least gap) always holds at least one whole bucket
BUCKET_S = 300.0
#: buckets of coverage kept behind the newest: 72 hours (a gap longer than this is
#: judged on what is still held)
KEEP = 864


class Coverage:
    """Counts per (cell, hour) and (source, hour); see module docstring."""

    __slots__ = ("_cell_of", "_cells", "_newest", "_sources")

    def __init__(self) -> None:
        # (cell, bucket) -> vessels heard there then
        self._cells: dict[tuple[int, int], set[int]] = {}
        # (source, bucket) -> vessels that receiver heard then
        self._sources: dict[tuple[str, int], set[int]] = {}
        self._cell_of: dict[int, int] = {}
        self._newest = 0

    def add(
        self,
        mmsi: Sequence[int],
        t: Sequence[float],
        lon: Sequence[float] | np.ndarray[Any, Any],
        lat: Sequence[float] | np.ndarray[Any, Any],
        sources: Iterable[str],
    ) -> None:
        """Count a batch of positions (any vessels, any order)."""
        self.add_heard(heard(mmsi, t, lon, lat, sources))

    def add_heard(self, got: Heard) -> None:
        """Count what was heard, as :func:`heard` reduced it (here, or on the bus's
        ingest for every partition: issue 33, broker mode)."""
        if not got.squares and not got.sources:
            return
        cells, cell_of = self._cells, self._cell_of
        top = self._newest
        for sq, bucket, vessel in got.squares:
            cell = cell_of.get(sq)
            if cell is None:
                cell = cell_of[sq] = _cell_of_square(sq)
            at = cells.get((cell, bucket))
            if at is None:
                at = cells[(cell, bucket)] = set()
            at.add(vessel)
            top = max(top, bucket)
        by_source = self._sources
        for source, bucket, vessel in got.sources:
            by = by_source.get((source, bucket))
            if by is None:
                by = by_source[(source, bucket)] = set()
            by.add(vessel)
            top = max(top, bucket)
        if top > self._newest + 12:  # pruned an hour at a time, not every batch
            self._newest = top
            self.prune(top - KEEP)

    def prune(self, before: int) -> None:
        """Forget buckets before ``before``."""
        for cell_bucket in [k for k in self._cells if k[1] < before]:
            del self._cells[cell_bucket]
        for source_bucket in [k for k in self._sources if k[1] < before]:
            del self._sources[source_bucket]

    def others_heard(self, cells: Iterable[int], t0: float, t1: float, mmsi: int) -> int:
        """Vessels other than ``mmsi`` heard in ``cells`` in the buckets wholly inside
        (t0, t1): what says the area was covered while one was silent."""
        keys = [(cell, b) for cell in cells for b in _inside(t0, t1)]
        return _others(self._cells, keys, mmsi)

    def source_heard(self, source: str, t0: float, t1: float, mmsi: int) -> int:
        """Vessels other than ``mmsi`` that ``source`` heard in the buckets wholly inside
        (t0, t1): whether the receiver was alive."""
        return _others(self._sources, [(source, b) for b in _inside(t0, t1)], mmsi)

    def held_from(self) -> float:
        """The oldest time still counted."""
        return (self._newest - KEEP) * BUCKET_S


class Heard(NamedTuple):
    """Positions reduced to what coverage counts: (grid square, bucket, vessel) and
    (receiver, bucket, vessel), each once. A vessel's records of five minutes in one
    square collapse to one row, which is what lets the bus's ingest send every
    partition the whole stream's coverage (issue 33)."""

    squares: list[tuple[int, int, int]]
    sources: list[tuple[str, int, int]]


def heard(
    mmsi: Sequence[int],
    t: Sequence[float],
    lon: Sequence[float] | np.ndarray[Any, Any],
    lat: Sequence[float] | np.ndarray[Any, Any],
    sources: Iterable[str],
) -> Heard:
    """What a batch of positions (any vessels, any order) adds to coverage."""
    n = len(mmsi)
    if n == 0:
        return Heard([], [])
    t_a = np.asarray(t, dtype=np.float64)
    bucket_a = np.floor(t_a / BUCKET_S).astype(np.int64)
    gy = np.floor((np.asarray(lat, dtype=np.float64) + 90.0) * _GRID).astype(np.int64)
    gx = np.floor((np.asarray(lon, dtype=np.float64) + 180.0) * _GRID).astype(np.int64)
    square = gy * 40_000 + gx
    m = np.asarray(mmsi, dtype=np.int64)
    order = np.lexsort((m, bucket_a, square))
    s, h, v = square[order], bucket_a[order], m[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (s[1:] != s[:-1]) | (h[1:] != h[:-1]) | (v[1:] != v[:-1])
    starts = np.flatnonzero(new)
    squares = list(zip(s[starts].tolist(), h[starts].tolist(), v[starts].tolist(), strict=True))
    by_source = set(zip(sources, bucket_a.tolist(), m.tolist(), strict=True))
    return Heard(squares, sorted(by_source))


def square_ok(square: int) -> bool:
    """Whether ``square`` is a grid square of the Earth (what came over the bus is
    checked before an H3 call sees it)."""
    return 0 <= square < 18_000 * 40_000 and square % 40_000 < 36_000


def _others(table: dict[Any, set[int]], keys: Iterable[Any], mmsi: int) -> int:
    """How many vessels but ``mmsi`` the table holds under any of ``keys``."""
    heard: set[int] = set()
    for key in keys:
        got = table.get(key)
        if got:
            heard |= got
    heard.discard(mmsi)
    return len(heard)


def _inside(t0: float, t1: float) -> range:
    """The buckets wholly inside (t0, t1)."""
    return range(math.floor(t0 / BUCKET_S) + 1, math.ceil(t1 / BUCKET_S) - 1)


def _cell_of_square(square: int) -> int:
    gy, gx = divmod(square, 40_000)
    return int(h3.latlng_to_cell((gy + 0.5) / _GRID - 90.0, (gx + 0.5) / _GRID - 180.0, RES))


def cells_around(lon: float, lat: float, ring: int = 1) -> list[int]:
    """The cell of (lon, lat) and its neighbours ``ring`` deep."""
    return [int(c) for c in h3.grid_disk(h3.latlng_to_cell(lat, lon, RES), ring)]
