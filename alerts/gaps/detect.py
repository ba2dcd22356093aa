"""A vessel's silences, scored against coverage, and the ``AIS-GAP`` leads they raise.

A *gap* opens when a vessel is silent for ``min_gap_s`` (15 min) and at least
``interval_factor`` (10) times the reporting interval ITU-R M.1371 sets for its class,
speed and status (a moored class A ship reports every 3 min: 30 min of silence is no
gap for it). It is found on the vessel's own records in time order (the pipeline's
event time), so lateness and duplicates change nothing; it is judged once the lateness
bound has passed its end, when every other vessel's records of those hours are in.

A gap is *suspicious* when the vessel was heard well before it and the area was heard
during it: its own reports in the hour before reach half the rate its class calls for,
other vessels were heard in the cells at its ends (H3, one ring) during the silence, and
the receiver that last heard it heard other vessels meanwhile. Otherwise (nobody heard
there, or that receiver went quiet) it is a coverage gap: counted, no lead. It raises
``AIS-GAP`` when, besides, it starts or ends within ``near_m`` of a closed area, or its
straight path or the area reachable in its time (an ellipse with the two ends as foci,
at ``reach_kn``) comes within the area's rule distance, and the silence does not lie
inside one port visit (``alerts.ports``; a ship there may switch off lawfully; where
visits are not tracked, neither end within ``port_m`` of a port or anchorage). It raises
``AIS-GAP`` too, with no zone, when it lies **inside the ballast lines** (RULES.md): an
end in Brazil's waters landward of the 200 nm line, where NORMAM-20 2.3.1 forbids a
ballast exchange, of a ship NORMAM-20 2.1.1 applies to as far as AIS tells (a class A
transponder, which SOLAS ships carry, and not a pleasure or SAR craft of 50 m or less,
2.1.1 b)), and not lying at anchor or moored across it (both ends at rest within
``port_m`` of each other); a ship dark there may be discharging where it may not. An
implied speed between the ends above ``max_implied_kn`` is not one vessel's silence
(two ships on one MMSI, or a bad fix): no gap lead (issue 34's work).
Global Fishing Watch's "suspected disabling" (12 h, both ends beyond 50 nm, 14 satellite
positions in the 12 h before) is the offshore reference: ``gfw_like`` says whether a gap
meets it (docs/gaps.md).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from vigia.alerts.ballast.applicability import AJB_BOX
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.gaps.coverage import Coverage, cells_around
from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.alerts.rules import NAV_AT_ANCHOR, NAV_MOORED
from vigia.alerts.tracking import KN, VesselState, metres
from vigia.ingest.records import Position, VesselInfo, iso_utc
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import Zone, ZoneKind

#: kinds where a ship may lawfully switch off (no gap lead at or by them)
PORT_KINDS = frozenset({ZoneKind.ANCHORAGE, ZoneKind.PORT_FACILITY})
#: a ship this slow lies at rest, as the pipeline anchors it
_REST_SOG_KN = EpisodeConfig().anchor_sog_kn
#: kinds that are no closed area for this rule
NOT_CLOSED = PORT_KINDS | {ZoneKind.JURISDICTION}


@dataclass(frozen=True, slots=True)
class GapConfig:
    """Tunables of gap detection (docs/gaps.md gives each one's reason)."""

    #: off: no coverage counted, no silence looked for (the benchmark's baseline)
    enabled: bool = True
    min_gap_s: float = 900.0
    interval_factor: float = 10.0
    near_m: float = 1_852.0
    reach_kn: float = 12.0
    max_reach_m: float = 20_000.0
    port_m: float = 3_000.0
    max_implied_kn: float = 50.0
    #: "inside the ballast lines": landward of NORMAM-20 2.3.1 a)'s 200 nm line
    ballast_nm: float = 200.0
    #: GFW's suspected-disabling reference
    gfw_gap_s: float = 43_200.0
    gfw_shore_nm: float = 50.0
    gfw_positions: int = 14


def reporting_interval_s(msg_type: int, sog: float | None, nav_status: int | None) -> float:
    """ITU-R M.1371-5 Table 1 (class A) and Table 2 (class B): the interval a vessel
    reports at, from its message type, speed and status."""
    if msg_type in (18, 19):  # class B: 30 s under way above 2 kn, else 3 min
        return 30.0 if sog is not None and sog > 2.0 else 180.0
    if nav_status in (1, 5) and (sog is None or sog <= 3.0):
        return 180.0  # at anchor or moored, not moving faster than 3 kn
    if sog is None or sog <= 14.0:
        return 10.0
    return 6.0 if sog <= 23.0 else 2.0


class Gap:
    """A silence between two fixes of one vessel, waiting to be judged."""

    __slots__ = ("before", "end", "port", "source", "start")

    def __init__(self, start: EvidencePoint, end: EvidencePoint, source: str, before: int) -> None:
        self.start = start
        self.end = end
        self.source = source  # the receiver that last heard it
        self.before = before  # its reports in the hour before
        # the port visit both ends lie in (its zone id), "" in none, None when visits
        # were not tracked (then an end within port_m of a port zone stands in)
        self.port: str | None = None

    @property
    def key(self) -> tuple[str, int, float]:
        return ("AIS-GAP", -1, self.start.t)


def opens(
    cfg: GapConfig, last_t: float, t: float, msg_type: int, sog: float | None, status: int | None
) -> bool:
    """Whether a silence from ``last_t`` to ``t`` is a gap for this vessel."""
    dt = t - last_t
    return dt >= cfg.min_gap_s and dt >= cfg.interval_factor * reporting_interval_s(
        msg_type, sog, status
    )


def note_silence(vs: VesselState, pos: Position, seen: tuple[Any, ...], cfg: GapConfig) -> bool:
    """A silence since ``seen`` (the vessel's previous fix) up to ``pos``: kept on the
    vessel as a gap to judge once the bound has passed it, if it is one."""
    t0, lon, lat, sog, cog, status, msg_type, source = seen
    if not opens(cfg, t0, pos.t, msg_type, sog, status):
        return False
    tl = vs.tl
    before = 0
    if tl is not None:  # its reports in the hour before the silence
        before = bisect_right(tl.times, t0) - bisect_left(tl.times, t0 - 3_600.0)
    start = EvidencePoint(t0, lon, lat, sog, cog, status)
    end = EvidencePoint.of(pos, None, pos.lon, pos.lat)  # type: ignore[arg-type]
    if vs.gaps is None:
        vs.gaps = []
    vs.gaps.append(Gap(start, end, source, before))
    return True


def judge(
    gap: Gap,
    cfg: GapConfig,
    coverage: Coverage,
    index: ZoneIndex,
    shore: Callable[[list[float], list[float]], list[float]],
    mmsi: int,
    msg_type: int,
    info: VesselInfo | None,
) -> tuple[str, Lead | None]:
    """(verdict, lead): verdict is one of ``coverage``, ``identity``, ``port``, ``clear``
    (suspicious but near nothing) or ``lead``."""
    a, b = gap.start, gap.end
    dt = b.t - a.t
    dist = metres(a.lon, a.lat, b.lon, b.lat)
    implied = dist / dt / KN if dt > 0 else math.inf
    if implied > cfg.max_implied_kn:
        return "identity", None
    expected_before = 3_600.0 / reporting_interval_s(msg_type, a.sog, a.nav_status)
    heard_well = gap.before >= 0.5 * expected_before
    cells = sorted(set(cells_around(a.lon, a.lat)) | set(cells_around(b.lon, b.lat)))
    others = coverage.others_heard(cells, a.t, b.t, mmsi)
    alive = coverage.source_heard(gap.source, a.t, b.t, mmsi) if gap.source else 0
    shore_nm = shore([a.lon, b.lon], [a.lat, b.lat])
    reasons: list[dict[str, Any]] = [
        {"code": "rate_before", "reports_hour_before": gap.before,
         "expected": round(expected_before, 1), "met": heard_well},
        {"code": "others_heard", "vessels": others, "met": others > 0},
        {"code": "receiver_alive", "source": gap.source, "vessels": alive,
         "met": alive > 0},
        {"code": "shore_nm", "start": round(shore_nm[0], 1), "end": round(shore_nm[1], 1)},
    ]  # fmt: skip
    # a coverage gap when nobody else was heard by it, or the receiver that heard the
    # vessel heard nothing else meanwhile (a source that is not known says nothing)
    covered = others > 0 and (alive > 0 or not gap.source)
    if not (heard_well and covered):
        return "coverage", None
    port = getattr(gap, "port", None)  # a gap checkpointed before visits has none
    if port:
        return "port", None  # inside one port visit: a ship may switch off there
    hits = _zones_touched(gap, cfg, index, dt)
    if port is None and any(index.zones[z].kind in PORT_KINDS for z, _ in hits["port"]):
        return "port", None
    named = hits["closed"]
    # a ship lying at anchor or moored across the silence, wherever, is at an anchorage
    # as RULES.md means it ("never at a quay or anchorage"), for the lines' sake
    resting = dist <= cfg.port_m and all(_at_rest(p) for p in (a, b))
    ballast = carries_ballast(msg_type, info) and not resting
    lines = _inside_lines(cfg, a, b, shore_nm) if ballast else []
    if not named and not lines:
        return "clear", None
    score = round((1.0 + (others > 0) + (alive > 0) + min(1.0, dt / cfg.gfw_gap_s)) / 4.0, 2)
    zone: Zone | None = None
    details: dict[str, Any] = {"zone_name": None, "zones": []}
    if named:
        z0, path_d, d_start, d_end = named[0]
        zone = index.zones[z0]
        # the lead is about the end nearer the area (a real fix), at its own distance
        near, d_near = (b, d_end) if d_end < d_start else (a, d_start)
        key = EvidencePoint(
            near.t, near.lon, near.lat, near.sog, near.cog, near.nav_status,
            None if math.isinf(d_near) else d_near,
        )  # fmt: skip
        details = {
            "zone_name": zone.name,
            "zones": [index.zones[z].id for z, *_ in named],
            "path_distance_m": round(path_d, 1),
            "start_distance_m": None if math.isinf(d_start) else round(d_start, 1),
            "end_distance_m": None if math.isinf(d_end) else round(d_end, 1),
        }
    else:  # inside the ballast lines only: about the end nearer the coast
        near = a if shore_nm[0] <= shore_nm[1] else b
        key = EvidencePoint(near.t, near.lon, near.lat, near.sog, near.cog, near.nav_status)
    if lines:
        details["ballast_lines"] = {
            "line_nm": cfg.ballast_nm, "inside": lines,
            "start_nm": round(shore_nm[0], 1), "end_nm": round(shore_nm[1], 1),
        }  # fmt: skip
    details |= {
        "duration_s": round(dt, 1),
        "distance_m": round(dist, 1),
        "implied_speed_kn": round(implied, 2),
        "score": score,
        "reasons": reasons,
        "gfw_like": bool(
            dt >= cfg.gfw_gap_s
            and min(shore_nm) > cfg.gfw_shore_nm
            and gap.before >= cfg.gfw_positions
        ),
        "reach_m": round(_reach_m(cfg, dt), 1),
        "started_silence_at": iso_utc(a.t),
    }
    lead = build_lead(
        mmsi=mmsi, rule="AIS-GAP", zone=zone, started_at=a.t, ended_at=b.t, key_point=key,
        points=[a, b], cap=10, vessel=vessel_json(mmsi, info),
        max_sog_kn=max((p.sog for p in (a, b) if p.sog is not None), default=None),
        details=details,
    )  # fmt: skip
    return "lead", lead


def carries_ballast(msg_type: int, info: VesselInfo | None) -> bool:
    """Whether NORMAM-20 2.1.1 applies to the vessel as far as its AIS tells: a class A
    transponder (SOLAS ships carry one, and ships carry ballast tanks), not a pleasure
    (37) or search and rescue (51) craft of 50 m or less (2.1.1 b)). Class B is small
    craft, which carry none."""
    if msg_type not in (1, 2, 3, 5):
        return False
    if info is None or info.ship_type not in (37, 51):
        return True
    return info.length_m is None or info.length_m > 50.0


def _at_rest(p: EvidencePoint) -> bool:
    """At anchor or moored by its status, or no faster than the pipeline's anchoring
    speed (EpisodeConfig.anchor_sog_kn)."""
    return p.nav_status in (NAV_AT_ANCHOR, NAV_MOORED) or (
        p.sog is not None and p.sog <= _REST_SOG_KN
    )


def _inside_lines(cfg: GapConfig, a: EvidencePoint, b: EvidencePoint,
                  shore_nm: list[float]) -> list[str]:  # fmt: skip
    """The ends ("start", "end") lying in Brazil's waters (NORMAM-20 2.1.1 d)'s box, as
    the ballast audit takes them) landward of the ``ballast_nm`` line."""
    x0, y0, x1, y1 = AJB_BOX
    return [
        name
        for name, p, nm in (("start", a, shore_nm[0]), ("end", b, shore_nm[1]))
        if nm < cfg.ballast_nm and x0 <= p.lon <= x1 and y0 <= p.lat <= y1
    ]


def _reach_m(cfg: GapConfig, dt: float) -> float:
    return min(cfg.max_reach_m, cfg.reach_kn * KN * dt)


def _zones_touched(gap: Gap, cfg: GapConfig, index: ZoneIndex, dt: float) -> dict[str, list[Any]]:
    """Closed areas the gap's ends, straight path or reachable ellipse come within
    their rule distance of (nearest first, with the end or "path"), and port or
    anchorage zones within ``port_m`` of an end."""
    a, b = gap.start, gap.end
    n = 21
    f = np.linspace(0.0, 1.0, n)
    lon = a.lon + (b.lon - a.lon) * f
    lat = a.lat + (b.lat - a.lat) * f
    c = metres(a.lon, a.lat, b.lon, b.lat) / 2.0
    semi = max(c, _reach_m(cfg, dt) / 2.0)
    minor = math.sqrt(max(0.0, semi * semi - c * c))
    x = (f - 0.5) * 2.0 * c  # along the major axis, from the centre
    half = minor * np.sqrt(np.clip(1.0 - (x / semi) ** 2 if semi > 0 else 0.0, 0.0, 1.0))
    margin = float(math.ceil(max(cfg.near_m, cfg.port_m, float(half.max())) / 1000.0) * 1000.0)
    hits = index.evaluate(lon, lat, margin_m=margin)
    path: dict[int, float] = {}  # zone -> nearest the straight path comes
    ends: dict[int, list[float]] = {}  # zone -> [start, end] distances (inf: beyond)
    port: list[tuple[int, float]] = []
    for i, z, d in zip(
        hits.pos.tolist(), hits.zone.tolist(), hits.distance_m.tolist(), strict=True
    ):
        kind = index.zones[z].kind
        end = i in (0, n - 1)
        if kind in PORT_KINDS:
            if end and d <= cfg.port_m:
                port.append((z, d))
            continue
        if kind in NOT_CLOSED or not index.zones[z].in_force(a.t):
            continue
        if end:
            ends.setdefault(z, [math.inf, math.inf])[0 if i == 0 else 1] = d
        thr = float(index.threshold_m[z])
        room = cfg.near_m if end else float(half[i])
        if d <= thr + room:
            path[z] = min(d, path.get(z, math.inf))
    closed = sorted(
        ((z, d, *ends.get(z, [math.inf, math.inf])) for z, d in path.items()),
        key=lambda x: x[1],
    )
    return {"closed": closed, "port": port}
