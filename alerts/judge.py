"""Judging one fix against the zones it is near: the rules of NORMAM-07 0211/0212.

Kept apart from :mod:`alerts.pipeline` (which orders, buffers and expires) so each reads
in one sitting: here is what breaks a rule, there is when.
"""

from __future__ import annotations

from typing import Any

from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.beach import is_installation, made_good_in_band, reclassify
from vigia.alerts.bearings import BeachBearings
from vigia.alerts.episodes import SEG_KEY, Episode, EpisodeConfig
from vigia.alerts.identity.mid import country
from vigia.alerts.identity.state_register import StateVessels
from vigia.alerts.lead import EvidencePoint
from vigia.alerts.rules import Approach, VesselMoment, approach_ok, area_rule, is_allowed
from vigia.alerts.tracking import Hit, VesselState, moment
from vigia.ingest.records import Position, VesselInfo
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import Zone, ZoneKind

#: ship types that exempt from military areas by default (docs/leads.md): claims to check
CLAIMED_TYPES = frozenset({35, 55})
#: a state ship type claimed by a vessel not on the register of state vessels
CLAIM_RULE = "ID-TYPE-CLAIM"


class ZoneJudge:
    """The zone rules over one fix; shares the pipeline's counters and open set."""

    __slots__ = ("bearings", "config", "counters", "open", "sail_band", "thr", "zones")

    def __init__(
        self,
        config: EpisodeConfig,
        zones: list[Zone],
        thr: list[float],
        sail_band: float,
        bearings: BeachBearings,
        counters: dict[str, int],
        open_: set[int],
    ) -> None:
        self.config = config
        self.zones = zones
        self.thr = thr
        self.sail_band = sail_band
        self.bearings = bearings
        self.counters = counters
        self.open = open_

    def hits(self, index: ZoneIndex, lon_a: Any, lat_a: Any) -> list[list[Hit] | None]:
        """Each position's (zone, distance) pairs within the hold margin, one zone query
        for the lot; bearings to beaches prepared for the same batch."""
        hits = index.evaluate(lon_a, lat_a, margin_m=self.config.hold_m)
        per_pos: list[list[Hit] | None] = [None] * len(lon_a)
        for i, z, d in zip(
            hits.pos.tolist(), hits.zone.tolist(), hits.distance_m.tolist(), strict=True
        ):
            lst = per_pos[i]
            if lst is None:
                per_pos[i] = [(z, d)]
            else:
                lst.append((z, d))
        self.bearings.prepare(hits, lon_a, lat_a)
        return per_pos

    def judge(
        self,
        vs: VesselState,
        pos: Position,
        hits: list[Hit],
        stopped: bool,
        sog: float | None,
        info: VesselInfo | None,
        prev_t: float | None,
        register: AuthorisedRegister,
        state: StateVessels,
    ) -> None:
        """Judge one accepted fix with hits against each zone it is near; open or
        extend the episodes it breaks and hold those it stays near."""
        cfg = self.config
        assert pos.lon is not None and pos.lat is not None
        t = pos.t
        m = moment(vs, pos, info, stopped, sog, cfg)
        mmsi = pos.mmsi % SEG_KEY  # a segment's state is keyed beyond the MMSI
        ship_type = m.ship_type
        if vs.episodes:
            reclassify(vs.episodes, t, m.sailing, m.propulsion_basis)
        authority = None
        for z, d in hits:
            authority = self.zones[z].authority_at(d) or authority
        in_band: set[int] = set()
        for z, d in hits:
            zone = self.zones[z]
            if zone.kind is ZoneKind.JURISDICTION or not zone.in_force(t):
                continue
            allowed = is_allowed(zone, mmsi, ship_type)
            # a state ship type (35, 55) exempts on its own word only if the register of
            # state vessels has the MMSI: otherwise it is judged like any vessel, and
            # the claim itself is a lead (issue 34; alerts/identity)
            claim = (
                allowed
                and ship_type in CLAIMED_TYPES
                and mmsi not in zone.allowed_mmsi
                and state.entry(mmsi, t) is None
            )
            if claim:
                allowed = False
            if zone.kind is ZoneKind.PLATFORM and not allowed:
                if register.allows(zone, mmsi, t):
                    self.counters["authorised_fixes"] += 1
                    continue
                if is_installation(m, d, info, cfg):
                    self.counters["installation_fixes"] += 1
                    continue
            if zone.kind is ZoneKind.BATHER_BEACH:
                if allowed:
                    continue
                thr = min(self.sail_band, self.thr[z]) if m.sailing else self.thr[z]
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
                        self.bearings.bearing(z, pos.lon, pos.lat, d),
                        cfg.approach,
                        made_good,
                        (pos.lon, pos.lat),
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
                thr = self.thr[z]
                breaks = d <= thr
                near = d <= thr + cfg.hold_m
            rules = (rule, CLAIM_RULE) if claim else (rule,)
            for r in rules:
                if breaks:
                    self._extend(vs, pos, r, z, d, thr, m, authority, info)
                elif near and vs.episodes:
                    ep = vs.episodes.get((r, z))
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
            elif rule == CLAIM_RULE:
                # whose flag the MMSI says: a foreign state ship is a diplomatic
                # clearance to check, a Brazilian one a register to update (evidence)
                ep.notes["mid"], ep.notes["mid_country"] = country(pos.mmsi % SEG_KEY)
            self.open.add(pos.mmsi)
        ep.info = info
        assert pos.lon is not None and pos.lat is not None
        point = EvidencePoint.of(pos, d, pos.lon, pos.lat)
        ep.add(point, pos.raw, authority, self.config.max_evidence)
