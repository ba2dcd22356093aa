"""The in-process lead pipeline: records in, closed leads out, one zone query per batch.

Stage boundary: ``process`` takes a batch of records of any vessels (a bus partition by
MMSI feeds it the same way) and returns the leads settled during the batch. Per-vessel
state is a few slots (last accepted fix, a one-fix look-ahead for glitches, stop timer,
open episodes, its timeline of recent records), and vessels silent for long with nothing
open are forgotten.

A vessel's verdicts are a function of its own set of records (issue 31). Every decision
about a vessel is taken on its own records in time order (late ones put in their place
by :mod:`alerts.arrival`); the stream clock only says when a decision can no longer
change: a look-ahead fix settles, an episode is given out closed and a silent vessel is
forgotten once the clock *less the lateness bound* has passed the time that decides it,
so no record within the bound can arrive after the decision that it would have changed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from vigia.alerts.acceptance import Acceptance
from vigia.alerts.arrival import MAX_ENTRIES, Kept, Snapshot, Timeline, clone_state
from vigia.alerts.aton import AtonConfig, AtonWatch
from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.beach import split_records
from vigia.alerts.bearings import BeachBearings
from vigia.alerts.distress import DistressTracker
from vigia.alerts.encounters.stage import Pairing
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.eras import Eras
from vigia.alerts.gaps.coverage import Coverage, Heard
from vigia.alerts.gaps.detect import GapConfig
from vigia.alerts.identity.history import IdentityStage
from vigia.alerts.identity.state_register import StateVessels
from vigia.alerts.identity.static import learn, resume
from vigia.alerts.judge import ZoneJudge
from vigia.alerts.lead import Lead
from vigia.alerts.ports.stage import PortStage
from vigia.alerts.settling import Settling
from vigia.alerts.tracking import (
    Hit,
    VesselState,
)
from vigia.ingest.records import Record, StaticData, iso_utc
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex


class LeadPipeline(Acceptance, Pairing, PortStage, Settling, IdentityStage):
    """Turns records into leads against a zone index (see module docstring)."""

    def __init__(
        self,
        index: ZoneIndex,
        registry: VesselRegistry,
        config: EpisodeConfig | None = None,
        aton: AtonConfig | None = None,
        register: AuthorisedRegister | None = None,
        gaps: GapConfig | None = None,
    ) -> None:
        self.index = index
        self.registry = registry
        # the authorised-vessel register; the worker swaps in a new one after an edit
        self.register = register or AuthorisedRegister()
        # the register of state vessels (issue 34), swapped in the same way
        self.state_vessels = StateVessels()
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
        # static data in the order the pipeline judges it (a late report takes its
        # place too); the shared registry answers for vessels it has not seen yet
        self._known = VesselRegistry()
        # the stream time of the latest expiry pass: a record older than a vessel's
        # clock then, less the bound, is past the bound
        self._expired_at = -math.inf
        # open leads a late record superseded, as they stood, marked superseded_by
        self._revisions: list[Lead] = []
        # vessels forgotten, with their latest time: a rerun of their records after
        # that is past the bound, not a new vessel (pruned after GONE_KEEP_S)
        self._gone: dict[int, tuple[Any, ...]] = {}
        # going dark (issue 33): what the receivers heard, and vessels with silences
        # waiting for the bound to pass them
        self.gap_config = gaps or GapConfig()
        self._coverage = Coverage()
        self._gapping: set[int] = set()
        self.counters: dict[str, int] = {
            "positions": 0,
            "positions_skipped": 0,
            "glitches": 0,
            "leads_closed": 0,
            "installation_fixes": 0,
            "authorised_fixes": 0,
            "duplicates": 0,
            "late_records": 0,
            "late_past_bound": 0,
            "rejudged": 0,
        }
        self._judge = self._make_judge()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_bearings" not in state:  # checkpointed before the bearings were batched
            self._bearings = BeachBearings(self.index, self._zones, self._thr)
        if "_known" not in state:  # checkpointed before issue 31
            self._known = VesselRegistry()
            self._expired_at = -math.inf
            self._revisions = []
            self._gone = {}
        if "state_vessels" not in state:  # checkpointed before issue 34
            self.state_vessels = StateVessels()
        if "_coverage" not in state:  # checkpointed before issue 33
            self.gap_config = GapConfig()
            self._coverage = Coverage()
            self._gapping = set()
            self._gone = {m: (float(t), None) for m, t in state.get("_gone", {}).items()}
            for k in ("duplicates", "late_records", "late_past_bound", "rejudged"):
                self.counters.setdefault(k, 0)
        self._judge = self._make_judge()

    def _make_judge(self) -> ZoneJudge:
        # shares the counters and the open set: built anew on load, never pickled
        return ZoneJudge(
            self.config,
            self._zones,
            self._thr,
            self._sail_band,
            self._bearings,
            self.counters,
            self._open,
        )

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_judge", None)  # rebuilt from the rest on load
        state.pop("_port_finder", None)  # the port zones' shapes: rebuilt when first needed
        return state

    # -- public interface -------------------------------------------------------------

    def process(self, records: Sequence[Record]) -> list[Lead]:
        """Feed a batch of records; returns the leads settled during it.

        Each vessel's records take effect in time order, whatever order they come in: a
        static report changes the verdict only of the positions after it, and a late
        record is put in its place (see :mod:`alerts.arrival`), so the same records give
        the same leads whatever the batching, interleaving, duplication or lateness
        within the bound."""
        batch, beacons, atons, seq, skipped = split_records(self._pair_feed(records))
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
            late: dict[int, list[Kept]] = {}
            for st in seq:
                self._static(st, late)  # type: ignore[arg-type]
            self._rejudge_all(late)
            return self._drain()
        self.counters["positions"] += len(batch)
        lon_a = np.fromiter([p.lon for p in batch], dtype=np.float64, count=len(batch))
        lat_a = np.fromiter([p.lat for p in batch], dtype=np.float64, count=len(batch))
        if self.gap_config.enabled:
            self._coverage.add(
                [p.mmsi for p in batch], [p.t for p in batch], lon_a, lat_a,
                [p.source for p in batch],
            )  # fmt: skip
        per_pos = self._hits(lon_a, lat_a)
        self.prefetch_ports(lon_a, lat_a)
        vessels = self._vessels
        eras = self._eras
        late = {}
        for item in seq:
            if type(item) is not int:
                self._static(item, late)  # type: ignore[arg-type]
                continue
            pos, h = batch[item], per_pos[item]
            t = pos.t
            if t > self._now or t < eras.floor:
                self._tick(t)
            vs = vessels.get(pos.mmsi)
            if vs is None:
                vs = self._new_vessel(pos.mmsi)
            tl = vs.tl
            if tl is not None:
                if pos.mmsi in late or t <= tl.last_t:
                    # out of order (or a tie to order by content): put in its place
                    # once the batch is read, with the vessel's other late records
                    late.setdefault(pos.mmsi, []).append(pos)
                    continue
                if tl.wants_snapshot(t):
                    self._snapshot(vs, tl, pos.mmsi)
                tl.append(pos)
            self._fix(vs, pos, h)
        self._rejudge_all(late)
        return self._drain()

    def _hits(self, lon_a: Any, lat_a: Any) -> list[list[Hit] | None]:
        return self._judge.hits(self.index, lon_a, lat_a)

    def _static(self, st: StaticData, late: dict[int, list[Kept]]) -> None:
        self.registry.update(st)
        if st.t > self._now or st.t < self._eras.floor:
            self._tick(st.t)  # a vessel known by its static data lives in its era too
        vs = self._vessels.get(st.mmsi)
        if vs is None and self.config.lateness_s > 0:
            vs = self._new_vessel(st.mmsi)
        tl = None if vs is None else vs.tl
        if vs is not None and tl is not None:
            if st.mmsi in late or st.t <= tl.last_t:
                late.setdefault(st.mmsi, []).append(st)
                return
            if tl.wants_snapshot(st.t):
                self._snapshot(vs, tl, st.mmsi)
            tl.append(st)
        learn(self, vs, st)  # identity checks, then into what is known

    def _new_vessel(self, mmsi: int) -> VesselState:
        vs = self._vessels[mmsi] = VesselState()
        if self.config.lateness_s > 0:
            # a vessel forgotten earlier: what came before its forgetting is past the bound
            floor, seen, *count = self._gone.pop(mmsi, (-math.inf, None, None))
            vs.tl = Timeline(floor=floor)
            vs.seen = seen  # a silence spans its forgetting
            vs.ident = resume(count[0] if count else None)  # and its day's changes
        return vs

    def _snapshot(self, vs: VesselState, tl: Timeline, mmsi: int) -> None:
        tl.snaps.append(Snapshot(len(tl.times), clone_state(vs), self._known.row(mmsi)))
        if len(tl.times) > MAX_ENTRIES:
            tl.trim(-math.inf)  # the oldest copy goes: bounded memory per vessel

    def _rejudge_all(self, late: dict[int, list[Kept]]) -> None:
        if late:
            from vigia.alerts.rejudge import rejudge

            for mmsi, recs in late.items():
                rejudge(self, mmsi, self._vessels[mmsi], recs)

    def take_revisions(self) -> list[Lead]:
        """Open leads a late record superseded since the last call, as they stood, with
        ``details.superseded_by`` (the id of the episode that replaced them, or None when
        it is gone): a store that kept one replaces it (``upsert_leads``)."""
        out, self._revisions = self._revisions, []
        return out + self._pair_revisions()

    def hear(self, got: Heard) -> None:
        """What other partitions' vessels were heard where and when (broker mode: the
        ingest sees every record and sends each partition the whole stream's coverage,
        so a gap is judged on what one process would have heard; issue 33)."""
        if self.gap_config.enabled:
            self._coverage.add_heard(got)

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
        """Snapshot of every open episode as a lead with ``ended_at`` null; an episode
        the vessel's own fixes ended that a late record could still change is open too,
        marked ``details.ended_provisionally_at``."""
        out = []
        for mmsi in sorted(self._open):
            vs = self._vessels[mmsi]
            for ep in (vs.episodes or {}).values():
                out.append(self._lead(ep, closed=False))
            for ep in vs.closing or ():
                lead = self._lead(ep, closed=False)
                assert ep.last is not None
                lead.details["ended_provisionally_at"] = iso_utc(ep.last.t)
                out.append(lead)
        return out + self._distress.open_leads() + self._pair_open()

    def finish(self) -> list[Lead]:
        """End of input: settle every look-ahead fix, then return the leads closed by
        that and every episode still open (``ended_at`` null)."""
        self._settle_pending()
        closed = self.expire(self._now, final=True)
        return closed + self.open_leads()

    def rebuild(self, index: ZoneIndex) -> tuple[LeadPipeline, list[Lead]]:
        """A pipeline on a new zone index (after a zone edit), and the leads of the
        episodes the edit ended: those of zones it changed or removed, closed at their
        last evidence (see :mod:`alerts.handover`). Episodes of unchanged zones, track
        state and distress alarms carry over unbroken."""
        from vigia.alerts.handover import hand_over

        nxt = LeadPipeline(
            index, self.registry, self.config, register=self.register, gaps=self.gap_config
        )
        nxt.state_vessels, nxt.encounters = self.state_vessels, self._pair_moved(index)
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
