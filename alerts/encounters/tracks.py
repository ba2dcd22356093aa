"""Each vessel's track resampled to fixed slots, the same whatever order fixes arrive in.

Global Fishing Watch resamples every track to 10-minute points and never interpolates
across a silence over 1 hour. A slot's position needs only the latest fix at or before
it and the earliest fix at or after it, so a track keeps, per 10-minute interval, its
first and last fix: a minimum and a maximum over the fixes, ordered by time and then by
content, which no arrival order, batching or duplicate changes. Memory is two fixes an
interval however often the vessel reports.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from vigia.alerts.tracking import KN, metres
from vigia.ingest.records import Position, StaticData

#: static reports kept per vessel (a ship's name and type rarely change; beyond this the
#: oldest go)
MAX_STATICS = 16


class Fix(NamedTuple):
    """One position as the track keeps it; tuple order is the tie order (time, then
    content), so min and max are the same whatever order the fixes came in."""

    t: float
    lon: float
    lat: float
    sog: float
    cog: float
    nav_status: int


#: "not reported" inside a Fix (a number, so fixes compare)
NONE = -1.0


class SlotPos(NamedTuple):
    """A vessel at one slot: interpolated position and speed, and the fixes around it."""

    lon: float
    lat: float
    sog: float | None
    before: Fix
    after: Fix


def fix_of(p: Position) -> Fix | None:
    """The track's fix of a position (None without a usable position)."""
    if p.lon is None or p.lat is None:
        return None
    return Fix(
        p.t,
        p.lon,
        p.lat,
        NONE if p.sog is None else p.sog,
        NONE if p.cog is None else p.cog,
        -1 if p.nav_status is None else p.nav_status,
    )


class Info(NamedTuple):
    """What a vessel said of itself, as of one time."""

    name: str | None
    ship_type: int | None
    length_m: float | None


class Track:
    """First and last fix per interval, and the static reports (see module docstring)."""

    __slots__ = ("intervals", "statics")

    def __init__(self) -> None:
        self.intervals: dict[int, list[Fix]] = {}
        self.statics: list[tuple[float, str | None, int | None, float | None]] = []

    def add(self, k: int, fix: Fix) -> None:
        cur = self.intervals.get(k)
        if cur is None:
            self.intervals[k] = [fix, fix]
        elif fix < cur[0]:
            cur[0] = fix
        elif fix > cur[1]:
            cur[1] = fix

    def add_static(self, st: StaticData) -> None:
        row = (st.t, st.name, st.ship_type, st.length_m)
        if row in self.statics:
            return  # the same report heard again
        rows = self.statics
        rows.append(row)
        rows.sort(key=lambda r: (r[0], r[1] or "", -1 if r[2] is None else r[2]))
        if len(rows) > MAX_STATICS:
            del rows[0]

    def info_at(self, t: float) -> Info:
        """Name, type and length as of ``t``: the latest report at or before it that
        gives each (the earliest after it when none came before)."""
        name = kind = length = None
        before = [r for r in self.statics if r[0] <= t] or self.statics[:1]
        for _, n, k, ln in before:
            name = n if n else name
            kind = k if k is not None else kind
            length = ln if ln is not None else length
        return Info(name, kind, length)

    def at(self, k: int, slot_s: float, max_gap_s: float) -> SlotPos | None:
        """The vessel at slot ``k`` (time ``k * slot_s``), or None when no fix lies on
        each side within ``max_gap_s`` of each other."""
        s = k * slot_s
        iv = self.intervals
        span = math.ceil(max_gap_s / slot_s)
        before = after = None
        cur = iv.get(k)
        if cur is not None and cur[0].t == s:
            before = after = cur[0]
        else:
            for j in range(k - 1, k - span - 1, -1):
                got = iv.get(j)
                if got is not None:
                    before = got[1]
                    break
            if before is None:
                return None
            for j in range(k, k + span + 1):
                got = iv.get(j)
                if got is not None:
                    after = got[0]
                    break
            if after is None or after.t - before.t > max_gap_s:
                return None
        return interpolate(s, before, after)

    def prune(self, below: int) -> None:
        """Forget intervals before ``below``."""
        for j in [j for j in self.intervals if j < below]:
            del self.intervals[j]


def interpolate(s: float, b: Fix, a: Fix) -> SlotPos:
    """Position at ``s`` on the straight line from ``b`` to ``a``, and the speed: the
    reported SOGs interpolated, the speed made good when neither reported one."""
    dt = a.t - b.t
    f = 0.0 if dt <= 0 else (s - b.t) / dt
    lon = b.lon + f * (a.lon - b.lon)
    lat = b.lat + f * (a.lat - b.lat)
    sb, sa = b.sog, a.sog
    sog: float | None
    if sb >= 0 and sa >= 0:
        sog = sb + f * (sa - sb)
    elif sb >= 0 or sa >= 0:
        sog = max(sb, sa)
    elif dt > 0:
        sog = metres(b.lon, b.lat, a.lon, a.lat) / dt / KN
    else:
        sog = None
    return SlotPos(lon, lat, sog, b, a)
