"""When a decision about a vessel can no longer change: the pipeline's expiry side.

Every decision is taken on the vessel's own records (``alerts.pipeline``); the stream
clock less the lateness bound only says when it is final: a look-ahead fix settles, an
episode is given out closed, a silent vessel is forgotten. A mixin of
:class:`~vigia.alerts.pipeline.LeadPipeline`, kept apart to be read in one sitting.
"""

from __future__ import annotations

import math
from typing import Any

from vigia.alerts.aton import Alive, AtonWatch
from vigia.alerts.distress import DistressTracker
from vigia.alerts.episodes import SEG_KEY, Episode, EpisodeConfig
from vigia.alerts.eras import Eras
from vigia.alerts.gaps.coverage import Coverage
from vigia.alerts.gaps.detect import GapConfig, judge
from vigia.alerts.identity.segments import OVERLAP_S, shared_lead
from vigia.alerts.identity.segments import RULE as SHARED_RULE
from vigia.alerts.identity.static import day_count, last_event_t
from vigia.alerts.identity.static import settle as settle_identity
from vigia.alerts.lead import Lead
from vigia.alerts.tracking import Hit, VesselState
from vigia.ingest.records import Position, VesselInfo
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex

#: how long a forgotten vessel's latest time is kept (a rerun of its records within this
#: is recognised as past the bound; older, they are a new vessel's)
GONE_KEEP_S = 7 * 86_400.0


def _shore_nm(lons: list[float], lats: list[float]) -> list[float]:
    """Geodesic distance to land (nm), from the ballast basemap (loaded on first use)."""
    import numpy as np

    from vigia.zones.ballast import get_assessor

    d = get_assessor().distance_nm(np.asarray(lons), np.asarray(lats))
    return [float(x) for x in d]


