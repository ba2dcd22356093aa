"""Several vessels jumping to one place at once: GNSS interference (issue 34).

Spoofing or jamming a GNSS receiver moves the position every ship near it reports, all
at once and often to one spot (C4ADS, "Above Us Only Stars", 2019: ships in the Black Sea
reported at inland airports; Windward's GNSS-interference reports). Each such ship makes
a jump the segmenter (segments.py) blames on that vessel; together they are one event,
one lead (the segmenter's own ID-MMSI-SHARED leads of those ships are not folded in yet).

- A **jump**: two consecutive fixes of one MMSI, in that vessel's time order, more than
  ``JUMP_M`` (10 km) apart and implying more than ``MAX_KN`` (50 kn, the segmenter's):
  no ship could sail it, and 10 km is well past the segmenter's 2 km of GPS noise, so
  a glitch of a few hundred metres never counts. Its time and place are the later fix's
  (the destination). Distances are great-circle metres (``alerts.tracking.metres``).
  A fix more than ``FORGET_S`` (a day) after the vessel's previous one is no jump: the
  vessel is forgotten after a day without a fix, as a ship that left the coverage.
- A **return**: a jump whose origin lies within ``RADIUS_M`` of where the same vessel's
  previous jump took it is that vessel coming back (the spoofing over, its receiver
  right again): part of the event it left, never an event of its own. Otherwise the
  ships of one event, moored near each other, would raise a second lead where they
  really are when the spoofing stops.
- An **interference event**: the connected components (single linkage) of jumps whose
  destinations lie within ``RADIUS_M`` (5 km; the bound included: ``<=``) of each other
  and whose times are within ``WINDOW_S`` (600 s; the bound included). A spoofer moves
  every ship in range within seconds; 10 minutes leaves room for class B ships reporting
  every 3 minutes and satellite passes. A component with jumps of at least
  ``MIN_VESSELS`` (3) distinct MMSIs is one ``ID-INTERFERENCE`` lead: two ships jumping
  together may be one MMSI shared by two ships; a lone jump is the segmenter's business.

The same leads however the data arrives (docs/leads.md): each vessel keeps the first
and the last fix of every 30 s of its track (pending.py: ``interference_thinned``
counts the others), and they stay unsettled until the clock of their era (``Eras``, as
in the encounter watch) less ``lateness_s`` has passed their 30 s; then each vessel's
fixes are taken in time order (a repeated (MMSI, time) once), against its last settled
fix, which carries over. A fix before the settled bound (a 30 s boundary) arriving later
is counted (``interference_late``) and ignored.
Settled fixes come out in one global time order, so jumps join components in the same
order whatever the batching; a component is given out once no unsettled fix could join
it (its last jump + ``WINDOW_S`` before the settled bound), or at the end of input.

Memory: unsettled fixes span the lateness window, at most two a vessel's 30 s, 24 bytes
each (pending.py); a vessel's last fix goes after a day;
jumps are indexed for linkage while within ``WINDOW_S`` of the newest; a component keeps
its first ``MAX_JUMPS`` jumps and counts the rest.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Iterable
from typing import Any

from vigia.alerts.eras import Eras
from vigia.alerts.identity.circles import RULE as CIRCLE_RULE
from vigia.alerts.identity.circles import CircleWatch
from vigia.alerts.identity.land import RULE as LAND_RULE
from vigia.alerts.identity.land import LandWatch
from vigia.alerts.identity.pending import Pending, bucket_end, bucket_start
from vigia.alerts.identity.segments import MAX_KN
from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.alerts.tracking import KN, metres
from vigia.ingest.records import Position, Record, device_class, iso_utc
from vigia.ingest.units import valid_lonlat

RULE = "ID-INTERFERENCE"
JUMP_M = 10_000.0
RADIUS_M = 5_000.0
WINDOW_S = 600.0
MIN_VESSELS = 3
FORGET_S = 86_400.0
#: jumps a component keeps as evidence and details (a jammed sea could hold thousands)
MAX_JUMPS = 500
EVIDENCE_CAP = 50
RULE_TEXT = (
    f"jumps no ship could sail (more than {JUMP_M:.0f} m at more than {MAX_KN:.0f} kn "
    f"between consecutive fixes) by {MIN_VESSELS} or more vessels, ending within "
    f"{RADIUS_M:.0f} m and {WINDOW_S:.0f} s of one another (single linkage)"
)
#: grid cells for linkage, in degrees: wider than RADIUS_M in latitude (0.045 degrees),
#: so a destination's neighbours lie in its row or the rows either side
_CELL = 0.05
_NLON = 7_200  # cells around a parallel (360 / _CELL)
_RADIUS_RAD = RADIUS_M / 6_371_008.8  # on alerts.tracking's sphere
#: stream time between sweeps of the vessels' last fixes
_SWEEP_S = 3_600.0


class Group:
    """A component of jumps; ``into`` is the component it was merged into."""

    __slots__ = ("first_t", "into", "jumps", "last_t", "more", "vessels")

    def __init__(self, t: float) -> None:
        self.first_t = self.last_t = t
        self.jumps: list[Jump] = []
        self.more = 0  # jumps past MAX_JUMPS, counted only
        self.vessels: set[int] = set()
        self.into: Group | None = None


class Jump:
    """One vessel's impossible move: from (t0, lon0, lat0) to (t, lon, lat), d metres."""

    __slots__ = ("d", "group", "lat", "lat0", "lon", "lon0", "mmsi", "t", "t0")

    def __init__(self, mmsi: int, frm: tuple[float, float, float], to: tuple[float, float, float],
                 d: float, group: Group) -> None:  # fmt: skip
        self.mmsi, self.d, self.group = mmsi, d, group
        self.t0, self.lon0, self.lat0 = frm
        self.t, self.lon, self.lat = to


