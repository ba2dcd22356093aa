"""ATON-DAMAGE (NORMAM-07 0207): an aid to navigation that reports itself off position
(AIS type 21 ``off_position``), or that stops reporting, raises a lead listing the
vessels that passed within ``radius_m`` of it in the ``lookback_s`` before, as
candidates for the damage.

An inspector needs to know which hulls came close to the buoy, not every ship in the
port: only passes inside the radius are kept, per AtoN, for the lookback window (a
bounded ring each). Distances are metres in a local equirectangular frame centred on
the AtoN, whose error at a few kilometres is far below the accuracy of an AIS fix.

One lead per onset: it is raised (already closed: it records a moment) when the AtoN
first says it is off position, or has been silent ``silent_s``; it re-arms once the AtoN
reports on position again. Virtual AtoNs (a broadcast with no buoy) are ignored, and an
AtoN is only watched for silence once it has reported at least twice.

A silence is judged on the stream's own time, never the wall clock (issue 38: a live
feed's idle ticks at wall time made the same input raise 165 leads on one store and 192
on the other), and the same way however the input is batched: a silence between two
reports is found when the second arrives, one still running when the stream's time has
passed it. It is a lead only if the receiver that last heard the AtoN heard other
stations during it (alerts/gaps/coverage.py): a receiver that went down silences every
buoy it heard at once, which is an outage, not damage.
"""

from __future__ import annotations

import math
from bisect import insort
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vigia.alerts.eras import EraClock, one_clock
from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.ingest.records import AidToNavigation, Position, iso_utc
from vigia.ingest.registry import VesselRegistry

RULE = "ATON-DAMAGE"
#: how many other stations receiver ``source`` heard in (t0, t1), ``mmsi`` aside
Alive = Callable[[str, float, float, int], int]
_R = 6_371_008.8  # mean Earth radius (m)
_MAX_PASSES = 20_000  # per AtoN; a busy channel buoy sees a few thousand fixes an hour
_MAX_CANDIDATES = 50


@dataclass(slots=True, frozen=True)
class AtonConfig:
    """How close is "passed close", how far back to look, and how long a silence is."""

    radius_m: float = 500.0
    lookback_s: float = 3_600.0
    silent_s: float = 1_800.0


@dataclass(slots=True)
class _Aton:
    mmsi: int
    lon: float  # the last position it reported on station (where the damage happened)
    lat: float
    name: str | None
    aid_type: int | None
    last_t: float
    reports: int = 1
    armed: bool = True
    raw: tuple[str, ...] = ()
    source: str = ""  # the receiver that last heard it
    #: its reports' times (and whether each said off position) not yet judged for a
    #: silence after them, with the one before (a silence needs a report before it)
    times: list[tuple[float, bool]] = field(default_factory=list)
    checked: float = -math.inf  # reports up to this time have had their silence judged
    passes: deque[tuple[float, int, float, float, float]] = field(
        default_factory=lambda: deque(maxlen=_MAX_PASSES)
    )  # (t, mmsi, distance_m, lon, lat)


