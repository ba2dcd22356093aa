"""The in-process lead pipeline: records in, closed leads out, one zone query per batch.

Stage boundary: ``process`` takes a batch of records of any vessels (a bus partition by
MMSI feeds it the same way) and returns the leads closed during the batch. Per-vessel
state is a few slots (last accepted fix, a one-fix look-ahead for glitches, stop timer,
open episodes), and vessels silent for long with nothing open are forgotten.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from vigia.alerts.aton import AtonConfig, AtonWatch
from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.beach import is_installation, made_good_in_band, reclassify, split_records
from vigia.alerts.bearings import BeachBearings
from vigia.alerts.distress import DistressTracker
from vigia.alerts.episodes import Episode, EpisodeConfig
from vigia.alerts.eras import Eras
from vigia.alerts.lead import EvidencePoint, Lead
from vigia.alerts.rules import (
    NAV_AT_ANCHOR,
    NAV_MOORED,
    Approach,
    VesselMoment,
    approach_ok,
    area_rule,
    is_allowed,
)
from vigia.alerts.tracking import (
    KN,
    Hit,
    VesselState,
    is_glitch,
    metres,
    moment,
    update_stop_timer,
)
from vigia.ingest.records import Position, Record, VesselInfo
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import ZoneKind


class LeadPipeline:
    """Turns records into leads against a zone index (see module docstring)."""

    def __init__(
        self,
        index: ZoneIndex,
        registry: VesselRegistry,
        config: EpisodeConfig | None = None,
        aton: AtonConfig | None = None,
        register: AuthorisedRegister | None = None,
    ) -> None:
        self.index = index
        self.registry = registry
        # the authorised-vessel register; the worker swaps in a new one after an edit
        self.register = register or AuthorisedRegister()
        self.config = config or EpisodeConfig()
        self._zones = index.zones
        self._thr = [float(x) for x in index.threshold_m]
        self._sail_band = float(index.sail_band_m)
        self._vessels: dict[int, VesselState] = {}
        self._pending: set[int] = set()
        self._open: set[int] = set()
        self._closed: list[Lead] = []
        self._now = -math.inf
        # one clock per era of the stream, so another era's traffic never expires a
        # vessel's state (see alerts/eras.py)
        self._eras = Eras()
        self._last_sweep = -math.inf
        # bearings to the beach baselines, a batch at a time (checkpointed without them)
        self._bearings = BeachBearings(index, self._zones, self._thr)
        self._distress = DistressTracker(index, self.config)
        self._aton = AtonWatch(aton, registry)
        self.counters: dict[str, int] = {
            "positions": 0,
            "positions_skipped": 0,
            "glitches": 0,
            "leads_closed": 0,
            "installation_fixes": 0,
            "authorised_fixes": 0,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_bearings" not in state:  # checkpointed before the bearings were batched
            self._bearings = BeachBearings(self.index, self._zones, self._thr)

    # -- public interface -------------------------------------------------------------

    def process(self, records: Sequence[Record]) -> list[Lead]:
        """Feed a batch of records; returns the leads closed during it.

        Records take effect in their order: a static report changes the verdict only of
        the positions after it, so the same input gives the same leads whatever the
        batching (a position is judged with what was known at its own time)."""
        batch, beacons, atons, seq, skipped = split_records(records)
        self.counters["positions_skipped"] += skipped
        if atons or (batch and self._aton.watching):
            self._closed += self._aton.feed(atons, batch)  # ATON-DAMAGE, see aton.py
        for r in atons:
            self._tick(r.t)
        if beacons:
            for p in beacons:
                self._tick(p.t)
            self._closed += self._distress.feed(beacons)
            self.counters.update(self._distress.counters)
        if not batch:
            for st in seq:
                self.registry.update(st)  # type: ignore[arg-type]
            return self._drain()
        self.counters["positions"] += len(batch)
        lon_a = np.fromiter([p.lon for p in batch], dtype=np.float64, count=len(batch))
        lat_a = np.fromiter([p.lat for p in batch], dtype=np.float64, count=len(batch))
        hits = self.index.evaluate(lon_a, lat_a, margin_m=self.config.hold_m)
        per_pos: list[list[Hit] | None] = [None] * len(batch)
        for i, z, d in zip(
            hits.pos.tolist(), hits.zone.tolist(), hits.distance_m.tolist(), strict=True
        ):
            lst = per_pos[i]
            if lst is None:
                per_pos[i] = [(z, d)]
            else:
                lst.append((z, d))
        self._bearings.prepare(hits, lon_a, lat_a)
        vessels = self._vessels
        stop_sog = self.config.anchor_sog_kn
        registry = self.registry
        eras = self._eras
        for item in seq:
            if type(item) is not int:
                registry.update(item)  # type: ignore[arg-type]
                continue
            pos, h = batch[item], per_pos[item]
            vs = vessels.get(pos.mmsi)
            if (
                h is None
                and vs is not None
                and vs.pending is None
                and vs.episodes is None
                and vs.approaches is None
            ):
                # fast path, most traffic: nothing near any zone and nothing open
                t, sog = pos.t, pos.sog
                if pos.nav_status in (NAV_AT_ANCHOR, NAV_MOORED) or (
                    sog is not None and sog <= stop_sog
                ):
                    # possibly stopped: the full test (SOG may contradict a stale status)
                    update_stop_timer(vs, pos, self.config)
                else:
                    vs.stop_t = None
                vs.last_t, vs.last_lon, vs.last_lat = t, pos.lon, pos.lat  # type: ignore[assignment]
                if t > self._now or t < eras.floor:
                    self._tick(t)
            else:
                self._feed(pos, h)
        return self._drain()

    def expire(self, now: float) -> list[Lead]:
        """Close episodes of vessels clear or silent past the hysteresis at stream time
        ``now``; also settles look-ahead fixes that waited too long."""
        cfg = self.config
        self._now = max(self._now, now)
        eras = self._eras
        eras.settle(now)
        clock = eras.clock
        for mmsi in list(self._pending):
            vs = self._vessels[mmsi]
            if vs.pending is None:
                continue
            t = vs.pending[0].t
            if clock(t, now) - t > cfg.lookahead_s:
                pos, hits, info = vs.pending
                vs.pending = None
                self._pending.discard(mmsi)
                self._apply(vs, pos, hits, info)
        for mmsi in list(self._open):
            vs = self._vessels[mmsi]
            self._close_stale(mmsi, vs, now if vs.last_t is None else clock(vs.last_t, now))
        self._closed += self._distress.expire(now, clock) + self._aton.expire(now, clock)
        if now - self._last_sweep > cfg.forget_after_s:
            self._last_sweep = now
            stale = [
                m
                for m, vs in self._vessels.items()
                if vs.last_t is not None
                and clock(vs.last_t, now) - vs.last_t > cfg.forget_after_s
                and not vs.episodes
                and vs.pending is None
            ]
            for m in stale:
                del self._vessels[m]
        return self._drain()

    def witness(self, clocks: Sequence[float]) -> None:
        """The whole stream's era clocks (ascending), from a process that reads all of
        it: a broker partition sees only its own vessels' times, and its eras' clocks
        would lag the single process's (an episode left open that one process closes).
        They move the clocks on exactly as records at those times would."""
        eras = self._eras
        for t in clocks:
            if t > self._now or t < eras.floor:
                self._tick(t)

    def open_leads(self) -> list[Lead]:
        """Snapshot of every open episode as a lead with ``ended_at`` null."""
        out = []
        for mmsi in sorted(self._open):
            vs = self._vessels[mmsi]
            for ep in (vs.episodes or {}).values():
                out.append(self._lead(ep, closed=False))
        return out + self._distress.open_leads()

    def finish(self) -> list[Lead]:
        """End of input: settle every look-ahead fix, then return the leads closed by
        that and every episode still open (``ended_at`` null)."""
        self._settle_pending()
        closed = self.expire(self._now)
        return closed + self.open_leads()

    def _settle_pending(self) -> None:
        for mmsi in list(self._pending):
            vs = self._vessels[mmsi]
            if vs.pending is not None:
                pos, hits, info = vs.pending
                vs.pending = None
                self._apply(vs, pos, hits, info)
        self._pending.clear()

    def rebuild(self, index: ZoneIndex) -> tuple[LeadPipeline, list[Lead]]:
        """A pipeline on a new zone index (after a zone edit), and the leads of the
        episodes the edit ended: those of zones it changed or removed, closed at their
        last evidence (see :mod:`alerts.handover`). Episodes of unchanged zones, track
        state and distress alarms carry over unbroken."""
        from vigia.alerts.handover import hand_over

        nxt = LeadPipeline(index, self.registry, self.config, register=self.register)
        ended = hand_over(self, nxt)
        distress, self._distress = self._distress, DistressTracker(self.index, self.config)
        distress.index = index
        # the counts so far stay with this pipeline; the new one counts from zero
        distress.counters = dict.fromkeys(distress.counters, 0)
        nxt._distress = distress
        nxt._aton = self._aton  # AtoNs and the passes near them do not depend on zones
        return nxt, ended + self._drain()

    @property
    def stream_time(self) -> float:
        """Latest message time seen (the clock ``expire`` should be given in a replay)."""
        return self._now

    @property
    def vessel_count(self) -> int:
        """Vessels with state held right now."""
        return len(self._vessels)

    # -- internals ----------------------------------------------------------------------

    def _tick(self, t: float) -> None:
        """A record's time moves the stream clock on, or falls in (or starts) an era."""
        self._now = self._eras.tick(t, self._now)

    def _drain(self) -> list[Lead]:
        out, self._closed = self._closed, []
        self.counters["leads_closed"] += len(out)
        return out

    def _feed(self, pos: Position, hits: list[Hit] | None) -> None:
        """Glitch look-ahead: a fix with hits waits for its successor before it counts."""
        vs = self._vessels.get(pos.mmsi)
        if vs is None:
            vs = self._vessels[pos.mmsi] = VesselState()
        if pos.t > self._now or pos.t < self._eras.floor:
            self._tick(pos.t)
        if vs.pending is not None:
            q, qhits, qinfo = vs.pending
            vs.pending = None
            if pos.t - q.t > self.config.lookahead_s:
                # waited past the look-ahead: settled without the glitch test, exactly as
                # expire() would have settled it had a batch ended in between
                self._apply(vs, q, qhits, qinfo)
            elif is_glitch(vs, q, pos, self.config):
                self.counters["glitches"] += 1
            else:
                self._apply(vs, q, qhits, qinfo)
        if hits:
            # judged later, with what is known of the vessel now
            vs.pending = (pos, hits, self.registry.get(pos.mmsi))
            self._pending.add(pos.mmsi)
        else:
            self._pending.discard(pos.mmsi)
            self._apply(vs, pos, None, None)

    def _apply(
        self, vs: VesselState, pos: Position, hits: list[Hit] | None, info: VesselInfo | None
    ) -> None:
        """Account one accepted fix: stop timer, rule judgement, episode upkeep."""
        assert pos.lon is not None and pos.lat is not None
        t = pos.t
        stopped = update_stop_timer(vs, pos, self.config)
        sog = pos.sog
        if sog is None and hits and vs.last_t is not None and t - vs.last_t >= 1.0:
            # no SOG reported: judge on the speed made good since the last fix
            sog = metres(vs.last_lon, vs.last_lat, pos.lon, pos.lat) / (t - vs.last_t) / KN
        prev_t = vs.last_t
        vs.last_t, vs.last_lon, vs.last_lat = t, pos.lon, pos.lat
        if vs.episodes:
            # before judging: a fix after a long clear spell starts a new episode
            self._close_stale(pos.mmsi, vs, t)
        if hits:
            self._judge(vs, pos, hits, stopped, sog, info, prev_t)
        elif vs.approaches:
            vs.approaches = None

    def _judge(
        self,
        vs: VesselState,
        pos: Position,
        hits: list[Hit],
        stopped: bool,
        sog: float | None,
        info: VesselInfo | None,
        prev_t: float | None,
    ) -> None:
        cfg = self.config
        assert pos.lon is not None and pos.lat is not None
        t = pos.t
        m = moment(vs, pos, info, stopped, sog, cfg)
        ship_type = m.ship_type
        if vs.episodes:
            reclassify(vs.episodes, t, m.sailing, m.propulsion_basis)
        authority = None
        for z, d in hits:
            authority = self._zones[z].authority_at(d) or authority
        in_band: set[int] = set()
        for z, d in hits:
            zone = self._zones[z]
            if zone.kind is ZoneKind.JURISDICTION or not zone.in_force(t):
                continue
            allowed = is_allowed(zone, pos.mmsi, ship_type)
            if zone.kind is ZoneKind.PLATFORM and not allowed:
                if self.register.allows(zone, pos.mmsi, t):
                    self.counters["authorised_fixes"] += 1
                    continue
                if is_installation(m, d, info, cfg):
                    self.counters["installation_fixes"] += 1
                    continue
            if zone.kind is ZoneKind.BATHER_BEACH:
                if allowed:
                    continue
                thr = min(self._sail_band, self._thr[z]) if m.sailing else self._thr[z]
                rule = "BATH-SAIL" if m.sailing else "BATH-MOTOR"
                if d <= thr:
                    in_band.add(z)
                    if vs.approaches is None:
                        vs.approaches = {}
                    appr = vs.approaches.get(z)
                    if appr is None:
                        appr = vs.approaches[z] = Approach()
                    made_good = made_good_in_band(prev_t, appr, pos, d, thr)
                    breaks = not approach_ok(
                        m,
                        appr,
                        self._bearings.bearing(z, pos.lon, pos.lat, d),
                        cfg.approach,
                        made_good,
                    )
                    appr.last_t, appr.last_lon, appr.last_lat = t, pos.lon, pos.lat
                    near = breaks
                else:
                    breaks = False
                    # fast just outside the band keeps a beach episode alive (jitter)
                    near = d <= thr + cfg.hold_m and not (
                        stopped or (m.sog is not None and m.sog <= cfg.approach.max_sog_kn)
                    )
            else:
                area = area_rule(zone, m, allowed)
                if area is None:
                    continue
                rule = area
                thr = self._thr[z]
                breaks = d <= thr
                near = d <= thr + cfg.hold_m
            if breaks:
                self._extend(vs, pos, rule, z, d, thr, m, authority, info)
            elif near and vs.episodes:
                ep = vs.episodes.get((rule, z))
                if ep is not None:
                    ep.last_hold_t = max(ep.last_hold_t, t)
        if vs.approaches:
            for z in [z for z in vs.approaches if z not in in_band]:
                del vs.approaches[z]
            if not vs.approaches:
                vs.approaches = None

    def _extend(
        self,
        vs: VesselState,
        pos: Position,
        rule: str,
        z: int,
        d: float,
        thr: float,
        m: VesselMoment,
        authority: str | None,
        info: VesselInfo | None,
    ) -> None:
        assert pos.lon is not None and pos.lat is not None
        if vs.episodes is None:
            vs.episodes = {}
        key = (rule, z)
        ep = vs.episodes.get(key)
        if ep is None:
            ep = vs.episodes[key] = Episode(pos.mmsi, rule, z, thr)
            ep.sailing = m.sailing
            if rule.startswith("BATH-"):
                ep.notes["propulsion"] = m.propulsion_basis
                ep.notes["propulsion_inferred"] = m.propulsion_inferred
            self._open.add(pos.mmsi)
        ep.info = info
        assert pos.lon is not None and pos.lat is not None
        point = EvidencePoint.of(pos, d, pos.lon, pos.lat)
        ep.add(point, pos.raw, authority, self.config.max_evidence)

    def _close_stale(self, mmsi: int, vs: VesselState, now: float) -> None:
        if not vs.episodes:
            self._open.discard(mmsi)
            return
        hold = self.config.hold_s
        for key in [k for k, ep in vs.episodes.items() if now - ep.last_hold_t > hold]:
            ep = vs.episodes.pop(key)
            self._closed.append(self._lead(ep, closed=True))
        if not vs.episodes:
            vs.episodes = None
            self._open.discard(mmsi)

    def _lead(self, ep: Episode, *, closed: bool) -> Lead:
        return ep.to_lead(
            self._zones[ep.zone_idx],
            ep.info,
            closed=closed,
            cap=self.config.max_evidence,
        )
