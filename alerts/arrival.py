"""Event time per vessel: its records judged in time order, whatever order they arrive in.

Satellite AIS arrives minutes to hours late, in batches, out of order and more than once
(overlapping satellites and coast stations hear one transmission), and operators rerun
ingestion after faults. A vessel's verdicts must be a function of the *set* of its
records (issue 31). So each vessel keeps a :class:`Timeline`: its records of the last
``lateness_s`` (the bound) in time order, and copies of its judging state taken every few
minutes of its own time.

- A record later than every record held is judged at once (nearly all traffic).
- A record equal in time and content to one held is the same transmission heard again:
  dropped and counted, however long after the first it comes (a rerun an hour later is
  as harmless as one a second later, within the bound).
- A record earlier than one held (a late satellite batch) is put in its place: the
  vessel's state goes back to the last copy taken before it and every record since is
  judged again, in order. The episodes it touches are revised in place; an open
  episode whose start moves gets the id of its new start, and the old id is reported as
  superseded by it (``LeadPipeline.take_revisions``).
- A record older than the bound is past it: stored by the caller, counted here, and
  never judged (leads already settled keep their evidence).

Ties in time are ordered by content (:func:`content_key`), so two records with one time
judge the same whichever came first. Stream flink/Beam terms: per-key event time with
allowed lateness and retractions; the bound is the pipeline's ``lateness_s``.
"""

from __future__ import annotations

import copy
from bisect import bisect_left, bisect_right
from typing import Any

from vigia.alerts.episodes import Episode
from vigia.alerts.rules import Approach
from vigia.alerts.tracking import VesselState
from vigia.ingest.records import Position, StaticData

#: a copy of a vessel's state is taken at most this often (seconds of its own time): a
#: late record is judged again with every record since the copy before it
SNAP_EVERY_S = 300.0
#: records a vessel's timeline holds at most; past this its oldest copy and the records
#: before the next are dropped (a record older than what is held is past the bound)
MAX_ENTRIES = 4096

Kept = Position | StaticData


def content_key(r: Kept) -> str:
    """What a record says, less who heard it and how (source, raw sentences): two
    records with one time and one key are one transmission heard twice. A string, so
    records of one time order by it totally."""
    if type(r) is Position:
        return repr(
            (1, r.msg_type, r.lon, r.lat, r.sog, r.cog, r.heading, r.nav_status, r.accuracy)
        )
    assert isinstance(r, StaticData)
    return repr(
        (
            2,
            r.msg_type,
            r.part,
            r.name,
            r.callsign,
            r.imo,
            r.ship_type,
            r.length_m,
            r.beam_m,
            r.destination,
        )
    )


def clone_episode(ep: Episode) -> Episode:
    """A copy that later fixes cannot change (evidence points are immutable: shared)."""
    c = Episode(ep.mmsi, ep.rule, ep.zone_idx, ep.threshold_m)
    for name in Episode.__slots__:
        setattr(c, name, getattr(ep, name))
    c.samples = list(ep.samples)
    c.notes = dict(ep.notes)
    return c


def clone_state(vs: VesselState) -> VesselState:
    """A copy of a vessel's judging state (its timeline excluded)."""
    c = VesselState()
    c.last_t, c.last_lon, c.last_lat = vs.last_t, vs.last_lon, vs.last_lat
    c.stop_t = vs.stop_t
    if vs.pending is not None:
        pos, hits, info = vs.pending
        c.pending = (pos, list(hits), info)
    if vs.episodes:
        c.episodes = {k: clone_episode(e) for k, e in vs.episodes.items()}
    if vs.approaches:
        c.approaches = {
            z: Approach(a.clean, a.anchored, a.last_t, a.last_lon, a.last_lat)
            for z, a in vs.approaches.items()
        }
    if vs.closing:
        c.closing = [clone_episode(e) for e in vs.closing]
    c.seen = vs.seen  # a tuple: never changed in place
    if vs.gaps:
        c.gaps = list(vs.gaps)  # gaps are never changed once found
    if vs.tracks:
        c.tracks = [copy.copy(tr) for tr in vs.tracks]
    if vs.shared:
        c.shared = list(vs.shared)
    if vs.segs:
        c.segs = {k: clone_state(sv) for k, sv in vs.segs.items()}
    if vs.ident is not None:
        c.ident = vs.ident.clone()
    if vs.visit is not None:
        c.visit = vs.visit.clone()
    return c


