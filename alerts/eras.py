"""Stream clocks per era, so a vessel's verdicts depend only on its own records.

A replay of an archive after a later one (time going back years), or two archives of
different years interleaved, put another era's traffic in the stream. One stream clock
(the latest time seen) would then be years ahead of the earlier era's vessels, and every
expiry pass would close their episodes, settle their look-ahead fixes untested and
forget their stop timers: their leads would depend on what else the stream held, and a
broker partition that saw less of the later era would raise other leads.

So the stream's times are kept as disjoint intervals, one per era. A record older than
the latest era's start by more than ``back_s`` (and in no other era) starts an era of its
own; one a little older than an era's start widens it; one later than an era's end (and
too far below the next) moves that era's clock on, as time runs forward. A record
``back_s`` or more past the stream clock (a later archive after an earlier one) makes
the latest era an older one and starts a new one. An older era without a record for
``back_s`` of stream time (a jump to a later era counts as none: that era's records
only begin then) is over (the replay moved on, or a live feed came back after
an outage) and merges into the next, whose clock its vessels then follow. State last seen
at time ``t`` expires on the clock of the era holding ``t``: the latest era's clock is
the caller's ``now`` (the stream time, or wall time for a quiet live feed); an older
era's is the latest time seen in it.

Live feeds refuse records more than ``max_behind_s`` (6 h) old, below ``back_s``, so a
live stream is one era and behaves exactly as with a single clock.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable

#: ``clock(t, now)``: the clock that state last seen at ``t`` expires on (Eras.clock)
EraClock = Callable[[float, float], float]

#: a record this much older than an era's first time starts a new era: far beyond any
#: receiver's or satellite feed's delivery delay (and the live feeds' 6 h refusal), far
#: below the months or years between two archives replayed together
BACK_S = 86_400.0
#: older eras kept apart; past this the two oldest merge (their vessels then expire on
#: the later one's clock), so hostile input cannot grow this without bound
MAX_ERAS = 64


def one_clock(t: float, now: float) -> float:
    """The clock of a stream of one era: ``now`` for everything."""
    return now


class Eras:
    """Disjoint time intervals of a stream, one per era (see module docstring)."""

    __slots__ = ("_hi", "_last", "_lo", "_progress", "_seen", "back_s", "floor")

    def __init__(self, back_s: float = BACK_S) -> None:
        self.back_s = back_s
        #: where the latest era starts; a record at or after it is in the latest era,
        #: whose end is the caller's stream clock (kept there, not here)
        self.floor = math.inf
        # older eras, ascending, all ending below ``floor``; ``_seen`` is the stream's
        # progress when each last had a record (an era quiet for long is over: settle)
        self._lo: list[float] = []
        self._hi: list[float] = []
        self._seen: list[float] = []
        # stream time that has passed, jumps left out: a jump to a later era is not
        # time the eras before it were quiet for (their records may follow, interleaved)
        self._progress = 0.0
        self._last = -math.inf

    @property
    def count(self) -> int:
        """Eras held (the latest included, once any record was seen)."""
        return len(self._lo) + (self.floor != math.inf)

    def tick(self, t: float, now: float) -> float:
        """Account a record at ``t``, the stream clock being ``now``; returns the new
        stream clock. Callers skip the call when ``floor <= t <= now`` (the hot path)."""
        if t > now:
            if t - now >= self.back_s:
                self.jump(t, now)
            else:
                self._advance(t)
            return t
        if t < self.floor:
            self.see(t, now)
        return now

    def see(self, t: float, now: float) -> None:
        """Account a record at ``t`` below ``floor``, ``now`` being the stream clock (the
        caller tests ``t < floor``: the hot path is one comparison). The first record of
        a stream sets ``floor``."""
        if self.floor == math.inf:
            self.floor = t
            return
        self._advance(now)
        lo, hi = self._lo, self._hi
        i = bisect_right(lo, t) - 1  # the era starting at or before t, if any
        if i >= 0 and t <= hi[i]:
            self._seen[i] = self._progress
            return
        above = lo[i + 1] if i + 1 < len(lo) else self.floor
        if t >= above - self.back_s:
            # a little before the next era's start: a late record of that era
            if i + 1 < len(lo):
                lo[i + 1] = t
                self._seen[i + 1] = self._progress
            else:
                self.floor = t
        elif i >= 0:
            hi[i] = t  # that era's time runs on
            self._seen[i] = self._progress
        else:
            self._insert(0, t, t, self._progress)

    def jump(self, t: float, now: float) -> None:
        """A record ``back_s`` or more past the stream clock ``now``: the latest era so
        far becomes an older one (another era's traffic may follow, interleaved) and a
        new latest era starts at ``t``."""
        self._advance(now)
        if self.floor != math.inf:
            self._insert(len(self._lo), self.floor, now, self._progress)
        self.floor = t
        self._last = t  # the leap itself is no time passed

    def settle(self, now: float) -> None:
        """Merge into the next era every older era without a record for ``back_s`` of
        stream time: it is over (a replay moved on from it, a live feed resumed after an
        outage), and its vessels expire on the later clock from now on."""
        self._advance(now)
        i = 0
        while i < len(self._lo):
            if self._progress - self._seen[i] <= self.back_s:
                i += 1
                continue
            if i + 1 < len(self._lo):
                self._lo[i + 1] = self._lo[i]
            else:
                self.floor = self._lo[i]
            del self._lo[i], self._hi[i], self._seen[i]

    def clock(self, t: float, now: float) -> float:
        """The clock that state last seen at ``t`` expires on, ``now`` being the latest
        era's."""
        if t >= self.floor or not self._lo:
            return now
        i = bisect_right(self._lo, t) - 1
        if i < 0 or t > self._hi[i]:
            return now  # in no era: cannot happen for a time the stream held
        return self._hi[i]

    def clocks(self, now: float) -> list[float]:
        """Every era's clock, ascending (``now`` being the latest's): what a process
        that reads the whole stream tells one that sees part of it (see ``witness`` in
        :mod:`alerts.pipeline`)."""
        return [*self._hi, now] if self.floor != math.inf else []

    def _advance(self, now: float) -> None:
        """Stream time ran on to ``now`` (a record's, or the caller's clock)."""
        if now > self._last:
            if self._last != -math.inf:
                self._progress += now - self._last
            self._last = now

    def _insert(self, i: int, lo: float, hi: float, seen: float) -> None:
        self._lo.insert(i, lo)
        self._hi.insert(i, hi)
        self._seen.insert(i, seen)
        if len(self._lo) > MAX_ERAS:
            # the two oldest become one, on the later one's clock
            self._lo[1] = self._lo[0]
            del self._lo[0], self._hi[0], self._seen[0]
