"""A track drawn as circles: positions made up, not sailed (issue 34).

AIS tracks that run round and round a perfect circle, lap after lap, were seen off
Chinese ports and elsewhere in 2019-2020 (SkyTruth's analyses of "crop circle"
tracks; MIT Technology Review, "Ghost ships, crop circles, and soft gold", 2019): the
positions were generated, by spoofing or by a transponder fed a fake track, while the
ship was somewhere else. No ship needs three laps of a near perfect circle: a turning
trial is one or two turns each way, a purse seiner sets its net in one, a ship at
anchor swings a few hundred metres over a tide, and a search pattern is a square.

- A **run**: a vessel's consecutive fixes (in its time order, as the interference watch
  settles them) that keep turning one way. Fixes less than ``MIN_STEP_M`` from the
  last one are skipped (GPS noise at anchor); a gap over ``MAX_GAP_S``, a turn of more
  than ``MAX_TURN_DEG`` between two legs (a jump, a reversal) or a turn of more than
  ``BACK_DEG`` the other way ends the run.
- A **circle**: a run whose legs have turned through at least ``LAPS`` full turns
  (3 x 360 degrees), whose fixes a least-squares circle (Kasa's algebraic fit, in metres
  on a plane tangent at their mean) fits with a radius from ``MIN_R_M`` to ``MAX_R_M``
  and a root-mean-square distance off it no more than ``FIT`` (10 %) of the radius. One
  ``ID-CIRCLE`` lead a run, given out when the run ends (its next fix breaks it, a gap
  the settled bound has passed, or the end of input), so the lead is the same however
  the data arrives.
"""

from __future__ import annotations

import math
from array import array
from typing import Any

import numpy as np

from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.alerts.tracking import metres

RULE = "ID-CIRCLE"
LAPS = 3
MIN_STEP_M = 20.0
MAX_GAP_S = 600.0
MAX_TURN_DEG = 90.0
BACK_DEG = 20.0
MIN_R_M = 100.0
MAX_R_M = 5_000.0
FIT = 0.10
#: fixes a run keeps for its fit and evidence (the last ones; laps are counted on all)
MAX_FIXES = 720
#: a run keeps a fix once the track has turned ``KEEP_DEG`` or sailed ``KEEP_S`` since
#: the last one kept (and always its last): 72 a lap are plenty for the fit, and a ship
#: on a long straight passage (a run that never turns back) keeps 6 an hour, not 360
KEEP_DEG = 5.0
KEEP_S = 600.0
EVIDENCE_CAP = 50
RULE_TEXT = (
    f"a track turning one way through {LAPS}+ full turns (fixes {MIN_STEP_M:.0f}+ m "
    f"apart, no gap over {MAX_GAP_S:.0f} s) on a circle of {MIN_R_M:.0f}-{MAX_R_M:.0f} m "
    f"radius, its fixes within {FIT:.0%} of the radius of it (root mean square)"
)
_R_EARTH = 6_371_008.8  # the sphere of alerts.tracking.metres


def _bearing(lon0: float, lat0: float, lon1: float, lat1: float) -> float:
    """Initial great-circle bearing, degrees clockwise from north."""
    p0, p1, dl = math.radians(lat0), math.radians(lat1), math.radians(lon1 - lon0)
    y = math.sin(dl) * math.cos(p1)
    x = math.cos(p0) * math.sin(p1) - math.sin(p0) * math.cos(p1) * math.cos(dl)
    return math.degrees(math.atan2(y, x))


def fit_circle(lon: np.ndarray, lat: np.ndarray) -> tuple[float, float, float, float]:
    """(centre lon, centre lat, radius m, rms m off the circle): Kasa's least squares
    on a plane tangent at the fixes' mean (metres east and north)."""
    lon0, lat0 = float(lon.mean()), float(lat.mean())
    k = math.cos(math.radians(lat0))
    x = np.radians(lon - lon0) * k * _R_EARTH
    y = np.radians(lat - lat0) * _R_EARTH
    a = np.column_stack([x, y, np.ones_like(x)])
    b = -(x * x + y * y)
    (d, e, f), *_ = np.linalg.lstsq(a, b, rcond=None)
    cx, cy = -d / 2.0, -e / 2.0
    r = math.sqrt(max(cx * cx + cy * cy - f, 0.0))
    rms = float(np.sqrt(np.mean((np.hypot(x - cx, y - cy) - r) ** 2)))
    clon = lon0 + math.degrees(cx / (_R_EARTH * k))
    clat = lat0 + math.degrees(cy / _R_EARTH)
    return clon, clat, r, rms