class Snapshot:
    """A vessel's state before its timeline's record ``at`` was judged."""

    __slots__ = ("at", "registry_row", "state")

    def __init__(self, at: int, state: VesselState, registry_row: Any) -> None:
        self.at = at
        self.state = state
        self.registry_row = registry_row


class Timeline:
    """One vessel's records within the bound, in (time, content) order, and the copies
    of its state to judge a late one from (see module docstring)."""

    __slots__ = ("done", "floor", "keys", "records", "snaps", "times")

    def __init__(self, floor: float = float("-inf")) -> None:
        # a record at or before this is past the bound (a timeline started afresh after
        # a zone edit holds nothing from before it)
        self.floor = floor
        self.times: list[float] = []
        # content keys, worked out only when a tie or a late record needs them
        self.keys: list[str | None] = []
        self.records: list[Kept] = []
        self.snaps: list[Snapshot] = []
        # (rule, zone index, start) of the episodes already given out as closed: a
        # replay from a copy must not give them out again
        self.done: set[tuple[str, int, float]] = set()

    @property
    def last_t(self) -> float:
        """The latest record's time: one at or before it is out of order."""
        return self.times[-1] if self.times else self.floor

    def key(self, i: int) -> str:
        k = self.keys[i]
        if k is None:
            k = self.keys[i] = content_key(self.records[i])
        return k

    def place(self, r: Kept) -> tuple[int, bool]:
        """Where ``r`` goes in time and content order, and whether a record of equal time
        and content is already there (a duplicate)."""
        lo = bisect_left(self.times, r.t)
        hi = bisect_right(self.times, r.t, lo)
        if lo == hi:
            return lo, False
        k = content_key(r)
        for i in range(lo, hi):
            ki = self.key(i)
            if ki == k:
                return i, True
            if ki > k:
                return i, False
        return hi, False

    def insert(self, i: int, r: Kept) -> None:
        """Put a late record at ``i`` (from :meth:`place`); the copies taken after it
        move up one (a copy at ``i`` was taken before every record after ``r``'s time,
        so it stands before ``r`` too)."""
        self.times.insert(i, r.t)
        self.keys.insert(i, None)
        self.records.insert(i, r)
        for s in self.snaps:
            if s.at > i:
                s.at += 1

    def judgeable(self, i: int, t: float) -> bool:
        """Whether a record placed at ``i`` with time ``t`` has a copy of the state
        before it to be judged from."""
        return t > self.floor and bool(self.snaps) and self.snaps[0].at <= i

    def append(self, r: Kept) -> None:
        self.times.append(r.t)
        self.keys.append(None)
        self.records.append(r)

    def wants_snapshot(self, t: float) -> bool:
        """Whether a copy of the state should be taken before judging a record at ``t``."""
        if not self.snaps:
            return True
        at = self.snaps[-1].at
        # a copy already stands right here (after a cut): none needed
        return at < len(self.times) and t - self.times[at] >= SNAP_EVERY_S

    def snapshot_for(self, i: int) -> int:
        """Index in ``snaps`` of the latest copy taken at or before record ``i``; -1."""
        j = len(self.snaps) - 1
        while j >= 0 and self.snaps[j].at > i:
            j -= 1
        return j

    def cut(self, i: int) -> list[Kept]:
        """Remove and return the records from ``i`` on (to be judged again), with the
        copies taken after ``i``."""
        out = self.records[i:]
        del self.times[i:], self.keys[i:], self.records[i:]
        while self.snaps and self.snaps[-1].at > i:
            self.snaps.pop()
        return out

    def trim(self, before: float) -> None:
        """Forget what no record at or after ``before`` can need: every copy but the
        latest taken at or before ``before``, with the records ahead of it; and past
        :data:`MAX_ENTRIES`, the oldest copy and the records up to the next."""
        snaps = self.snaps
        j = 0
        while j + 1 < len(snaps) and self.times_at(snaps[j + 1].at) <= before:
            j += 1
        if len(self.times) > MAX_ENTRIES and j == 0 and len(snaps) > 1:
            j = 1
        if j == 0:
            return
        drop = snaps[j].at
        del self.times[:drop], self.keys[:drop], self.records[:drop], snaps[:j]
        for s in snaps:
            s.at -= drop
        if self.times:
            first = self.times[0]
            self.done = {d for d in self.done if d[2] >= first - 86_400.0}

    def times_at(self, at: int) -> float:
        return self.times[at] if at < len(self.times) else float("inf")
