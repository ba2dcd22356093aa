"""One accepted fix of a vessel: the glitch look-ahead, the stop timer and the zone rules.

The pipeline (``alerts.pipeline``) routes a batch's records to their vessels in each
vessel's time order; from there on a fix is this module's: it goes to its segment (one
MMSI may be two ships), waits one fix when it lies near a zone (a GPS glitch is seen by
its successor), and is then accounted and judged. A mixin of
:class:`~vigia.alerts.pipeline.LeadPipeline`, kept apart to be read in one sitting, as
the expiry side is (``alerts.settling``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.episodes import SEG_KEY, Episode, EpisodeConfig
from vigia.alerts.identity.segments import to_segment
from vigia.alerts.identity.state_register import StateVessels
from vigia.alerts.judge import ZoneJudge
from vigia.alerts.lead import Lead
from vigia.alerts.rules import NAV_AT_ANCHOR, NAV_MOORED
from vigia.alerts.tracking import KN, Hit, VesselState, is_glitch, metres, update_stop_timer
from vigia.ingest.records import Position, VesselInfo
from vigia.ingest.registry import VesselRegistry
from vigia.zones.model import Zone


class Acceptance:
    """A vessel's fixes from routing to judgement (see module docstring)."""

    config: EpisodeConfig
    counters: dict[str, int]
    registry: VesselRegistry
    register: AuthorisedRegister
    state_vessels: StateVessels
    _judge: ZoneJudge
    _known: VesselRegistry
    _pending: set[int]
    _zones: list[Zone]

    if TYPE_CHECKING:  # the other mixins' (stubs at run time would shadow them)

        def watch_fix(self, vs: VesselState, pos: Position) -> None: ...  # ports/stage.py

        def _close_stale(self, mmsi: int, vs: VesselState, now: float) -> None: ...

    def _fix(self, vs: VesselState, pos: Position, h: list[Hit] | None) -> None:
        """One fix of a vessel, in its time order (to its segment's state: one MMSI may
        be two ships, alerts/identity/segments.py)."""
        if vs.ident is not None:
            vs.ident.place(pos)  # static-data events waiting for a fix to place them
        routed = to_segment(self, vs, pos)
        if routed is None:
            return  # a tentative segment's fix: judged by no rule
        vs, pos = routed
        t = pos.t
        self.watch_fix(vs, pos)  # silences and port visits (alerts/ports/stage.py)
        forget = self.config.forget_after_s
        if vs.last_t is not None and vs.pending is None and t - vs.last_t > forget:
            self._forget(pos.mmsi, vs, t)
        if h is None and vs.pending is None and vs.episodes is None and vs.approaches is None:
            # fast path, most traffic: nothing near any zone and nothing open
            sog = pos.sog
            if pos.nav_status in (NAV_AT_ANCHOR, NAV_MOORED) or (
                sog is not None and sog <= self.config.anchor_sog_kn
            ):
                # possibly stopped: the full test (SOG may contradict a stale status)
                update_stop_timer(vs, pos, self.config)
            else:
                vs.stop_t = None
            vs.last_t, vs.last_lon, vs.last_lat = t, pos.lon, pos.lat  # type: ignore[assignment]
        else:
            self._feed(vs, pos, h)

    def _forget(self, mmsi: int, vs: VesselState, t: float) -> None:
        """Silent past the forget time: what the expiry sweep would have forgotten is
        forgotten here too, so the verdict never depends on when the sweep ran."""
        if vs.episodes:
            self._close_stale(mmsi, vs, t)
        if not vs.episodes:
            vs.reset()

    def _feed(self, vs: VesselState, pos: Position, hits: list[Hit] | None) -> None:
        """Glitch look-ahead: a fix with hits waits for its successor before it counts."""
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
            if vs.last_t is not None and pos.t - vs.last_t > self.config.forget_after_s:
                self._forget(pos.mmsi, vs, pos.t)
        if hits:
            # judged later, with what was known of the vessel at this fix's time
            mmsi = pos.mmsi % SEG_KEY  # a segment's state is keyed beyond the MMSI
            info = self._known.get(mmsi) or self.registry.get(mmsi)
            vs.pending = (pos, hits, info)
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
            self._judge.judge(
                vs, pos, hits, stopped, sog, info, prev_t, self.register, self.state_vessels
            )
        elif vs.approaches:
            vs.approaches = None

    def _lead(self, ep: Episode, *, closed: bool) -> Lead:
        return ep.to_lead(
            self._zones[ep.zone_idx],
            ep.info,
            closed=closed,
            cap=self.config.max_evidence,
        )