class Settling:
    """Expiry passes over the pipeline's vessels (see module docstring)."""

    config: EpisodeConfig
    _now: float
    _eras: Eras
    _expired_at: float
    _last_sweep: float
    _vessels: dict[int, VesselState]
    _pending: set[int]
    _open: set[int]
    _closed: list[Lead]
    _gone: dict[int, tuple[Any, ...]]
    _gapping: set[int]
    gap_config: GapConfig
    _coverage: Coverage
    index: ZoneIndex
    registry: VesselRegistry
    _known: VesselRegistry
    counters: dict[str, int]
    _distress: DistressTracker
    _aton: AtonWatch

    def _apply(
        self, vs: VesselState, pos: Position, hits: list[Hit] | None, info: VesselInfo | None
    ) -> None:
        raise NotImplementedError

    def _lead(self, ep: Episode, *, closed: bool) -> Lead:
        raise NotImplementedError

    def _drain(self) -> list[Lead]:
        raise NotImplementedError

    def _settle_visits(self, now: float, bound: float, final: bool, clock: Any) -> None:
        raise NotImplementedError  # alerts/ports/stage.py

    def _alive(self) -> Alive | None:
        """How many other stations a receiver heard in a time (coverage, issue 33),
        or None when coverage is not counted."""
        return self._coverage.source_heard if self.gap_config.enabled else None

    def expire(self, now: float, *, final: bool = False) -> list[Lead]:
        """Settle what stream time ``now`` less the lateness bound has decided (all of
        it on ``final``: the input is complete): look-ahead fixes that waited too long,
        episodes of vessels clear or silent past the hysteresis (given out closed),
        vessels silent past the forget time."""
        cfg = self.config
        self._now = max(self._now, now)
        bound = 0.0 if final else cfg.lateness_s
        eras = self._eras
        eras.settle(now)
        clock = eras.clock
        self._expired_at = max(self._expired_at, now - bound + cfg.lateness_s)
        for mmsi in list(self._pending):
            vs = self._vessels[mmsi]
            if vs.pending is None:
                continue
            t = vs.pending[0].t
            if clock(t, now) - bound - t > cfg.lookahead_s:
                pos, hits, info = vs.pending
                vs.pending = None
                self._pending.discard(mmsi)
                self._apply(vs, pos, hits, info)
        for mmsi in list(self._open):
            vs = self._vessels[mmsi]
            w = (now if vs.last_t is None else clock(vs.last_t, now)) - bound
            self._settle(mmsi, vs, w)
        for mmsi in list(self._gapping):
            held = self._vessels.get(mmsi)
            ident_t = last_event_t(held.ident) if held is not None else None
            if held is None or not (held.gaps or held.shared or ident_t is not None):
                self._gapping.discard(mmsi)
                continue
            if held.gaps:
                last = held.gaps[0].end.t
            elif held.shared:
                last = held.shared[-1][0].t
            else:
                assert ident_t is not None
                last = ident_t
            # at the end of input nothing can follow: everything is judged
            self._settle_gaps(mmsi, held, math.inf if final else clock(last, now) - bound)
        self._settle_visits(now, bound, final, clock)  # port visits past the bound
        self._closed += self._distress.expire(now, clock)
        self._closed += self._aton.expire(now, clock, self._alive(), bound)
        self.counters.update(self._aton.counters)  # outages and late reports, counted
        if now - self._last_sweep > cfg.forget_after_s:
            self._last_sweep = now
            self._sweep(now, bound)
        return self._drain()

    def _sweep(self, now: float, bound: float) -> None:
        """Forget vessels silent past the forget time with nothing open (their next fix
        would be judged afresh anyway: ``_forget``); trim every timeline to the bound."""
        clock = self._eras.clock
        stale = []
        for m, vs in self._vessels.items():
            last = vs.last_t if vs.last_t is not None else (vs.tl.last_t if vs.tl else None)
            if last is None or last == -math.inf:
                continue
            w = clock(last, now) - bound
            if w - last > self.config.forget_after_s and vs.quiet:
                stale.append(m)
            elif vs.tl is not None:
                vs.tl.trim(w)
        gone = self._gone
        for m in stale:
            vs = self._vessels.pop(m)
            if vs.tl is not None:
                # and the count of its changes that day: the stored history must not
                # depend on whether the sweep forgot it in between (identity/history.py)
                gone[m] = (vs.tl.last_t, vs.seen, day_count(vs.ident))
        if gone:
            horizon = now - GONE_KEEP_S
            for m in [m for m, g in gone.items() if g[0] < horizon]:
                del gone[m]

    def _settle_gaps(self, mmsi: int, vs: VesselState, w: float) -> None:
        """Judge each silence the bound has passed: every other vessel's records of its
        hours are in by then (alerts/gaps/detect.py)."""
        if vs.shared and w - vs.shared[-1][0].t > OVERLAP_S:
            # the overlaps of two ships on one MMSI, once none can follow them
            events, vs.shared = vs.shared, None
            key = (SHARED_RULE, -2, events[0][0].t)
            done = vs.tl.done if vs.tl is not None else set()
            if key not in done:
                info = self._known.get(mmsi) or self.registry.get(mmsi)
                self._closed.append(shared_lead(mmsi, events, info))
                done.add(key)
        if vs.ident is not None and vs.ident.events:
            # static data that changed, once the bound is past the run (identity/static.py)
            done_ids = vs.tl.done if vs.tl is not None else set()
            info = self._known.get(mmsi) or self.registry.get(mmsi)
            self._closed += settle_identity(mmsi, vs.ident, w, info, done_ids)
        keep = []
        for gap in vs.gaps or ():
            if w <= gap.end.t:
                keep.append(gap)
                continue
            done = vs.tl.done if vs.tl is not None else None
            if done is not None and gap.key in done:
                continue
            verdict, lead = judge(
                gap,
                self.gap_config,
                self._coverage,
                self.index,
                _shore_nm,
                mmsi % SEG_KEY,
                int(vs.seen[6]) if vs.seen else 1,
                self._known.get(mmsi) or self.registry.get(mmsi),
            )
            self.counters[f"gaps_{verdict}"] = self.counters.get(f"gaps_{verdict}", 0) + 1
            if lead is not None:
                self._closed.append(lead)
            if done is not None:
                done.add(gap.key)
        vs.gaps = keep or None
        if not keep and not vs.shared and not (vs.ident is not None and vs.ident.events):
            self._gapping.discard(mmsi)

    def bound_of(self, vs: VesselState) -> float:
        """The oldest time a late record of this vessel can still take its place at:
        its clock at the latest expiry pass, less the bound."""
        if self._expired_at == -math.inf:
            return -math.inf
        last = vs.last_t
        if last is None and vs.tl is not None and vs.tl.times:
            last = vs.tl.times[-1]  # static data only so far: its era is its records'
        if last is None:
            return -math.inf  # nothing judged yet: nothing a late record could change
        return self._eras.clock(last, self._expired_at) - self.config.lateness_s

    def _settle_pending(self) -> None:
        for mmsi in list(self._pending):
            vs = self._vessels[mmsi]
            if vs.pending is not None:
                pos, hits, info = vs.pending
                vs.pending = None
                self._apply(vs, pos, hits, info)
        self._pending.clear()

    def _close_stale(self, mmsi: int, vs: VesselState, now: float) -> None:
        """The vessel's own fix at ``now`` ends the episodes it has been clear of past
        the hysteresis; they are held (``closing``) until the bound passes them."""
        if not vs.episodes:
            return
        hold = self.config.hold_s
        for key in [k for k, ep in vs.episodes.items() if now - ep.last_hold_t > hold]:
            ep = vs.episodes.pop(key)
            if vs.closing is None:
                vs.closing = []
            vs.closing.append(ep)
        if not vs.episodes:
            vs.episodes = None

    def _settle(self, mmsi: int, vs: VesselState, w: float) -> None:
        """Give out closed every episode that the vessel's clock less the bound (``w``)
        is past the hysteresis of: no record within the bound can change it now."""
        hold = self.config.hold_s
        if vs.episodes:
            self._close_stale(mmsi, vs, w)
        if vs.closing:
            keep = []
            for ep in vs.closing:
                if w - ep.last_hold_t > hold:
                    self._closed.append(self._lead(ep, closed=True))
                    if vs.tl is not None:
                        vs.tl.done.add((ep.rule, ep.zone_idx, ep.started_at))
                else:
                    keep.append(ep)
            vs.closing = keep or None
        if not vs.episodes and not vs.closing:
            self._open.discard(mmsi)
