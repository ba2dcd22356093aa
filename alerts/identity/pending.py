"""The fixes the interference watch holds until they settle, thinned and packed.

Every fix of the lateness window (two hours) waits before it settles, so this is the
watch's memory: about 150 bytes a fix as a heap of tuples, 2.2 GB at a national feed's
2,000 positions a second (``benchmarks/watch_memory.py``'s baseline). Two measures
bring it down, neither changing what arrives in which order after settling:

- **Thinned, as the encounter watch's tracks are** (alerts/encounters/tracks.py): a
  vessel keeps the first and the last fix of each ``BUCKET_S`` (30 s) of its track, by
  (time, lon, lat). A jump between two fixes still shows between the first and the last
  of their buckets (10 km in 30 s is 650 kn), a vessel's first and last fix are always
  kept, and a ship reporting every 2 s keeps 2 fixes of 15. Minimum and maximum of a
  set: no arrival order, batching or duplicate changes which fixes are kept, provided a
  bucket settles only whole (the watch settles a bucket once its end is behind the
  bound, and refuses fixes before a bucket boundary only).
- **Packed:** each vessel's fixes are three ``array('d')`` columns in time order
  (24 bytes a fix), and a heap holds one entry per vessel (its earliest fix), not one a
  fix.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from typing import Any

BUCKET_S = 30.0


def bucket_of(t: float) -> int:
    """The bucket of ``t``: ``floor(t / BUCKET_S)``, exact at the boundaries (the
    division may round across one)."""
    b = math.floor(t / BUCKET_S)
    if t < b * BUCKET_S:
        return b - 1
    if t >= (b + 1) * BUCKET_S:
        return b + 1
    return b


def bucket_end(t: float) -> float:
    """The end of the bucket of ``t`` (the start of the next)."""
    return (bucket_of(t) + 1) * BUCKET_S


def bucket_start(t: float) -> float:
    """The start of the bucket of ``t``; an infinite clock stays as it is."""
    return bucket_of(t) * BUCKET_S if math.isfinite(t) else t


class Pending:
    """One vessel's unsettled fixes, in (time, lon, lat) order, at most the first and
    the last of each bucket."""

    __slots__ = ("lat", "lon", "t")

    def __init__(self) -> None:
        self.t = array("d")
        self.lon = array("d")
        self.lat = array("d")

    def __len__(self) -> int:
        return len(self.t)

    def _at(self, i: int) -> tuple[float, float, float]:
        return self.t[i], self.lon[i], self.lat[i]

    def _put(self, i: int, fix: tuple[float, float, float], *, insert: bool) -> None:
        for col, v in zip((self.t, self.lon, self.lat), fix, strict=True):
            if insert:
                col.insert(i, v)
            else:
                col[i] = v

    def add(self, t: float, lon: float, lat: float) -> tuple[bool, bool]:
        """Take a fix; (one fix thinned away, the new fix now the earliest). Thinned:
        the new fix, when it lies between the first and the last of its bucket or
        repeats one of them, or the first or last it replaces."""
        b = bucket_of(t)
        ts = self.t
        lo = bisect_left(ts, b * BUCKET_S)
        hi = bisect_left(ts, (b + 1) * BUCKET_S, lo)
        fix = (t, lon, lat)
        if hi == lo:
            self._put(lo, fix, insert=True)
            return False, lo == 0
        first = self._at(lo)
        if hi - lo == 1:
            if fix == first:
                return True, False
            i = lo if fix < first else lo + 1
            self._put(i, fix, insert=True)
            return False, i == 0
        if fix < first:
            self._put(lo, fix, insert=False)
            return True, lo == 0 and t < first[0]
        if fix > self._at(lo + 1):
            self._put(lo + 1, fix, insert=False)
        return True, False

    def pop_first(self) -> tuple[float, float, float]:
        fix = self._at(0)
        for col in (self.t, self.lon, self.lat):
            del col[0]
        return fix

    # pickled as bytes: a partition state admits no array type (bus/state.py)
    def __getstate__(self) -> tuple[bytes, bytes, bytes]:
        return self.t.tobytes(), self.lon.tobytes(), self.lat.tobytes()

    def __setstate__(self, state: Any) -> None:
        self.t, self.lon, self.lat = (array("d", bytes(b)) for b in state)
