"""SAR-DISTRESS: AIS-SART, MOB and EPIRB-AIS transmitters raise an immediate lead.

A distress beacon is a life in danger, not a zone question: its lead has no zone, opens
on the first position (no glitch look-ahead: a beacon is never dismissed as a glitch),
and closes like any episode once the beacon has been silent for ``hold_s``.

Test mode: an active AIS-SART reports navigational status 14 ("AIS-SART is active");
in test mode it reports 15 ("undefined/test"). Status 15 therefore raises nothing, so a
routine test of a liferaft's beacon never pages a duty officer. Any other status, or
none (class B style reports carry none), raises. Positions without valid coordinates
(lat 91 / lon 181, "not available") cannot be located and are skipped (counted).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vigia.alerts.episodes import Episode, EpisodeConfig
from vigia.alerts.eras import EraClock, one_clock
from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.ingest.records import Position, device_class
from vigia.ingest.units import valid_lonlat
from vigia.zones.evaluate import ZoneIndex

RULE = "SAR-DISTRESS"
NAV_SART_TEST = 15


def is_distress_mmsi(mmsi: int) -> bool:
    """970xxxxxx (SART), 972xxxxxx (MOB) or 974xxxxxx (EPIRB-AIS)."""
    return mmsi // 1_000_000 in (970, 972, 974)


class DistressTracker:
    """Open distress episodes, one per transmitter, with the same time hysteresis."""

    def __init__(self, index: ZoneIndex, config: EpisodeConfig) -> None:
        self.index = index
        self.config = config
        self._open: dict[int, tuple[Episode, str, tuple[str, ...]]] = {}
        self.counters = {"distress_positions": 0, "distress_test": 0, "distress_no_fix": 0}

    def feed(self, positions: Sequence[Position]) -> list[Lead]:
        """Account beacon positions (time-ordered); returns leads closed by a gap."""
        live: list[Position] = []
        for p in positions:
            if p.nav_status == NAV_SART_TEST:
                self.counters["distress_test"] += 1
            elif not valid_lonlat(p.lon, p.lat):
                self.counters["distress_no_fix"] += 1
            else:
                live.append(p)
        if not live:
            return []
        self.counters["distress_positions"] += len(live)
        authority = self._authorities(live)
        closed: list[Lead] = []
        cfg = self.config
        for p, auth in zip(live, authority, strict=True):
            assert p.lon is not None and p.lat is not None
            cur = self._open.get(p.mmsi)
            if cur is not None and p.t - cur[0].last_hold_t > cfg.hold_s:
                # silent past the hysteresis: the old activation ends, this one is new
                closed.append(self._lead(*self._open.pop(p.mmsi), closed=True))
                cur = None
            if cur is None:
                ep = Episode(p.mmsi, RULE, -1, 0.0)
                cur = self._open[p.mmsi] = (ep, device_class(p.mmsi, p.msg_type), p.raw)
            ep = cur[0]
            point = EvidencePoint.of(p, 0.0, p.lon, p.lat)
            ep.add(point, p.raw, None, cfg.max_evidence)
            # the latest fix is where the people are now: it is the lead's key point
            ep.closest, ep.closest_raw = point, p.raw
            ep.authority = auth or ep.authority
        return closed

    def expire(self, now: float, clock: EraClock = one_clock) -> list[Lead]:
        """Close the episodes of beacons silent for longer than ``hold_s`` at ``now``, or
        at ``clock(t, now)``, the clock of the era of their last fix (alerts/eras.py)."""
        hold = self.config.hold_s
        gone = [
            m
            for m, cur in self._open.items()
            if clock(cur[0].last_hold_t, now) - cur[0].last_hold_t > hold
        ]
        return [self._lead(*self._open.pop(m), closed=True) for m in gone]

    def open_leads(self) -> list[Lead]:
        """Every open distress episode as a lead with ``ended_at`` null."""
        return [self._lead(*self._open[m], closed=False) for m in sorted(self._open)]

    def _authorities(self, live: Sequence[Position]) -> list[str | None]:
        """Route each fix to the jurisdiction polygon it lies in (PROC-AUTHORITY)."""
        out: list[str | None] = [None] * len(live)
        lon = np.fromiter((p.lon for p in live), dtype=np.float64, count=len(live))
        lat = np.fromiter((p.lat for p in live), dtype=np.float64, count=len(live))
        hits = self.index.evaluate(lon, lat)
        zones = self.index.zones
        for i, z, d in zip(
            hits.pos.tolist(), hits.zone.tolist(), hits.distance_m.tolist(), strict=True
        ):
            out[i] = zones[z].authority_at(d) or out[i]
        return out

    def _lead(
        self,
        ep: Episode,
        device: str,
        first_raw: tuple[str, ...],
        *,
        closed: bool,
    ) -> Lead:
        assert ep.first is not None and ep.last is not None and ep.closest is not None
        seen = {id(e): e for e in (ep.first, *ep.samples, ep.last)}
        raw = list(first_raw) + [s for s in ep.closest_raw if s not in first_raw]
        return build_lead(
            mmsi=ep.mmsi,
            rule=RULE,
            zone=None,
            started_at=ep.started_at,
            ended_at=ep.last.t if closed else None,
            key_point=ep.closest,
            points=sorted(seen.values(), key=lambda e: e.t),
            cap=self.config.max_evidence,
            # beacons send no static data; a MOB/EPIRB's vessel is not known from AIS
            vessel=vessel_json(None, None),
            max_sog_kn=ep.max_sog,
            raw_sentences=raw,
            authority=ep.authority,
            details={"device": device, "positions": ep.count},
        )