class Run:
    """One vessel's fixes turning one way: the last fix, the last leg's bearing, the
    turn so far (signed degrees), and the fixes kept (t, lon, lat, packed: 24 bytes a
    fix; ``kept_at`` is the turn and time of the last kept)."""

    __slots__ = ("heading", "kept", "kept_at", "last", "turned")

    def __init__(self, t: float, lon: float, lat: float) -> None:
        self.last = (t, lon, lat)
        self.heading: float | None = None
        self.turned = 0.0
        self.kept = array("d", self.last)
        self.kept_at = (0.0, t)

    def keep(self) -> None:
        """Keep the last fix if the track has turned or sailed enough since the last
        kept one (module constants); the oldest go past ``MAX_FIXES``."""
        turned, t = self.kept_at
        if abs(self.turned - turned) >= KEEP_DEG or self.last[0] - t >= KEEP_S:
            self.kept.extend(self.last)
            self.kept_at = (self.turned, self.last[0])
            if len(self.kept) > 3 * MAX_FIXES:
                del self.kept[:3]

    @property
    def fixes(self) -> list[tuple[float, float, float]]:
        """The kept fixes and the last, in time order."""
        k = self.kept
        out = [(k[i], k[i + 1], k[i + 2]) for i in range(0, len(k), 3)]
        return out if out[-1] == self.last else [*out, self.last]

    # pickled as plain values: a partition state admits no array type (bus/state.py)
    def __getstate__(self) -> tuple[Any, ...]:
        return self.heading, self.kept.tobytes(), self.kept_at, self.last, self.turned

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) == 2:  # checkpointed before packing
            old = state[1]
            self.heading, self.last, self.turned = old["heading"], old["last"], old["turned"]
            self.kept = array("d", [v for f in old["fixes"] for v in f])
            self.kept_at = (self.turned, self.last[0])
            return
        self.heading, kept, self.kept_at, self.last, self.turned = state
        self.kept = array("d", bytes(kept))


class CircleWatch:
    """Runs of every vessel it is given, in each vessel's time order (module docstring).
    Plain state: pickled with the interference watch that feeds it."""

    def __init__(self) -> None:
        self._runs: dict[int, Run] = {}
        self._done: list[Lead] = []
        self.counters: dict[str, int] = {}

    def take(self, mmsi: int, t: float, lon: float, lat: float) -> None:
        """A settled fix of ``mmsi``, after every earlier one of it."""
        run = self._runs.get(mmsi)
        if run is None:
            self._runs[mmsi] = Run(t, lon, lat)
            return
        t0, lon0, lat0 = run.last
        if t - t0 > MAX_GAP_S:
            self._end(mmsi, run)
            self._runs[mmsi] = Run(t, lon, lat)
            return
        if metres(lon0, lat0, lon, lat) < MIN_STEP_M:
            return  # noise at anchor: neither a leg nor a break
        heading = _bearing(lon0, lat0, lon, lat)
        if run.heading is not None:
            turn = (heading - run.heading + 180.0) % 360.0 - 180.0
            way = math.copysign(1.0, run.turned) if run.turned else math.copysign(1.0, turn)
            if abs(turn) > MAX_TURN_DEG or turn * way < -BACK_DEG:
                self._end(mmsi, run)  # a jump or a turn the other way: a new run from here
                run = self._runs[mmsi] = Run(t0, lon0, lat0)
            else:
                run.turned += turn
        run.heading = heading
        run.last = (t, lon, lat)
        run.keep()

    def close(self, bound: float) -> list[Lead]:
        """The circles given out so far, ending the runs no fix can extend any more (the
        settled ``bound`` more than ``MAX_GAP_S`` past their last fix; all of them at a
        ``bound`` of ``math.inf``: the input is complete)."""
        for mmsi in [m for m, r in self._runs.items() if bound - r.last[0] > MAX_GAP_S]:
            self._end(mmsi, self._runs.pop(mmsi))
        out, self._done = self._done, []
        return out

    def _end(self, mmsi: int, run: Run) -> None:
        laps = abs(run.turned) / 360.0
        if abs(run.turned) < LAPS * 360.0 - 1e-6:  # a micro-degree: the turns' sum rounds
            return
        self.counters["circle_runs"] = self.counters.get("circle_runs", 0) + 1
        fixes = run.fixes
        _, lons, lats = (np.array(c) for c in zip(*fixes, strict=True))
        clon, clat, r, rms = fit_circle(lons, lats)
        if not (MIN_R_M <= r <= MAX_R_M and rms <= FIT * r):
            return
        self._done.append(self._lead(mmsi, fixes, run, laps, (clon, clat, r, rms)))

    def _lead(self, mmsi: int, fixes: list[tuple[float, float, float]], run: Run,
              laps: float, fit: tuple[float, float, float, float]) -> Lead:  # fmt: skip
        clon, clat, r, rms = fit
        first, last = fixes[0][0], fixes[-1][0]
        details: dict[str, Any] = {
            "centre": [round(clon, 6), round(clat, 6)],
            "radius_m": round(r, 1),
            "fit_rms_m": round(rms, 1),
            "laps": round(laps, 2),
            "direction": "clockwise" if run.turned > 0 else "counterclockwise",
            "fixes": len(fixes),
            "rule": RULE_TEXT,
        }
        points = [EvidencePoint(t, lon, lat, None, None, None) for t, lon, lat in fixes]
        return build_lead(
            mmsi=mmsi, rule=RULE, zone=None, started_at=first, ended_at=last,
            key_point=EvidencePoint(first, clon, clat, None, None, None, r),
            points=points, cap=EVIDENCE_CAP, vessel=vessel_json(mmsi, None),
            max_sog_kn=None, details=details,
        )  # fmt: skip
