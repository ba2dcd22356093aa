"""Episodes: one vessel breaking one rule in one zone, from first to last breaking fix.

An episode keeps only what its lead needs (first, last and closest positions, a bounded
evenly-thinned sample, the minimum distance and maximum speed), so a ship lying at anchor
in a channel for a week costs the same memory as one crossing it for a minute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.alerts.rules import ApproachPolicy
from vigia.ingest.records import VesselInfo
from vigia.zones.model import Zone

#: a segment of an MMSI other than the vessel's own is judged under mmsi + k * SEG_KEY
#: (alerts/identity/segments.py); its leads carry the MMSI and ``details.segment``
SEG_KEY = 1_000_000_000


@dataclass(frozen=True, slots=True)
class EpisodeConfig:
    """Tunables of episode detection (defaults are what an inspector would expect)."""

    # an episode closes once the vessel has been clear this long ...
    hold_s: float = 600.0
    # ... and "clear" means more than this beyond the rule distance (boundary jitter)
    hold_m: float = 50.0
    # a fix implying more than this speed from both neighbours is a glitch
    glitch_speed_kn: float = 60.0
    # and jumps shorter than this are never glitches (GPS noise on fast updates)
    glitch_min_jump_m: float = 200.0
    # a fix with hits waits at most this long (stream time) for its next neighbour
    lookahead_s: float = 120.0
    # SOG at or below this is stopped; stopped this long is anchored (status 1 is at once)
    anchor_sog_kn: float = 0.5
    anchor_dwell_s: float = 300.0
    # a stale "at anchor" status is ignored while the vessel visibly moves faster than this
    status_moving_kn: float = 2.0
    max_evidence: int = 200
    # a stopped vessel this close to a platform's footprint (m) and at least this long
    # (m) is the installation or moored to it (see beach.is_installation)
    installation_radius_m: float = 100.0
    installation_min_length_m: float = 100.0
    # vessels silent this long with nothing open are forgotten
    forget_after_s: float = 3600.0
    # the lateness bound (issue 31): a record up to this much older than the stream
    # clock still takes its place in its vessel's history, and nothing it could change
    # is given out as settled before then. Satellite AIS arrives minutes to a couple of
    # hours late; 0 judges in arrival order (no timeline, no duplicate check)
    lateness_s: float = 7200.0
    approach: ApproachPolicy = field(default_factory=ApproachPolicy)


class Episode:
    """Running state of one open episode."""

    __slots__ = (
        "authority",
        "closest",
        "closest_raw",
        "count",
        "first",
        "info",
        "last",
        "last_hold_t",
        "max_sog",
        "mmsi",
        "notes",
        "rule",
        "sailing",
        "samples",
        "started_at",
        "stride",
        "threshold_m",
        "zone_idx",
    )

    def __init__(self, mmsi: int, rule: str, zone_idx: int, threshold_m: float) -> None:
        self.mmsi = mmsi
        self.rule = rule
        self.zone_idx = zone_idx
        self.threshold_m = threshold_m
        self.started_at = 0.0
        self.last_hold_t = 0.0
        self.first: EvidencePoint | None = None
        self.last: EvidencePoint | None = None
        self.closest: EvidencePoint | None = None
        self.closest_raw: tuple[str, ...] = ()
        self.authority: str | None = None
        self.max_sog: float | None = None
        self.samples: list[EvidencePoint] = []
        self.stride = 1
        self.count = 0
        self.sailing = False
        # what was known of the vessel at the episode's latest position (the lead shows
        # that, so it does not depend on when the episode happened to be closed)
        self.info: VesselInfo | None = None
        # extra details the judgement adds (propulsion basis, reclassification)
        self.notes: dict[str, Any] = {}

    def add(
        self, point: EvidencePoint, raw: tuple[str, ...], authority: str | None, cap: int
    ) -> None:
        """Record one breaking position."""
        if self.first is None:
            self.first = point
            self.started_at = point.t
        self.last = point
        self.last_hold_t = max(self.last_hold_t, point.t)
        d = point.distance_m if point.distance_m is not None else 0.0
        if self.closest is None or d < (self.closest.distance_m or 0.0):
            self.closest = point
            self.closest_raw = raw
            self.authority = authority
        if point.sog is not None and (self.max_sog is None or point.sog > self.max_sog):
            self.max_sog = point.sog
        if self.count % self.stride == 0:
            self.samples.append(point)
            if len(self.samples) >= 2 * cap:
                # halve the sample and its rate: memory stays bounded, spacing stays even
                self.samples = self.samples[::2]
                self.stride *= 2
        self.count += 1

    def to_lead(self, zone: Zone, info: VesselInfo | None, *, closed: bool, cap: int) -> Lead:
        """The lead for this episode, closed (``ended_at`` set) or still open."""
        assert self.first is not None and self.last is not None and self.closest is not None
        seen = {id(p): p for p in (self.first, *self.samples, self.closest, self.last)}
        mmsi, segment = self.mmsi % SEG_KEY, self.mmsi // SEG_KEY
        if segment:
            self.notes["segment"] = segment
        return build_lead(
            mmsi=mmsi,
            rule=self.rule,
            zone=zone,
            started_at=self.started_at,
            ended_at=self.last.t if closed else None,
            key_point=self.closest,
            points=sorted(seen.values(), key=lambda e: e.t),
            cap=cap,
            vessel=vessel_json(mmsi, info),
            max_sog_kn=self.max_sog,
            raw_sentences=self.closest_raw,
            authority=self.authority,
            details={
                "zone_name": zone.name,
                "rule_distance_m": self.threshold_m,
                "vessel_class": "sailing" if self.sailing else "motor",
                "positions": self.count,
                **self.notes,
            },
        )