class AtonWatch:
    """Per-AtoN state and the vessel passes near each (see module docstring)."""

    def __init__(
        self,
        config: AtonConfig | None = None,
        registry: VesselRegistry | None = None,
    ) -> None:
        self.config = config or AtonConfig()
        # the registry itself, not its bound ``get``: the bus pickles this state and its
        # loader admits only Vigia's own types (a bound method pickles as getattr)
        self._registry = registry
        self._atons: dict[int, _Aton] = {}
        self.counters = {
            "aton_reports": 0,
            "aton_passes": 0,
            "aton_silent_outage": 0,
            "aton_late_past_bound": 0,
        }
        #: the latest time of a record fed here: what a silence is measured against
        self._seen_t = -math.inf

    @property
    def watching(self) -> bool:
        """Whether any AtoN is known (else vessel positions need not be looked at)."""
        return bool(self._atons)

    def feed(self, reports: Sequence[AidToNavigation], vessels: Sequence[Position]) -> list[Lead]:
        """Account AtoN reports and vessel positions (with coordinates); returns the
        off-position leads (a silence is judged by :meth:`expire`)."""
        for v in vessels:
            self._seen_t = max(self._seen_t, v.t)
        for r in reports:
            # an AtoN first heard in this batch watches the batch's ships too: the same
            # passes however the records are batched
            at = _place(r)
            if at is not None and not r.virtual and r.mmsi not in self._atons:
                self._atons[r.mmsi] = _Aton(r.mmsi, *at, r.name, r.aid_type, -math.inf, 0)
        if vessels and self._atons:
            self._passes(vessels)
        out: list[Lead] = []
        for r in sorted(reports, key=lambda r: r.t):
            self._seen_t = max(self._seen_t, r.t)
            lead = self._report(r)
            if lead is not None:
                out.append(lead)
        return out

    def expire(
        self,
        now: float,
        clock: EraClock = one_clock,
        alive: Alive | None = None,
        bound: float = 0.0,
    ) -> list[Lead]:
        """Raise a lead for each silence of ``silent_s`` after a report, once the stream's
        time less the lateness ``bound`` has passed it (every report that could end it
        is in: the same leads however the input is batched or delayed within the bound).
        ``now`` is the stream time, read per AtoN on the clock of its era
        (alerts/eras.py), never past the latest record fed here (a live feed's idle tick
        gives the wall clock)."""
        out: list[Lead] = []
        for a in self._atons.values():
            out += self._silences(a, min(clock(a.last_t, now), self._seen_t) - bound, alive)
        return out

    def _silences(self, a: _Aton, w: float, alive: Alive | None) -> list[Lead]:
        """Judge the silence after each report whose ``silent_s`` ended before ``w``."""
        silent = self.config.silent_s
        ts = a.times
        out: list[Lead] = []
        last = 0
        for i, (t, off) in enumerate(ts):
            if t <= a.checked:
                continue
            if t + silent >= w:
                break
            a.checked, last = t, i
            nxt = ts[i + 1] if i + 1 < len(ts) else None
            if i == 0 or off or (nxt is not None and (nxt[0] - t <= silent or nxt[1])):
                # its first report; already off position (its lead is out); heard again
                # in time; or heard again off position, which raises that onset's lead
                continue
            if alive is not None and not alive(a.source, t, t + silent, a.mmsi):
                # the receiver heard nobody either: an outage, not this buoy's silence
                self.counters["aton_silent_outage"] += 1
                continue
            out.append(self._lead(a, "silent", t + silent, None))
        del ts[:last]  # the last judged one stays: a silence needs a report before it
        return out

    def _report(self, r: AidToNavigation) -> Lead | None:
        self.counters["aton_reports"] += 1
        at = _place(r)
        if r.virtual or at is None:
            return None
        a = self._atons.get(r.mmsi)
        if a is None:
            a = self._atons[r.mmsi] = _Aton(r.mmsi, *at, r.name, r.aid_type, r.t)
        elif r.t >= a.last_t:
            if a.reports == 0:  # registered by feed before the passes: its first report
                a.lon, a.lat = at
            a.last_t = r.t
            a.reports += 1
        if r.t >= a.last_t:
            a.source = r.source
        item = (r.t, bool(r.off_position))
        if r.t <= a.checked:
            self.counters["aton_late_past_bound"] += 1  # its silence is judged already
        elif item not in a.times:
            insort(a.times, item)
        a.name = r.name or a.name
        a.aid_type = r.aid_type if r.aid_type is not None else a.aid_type
        if not r.off_position:
            # on station (or back): this is the position to measure passes from
            (a.lon, a.lat), a.armed, a.raw = at, True, r.raw
            return None
        if not a.armed:
            return None
        a.armed = False
        return self._lead(a, "off_position", r.t, r)

    def _passes(self, vessels: Sequence[Position]) -> None:
        lon = np.fromiter((p.lon for p in vessels), dtype=np.float64, count=len(vessels))
        lat = np.fromiter((p.lat for p in vessels), dtype=np.float64, count=len(vessels))
        reach = self.config.radius_m / _R * 180.0 / math.pi  # degrees of latitude
        for a in self._atons.values():
            near = np.flatnonzero(np.abs(lat - a.lat) <= reach)
            if near.size == 0:
                continue
            k = math.cos(math.radians(a.lat))
            dx = np.radians(lon[near] - a.lon) * k * _R
            dy = np.radians(lat[near] - a.lat) * _R
            d = np.hypot(dx, dy)
            for i, dist in zip(near[d <= self.config.radius_m].tolist(),
                               d[d <= self.config.radius_m].tolist(), strict=True):  # fmt: skip
                p = vessels[i]
                a.passes.append((p.t, p.mmsi, dist, lon[i].item(), lat[i].item()))
                self.counters["aton_passes"] += 1
            # a silence not judged yet names the ships of the hour before it ended
            first = next((t for t, _ in a.times if t > a.checked), a.last_t)
            horizon = min(a.last_t, first + self.config.silent_s) - self.config.lookback_s
            while a.passes and a.passes[0][0] < horizon:
                a.passes.popleft()

    def _candidates(self, a: _Aton, at: float) -> list[dict[str, Any]]:
        best: dict[int, tuple[float, float, int, float, float]] = {}
        start = at - self.config.lookback_s
        for t, mmsi, dist, lon, lat in a.passes:
            if start <= t <= at and (mmsi not in best or dist < best[mmsi][0]):
                best[mmsi] = (dist, t, mmsi, lon, lat)
        out = []
        for dist, t, mmsi, lon, lat in sorted(best.values())[:_MAX_CANDIDATES]:
            v = None if self._registry is None else self._registry.get(mmsi)
            out.append(
                {
                    "mmsi": mmsi,
                    "name": v.name if v else None,
                    "ship_type": v.ship_type if v else None,
                    "closest_m": round(dist, 1),
                    "t": iso_utc(t),
                    "lon": lon,
                    "lat": lat,
                }
            )
        return out

    def _lead(self, a: _Aton, trigger: str, at: float, r: AidToNavigation | None) -> Lead:
        candidates = self._candidates(a, at)
        nearest = candidates[0]["closest_m"] if candidates else 0.0
        # the lead is about the station (where the passes were measured from)
        station = EvidencePoint(at, a.lon, a.lat, None, None, None, nearest)
        points = [station]
        if r is not None and r.lon is not None and r.lat is not None:
            points = [EvidencePoint(r.t, r.lon, r.lat, None, None, None, None)]
        return build_lead(
            mmsi=a.mmsi,
            rule=RULE,
            zone=None,
            started_at=at,
            ended_at=at,
            key_point=station,
            points=points,
            cap=len(points),
            vessel={**vessel_json(a.mmsi, None), "name": a.name},
            max_sog_kn=None,
            raw_sentences=r.raw if r is not None else a.raw,
            details={
                "trigger": trigger,
                "aid_type": a.aid_type,
                "station": {"lon": a.lon, "lat": a.lat},
                "radius_m": self.config.radius_m,
                "lookback_s": self.config.lookback_s,
                "candidates": candidates,
            },
        )


def _place(r: AidToNavigation) -> tuple[float, float] | None:
    """A report's position, if it has one on the Earth."""
    lon, lat = r.lon, r.lat
    if lon is None or lat is None or not (-180 <= lon <= 180 and -90 <= lat <= 90):
        return None
    return lon, lat