def _root(g: Group) -> Group:
    while g.into is not None:
        if g.into.into is not None:
            g.into = g.into.into  # shorten the chain (and the pickle's recursion)
        g = g.into
    return g


def _cell(lon: float, lat: float) -> tuple[int, int]:
    return math.floor(lat / _CELL), math.floor(lon / _CELL) % _NLON


def _near_cells(lon: float, lat: float) -> list[tuple[int, int]]:
    """Every cell holding a point within RADIUS_M of (lon, lat): the rows either side,
    and the columns the circle's widest longitude span reaches (all near a pole)."""
    i, k = _cell(lon, lat)
    c, s = math.cos(math.radians(lat)), math.sin(_RADIUS_RAD)
    span = _NLON if c <= s else math.ceil(math.degrees(math.asin(s / c)) / _CELL)
    cols = (
        range(_NLON) if 2 * span + 1 >= _NLON else [(k + j) % _NLON for j in range(-span, span + 1)]
    )
    return [(i + di, kk) for di in (-1, 0, 1) for kk in cols]


def _order(p: EvidencePoint) -> tuple[float, float, float, float]:
    return p.t, p.lon, p.lat, -1.0 if p.distance_m is None else p.distance_m  # a total order


class InterferenceWatch:
    """Jumps of many vessels to one place at once, across every vessel it is fed (see
    the module docstring). Plain state: pickled inside the encounter watch."""

    def __init__(self, lateness_s: float = 7_200.0) -> None:
        self.lateness_s = lateness_s
        # unsettled fixes, by vessel, thinned and packed (pending.py); the heap holds
        # (t, mmsi) of each vessel's earliest, so they settle in one global order (an
        # entry whose t is no longer its vessel's earliest is stale: dropped when met)
        self._pending: dict[int, Pending] = {}
        self._heap: list[tuple[float, int]] = []
        # every fix before this is settled; one arriving now is past the bound
        self._bound = -math.inf
        self._hi = -math.inf  # the latest settled fix's time
        self._now = -math.inf  # the latest record time (the eras' stream clock)
        self._eras = Eras()
        self._last: dict[int, tuple[float, float, float]] = {}  # mmsi: settled (t, lon, lat)
        self._came: dict[int, tuple[float, float, float]] = {}  # mmsi: its last jump's end
        self._circles = CircleWatch()
        self._land = LandWatch()
        self._swept = -math.inf
        # jumps that may still link (WINDOW_S of the newest), oldest first, and by cell
        self._recent: deque[Jump] = deque()
        self._cells: dict[tuple[int, int], deque[Jump]] = {}
        self._open: list[Group] = []
        self.counters: dict[str, int] = {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_land" not in state:  # checkpointed before ID-ON-LAND
            self._land = LandWatch()
        if "_heap" not in state:  # checkpointed with a heap of every fix (stop 45)
            old: list[tuple[float, int, float, float]] = state["_pending"]
            self._pending, self._heap = {}, []
            for t, mmsi, lon, lat in sorted(old):
                if self._pending.setdefault(mmsi, Pending()).add(t, lon, lat)[1]:
                    heapq.heappush(self._heap, (t, mmsi))

    def _count(self, key: str, n: int = 1) -> None:
        self.counters[key] = self.counters.get(key, 0) + n

    def feed(self, records: Iterable[Record]) -> None:
        """Take the positions among ``records`` (any vessels, any order)."""
        eras, push, pending, heap = self._eras, heapq.heappush, self._pending, self._heap
        for r in records:
            if type(r) is not Position:
                continue
            lon, lat, mmsi, t = r.lon, r.lat, r.mmsi, r.t
            # vessels only, as the pipeline judges them: a SAR aircraft flies past 50 kn
            if lon is None or lat is None or not valid_lonlat(lon, lat):
                continue
            if device_class(mmsi, r.msg_type) != "vessel":
                continue
            if t < self._bound:
                self._count("interference_late")
                continue
            if not math.isfinite(t):  # no 30 s holds it (the decoder gives none such)
                continue
            if t > self._now or t < eras.floor:
                self._now = eras.tick(t, self._now)
            p = pending.get(mmsi)
            if p is None:
                p = pending[mmsi] = Pending()
            thinned, earliest = p.add(t, lon, lat)
            if thinned:
                self._count("interference_thinned")
            if earliest:
                push(heap, (t, mmsi))

    def expire(self, now: float, *, final: bool = False) -> list[Lead]:
        """Settle the fixes the clock ``now`` less the bound has passed (all on
        ``final``: the input is complete) and give out the components that are done."""
        self._eras.settle(now)
        pending, heap, clock = self._pending, self._heap, self._eras.clock
        # an older era's fixes its clock has not passed yet wait aside: the later eras'
        # behind them in the heap run on clocks of their own (a replay of last January's
        # archive before today's traffic would otherwise hold today's back for a day)
        aside: list[tuple[float, int]] = []
        while heap:
            t, mmsi = heap[0]
            p = pending.get(mmsi)
            if p is None or p.t[0] != t:
                heapq.heappop(heap)  # stale: that fix settled, or an earlier one came
                continue
            if not final:
                # a bucket settles whole, once its end is behind the bound (pending.py)
                lim = clock(t, now) - self.lateness_s
                if not bucket_end(t) <= lim:
                    if t < self._eras.floor:
                        aside.append(heapq.heappop(heap))
                        continue
                    self._bound = max(self._bound, bucket_start(lim))
                    break
            heapq.heappop(heap)
            _, lon, lat = p.pop_first()
            if len(p):
                heapq.heappush(heap, (p.t[0], mmsi))
            else:
                del pending[mmsi]
            self._take(mmsi, t, lon, lat)
        else:
            # nothing unsettled: the bound is the clock's (a later fix may not go before)
            self._bound = max(self._bound, bucket_start(now - self.lateness_s))
        for item in aside:
            heapq.heappush(heap, item)
        # a settled fix is never followed by an earlier one (jumps stay in time order)
        # (nor by another of its bucket: the bucket of a settled fix is closed)
        if self._hi > -math.inf:
            self._bound = max(self._bound, bucket_end(self._hi))
        if self._bound - self._swept >= _SWEEP_S:
            self._swept = self._bound
            old = self._bound - FORGET_S  # no later fix can jump from these
            for m in [m for m, f in self._last.items() if f[0] < old]:
                del self._last[m]
                self._came.pop(m, None)
        out: list[Lead] = []
        keep: list[Group] = []
        for g in self._open:
            if g.into is not None:
                continue  # merged into another
            if not (final or g.last_t + WINDOW_S < self._bound):
                keep.append(g)
            elif len(g.vessels) >= MIN_VESSELS:
                out.append(self._lead(g))
        self._open = keep
        # the input complete (final), every run has ended
        ended = math.inf if final else self._bound
        out += self._circles.close(ended) + self._land.close(ended)
        self._count("circle_leads", sum(1 for x in out if x.rule == CIRCLE_RULE))
        self._count("land_leads", sum(1 for x in out if x.rule == LAND_RULE))
        self._count("land_fixes", self._land.counters.pop("land_fixes", 0))
        if final:  # every component is given out: nothing may link to them any more
            self._recent.clear()
            self._cells.clear()
        self._count("interference_leads", sum(1 for x in out if x.rule == RULE))
        return sorted(out, key=lambda x: (x.started_at, x.mmsi, x.rule))

    def _take(self, mmsi: int, t: float, lon: float, lat: float) -> None:
        """A settled fix, in global time order: a jump if no ship could sail to it."""
        self._hi = t
        prev = self._last.get(mmsi)
        if prev is not None:
            if t <= prev[0]:
                self._count("interference_duplicates")  # that (mmsi, t) settled already
                return
            if t - prev[0] <= FORGET_S:
                d = metres(prev[1], prev[2], lon, lat)
                if d > JUMP_M and d / (t - prev[0]) / KN > MAX_KN:
                    came = self._came.pop(mmsi, None)
                    if came is not None and metres(came[1], came[2], prev[1], prev[2]) <= RADIUS_M:
                        self._count("interference_returns")  # back from where it jumped to
                    else:
                        self._came[mmsi] = (t, lon, lat)
                        self._jump(mmsi, prev, (t, lon, lat), d)
        self._last[mmsi] = (t, lon, lat)
        # the same settled order serves the tracks drawn as circles (circles.py) and
        # the runs on land (land.py)
        self._circles.take(mmsi, t, lon, lat)
        self._land.take(mmsi, t, lon, lat)

    def _jump(self, mmsi: int, frm: tuple[float, float, float],
              to: tuple[float, float, float], d: float) -> None:  # fmt: skip
        self._count("interference_jumps")
        t, lon, lat = to
        recent, cells = self._recent, self._cells
        while recent and recent[0].t < t - WINDOW_S:  # too old to link to this or later
            old = recent.popleft()
            key = _cell(old.lon, old.lat)
            cells[key].popleft()  # the oldest of its cell too (all came in time order)
            if not cells[key]:
                del cells[key]
        found: list[Group] = []
        for key in _near_cells(lon, lat):
            for j in cells.get(key, ()):
                g = _root(j.group)
                if g not in found and metres(j.lon, j.lat, lon, lat) <= RADIUS_M:
                    found.append(g)
        if not found:
            g = Group(t)
            self._open.append(g)
        else:
            g = min(found, key=lambda x: x.first_t)  # the oldest absorbs the others
            for o in found:
                if o is not g:
                    self._merge(g, o)
        jump = Jump(mmsi, frm, to, d, g)
        if len(g.jumps) < MAX_JUMPS:
            g.jumps.append(jump)
        else:
            g.more += 1
            self._count("interference_jumps_not_kept")
        g.vessels.add(mmsi)
        g.last_t = t
        recent.append(jump)
        cells.setdefault(_cell(lon, lat), deque()).append(jump)

    def _merge(self, g: Group, o: Group) -> None:
        both = sorted(g.jumps + o.jumps, key=lambda j: (j.t, j.mmsi))
        g.jumps, dropped = both[:MAX_JUMPS], len(both) - MAX_JUMPS
        if dropped > 0:
            self._count("interference_jumps_not_kept", dropped)
        g.more += o.more + max(dropped, 0)
        g.vessels |= o.vessels
        g.first_t, g.last_t = min(g.first_t, o.first_t), max(g.last_t, o.last_t)
        o.into, o.jumps, o.vessels = g, [], set()

    def _lead(self, g: Group) -> Lead:
        js = sorted(g.jumps, key=lambda j: (j.t, j.mmsi))
        lons = [j.lon for j in js]
        if max(lons) - min(lons) > 180.0:  # across the antimeridian: mean of unwrapped
            lons = [x + 360.0 if x < 0 else x for x in lons]
        lon = sum(lons) / len(js)
        lon = round(lon - 360.0 if lon > 180.0 else lon, 7)
        lat = round(sum(j.lat for j in js) / len(js), 7)
        far = [metres(lon, lat, j.lon, j.lat) for j in js]
        points = {EvidencePoint(j.t0, j.lon0, j.lat0, None, None, None) for j in js}
        points |= {
            EvidencePoint(j.t, j.lon, j.lat, None, None, None, f)
            for j, f in zip(js, far, strict=True)
        }
        mmsi = min(g.vessels)
        details: dict[str, Any] = {
            "vessels": [{
                "mmsi": j.mmsi, "t": iso_utc(j.t), "from": [j.lon0, j.lat0],
                "to": [j.lon, j.lat], "jump_m": round(j.d, 1),
                "implied_kn": round(j.d / (j.t - j.t0) / KN, 1),
            } for j in js],
            "vessel_count": len(g.vessels),
            "jumps": len(js) + g.more,
            "jumps_not_kept": g.more,
            "spot": [lon, lat],
            "spread_m": round(max(far), 1),
            "rule": RULE_TEXT,
        }  # fmt: skip
        return build_lead(
            mmsi=mmsi, rule=RULE, zone=None, started_at=g.first_t, ended_at=g.last_t,
            key_point=EvidencePoint(g.first_t, lon, lat, None, None, None),
            points=sorted(points, key=_order),
            cap=EVIDENCE_CAP, vessel=vessel_json(mmsi, None), max_sog_kn=None,
            details=details,
        )  # fmt: skip
