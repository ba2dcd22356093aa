"""Audits of declared ballast-water exchanges against AIS (NORMAM-20 2.1 and 2.3.1).

The declaration and its validation live in :mod:`declaration`, applicability in
:mod:`applicability`; this module judges each exchange (:class:`ExchangeVerdict`)
and assembles the audit document. The clock is the caller's (``now``).

For each declared exchange: whether the AIS track puts the ship at the declared
positions at the declared times, the distance to land and depth at start, end and the
worst point between, and the verdict. An exchange done under b) counts as a fallback only
if the voyage offered no a)-water long enough for the declared volume at the configured
pump rate. Applicability (BW-APPLY) states which exemptions were confirmed from AIS
and which were taken on trust from the declaration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pyproj import Geod

from vigia.alerts.ballast.applicability import AJB_BOX, applicability
from vigia.alerts.ballast.declaration import Declaration, DeclaredExchange, DeclaredPoint
from vigia.alerts.ballast.screening import AssessedTrack, WaterWindow, assess_track
from vigia.alerts.ballast.silences import Silence, silences_during
from vigia.alerts.identity.state_register import StateVessels
from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.ingest.records import Position, VesselInfo, iso_utc
from vigia.ingest.units import M_PER_NM
from vigia.zones.ballast import ZONES, BallastAssessor

RETENTION = "kept at least five years (BW-RECORD, NORMAM-20/DPC 2.2.1.3 b)"
# pumped volumes per declared volume: D-1 flow-through and dilution pump three volumes
METHOD_FACTOR = {"sequential": 2.0, "flow-through": 3.0, "flow_through": 3.0, "dilution": 3.0}
MAX_EVIDENCE = 100
_GEOD = Geod(ellps="WGS84")


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """Tolerances and assumptions, quoted in every audit."""

    pump_rate_m3_h: float = 1000.0
    match_distance_nm: float = 5.0
    match_time_s: float = 1800.0
    max_gap_s: float = 3 * 3600.0


@dataclass(slots=True)
class AuditResult:
    """The audit document (JSON-ready) and the leads it raised."""

    document: dict[str, Any]
    leads: list[Lead] = field(default_factory=list)


def _match(at: AssessedTrack, p: DeclaredPoint, cfg: AuditConfig) -> dict[str, Any]:
    """Where the track puts the ship at a declared time, and how far that is from the claim."""
    near = np.flatnonzero(np.abs(at.t - p.t) <= cfg.match_time_s)
    if not len(near):
        return {
            "matched": False,
            "reason": "no AIS fix within the time tolerance",
            "reason_code": "no_fix",
        }
    before = near[at.t[near] <= p.t]
    after = near[at.t[near] >= p.t]
    if len(before) and len(after):
        i, j = int(before[-1]), int(after[0])
        f = 0.0 if at.t[j] == at.t[i] else (p.t - at.t[i]) / (at.t[j] - at.t[i])
        lon = float(at.lon[i] + f * (at.lon[j] - at.lon[i]))
        lat = float(at.lat[i] + f * (at.lat[j] - at.lat[i]))
        how = "interpolated between the fixes around the declared time"
    else:
        k = int(near[np.argmin(np.abs(at.t[near] - p.t))])
        lon, lat = float(at.lon[k]), float(at.lat[k])
        how = f"nearest fix, {abs(at.t[k] - p.t) / 60:.0f} min from the declared time"
    _, _, metres = _GEOD.inv(lon, lat, p.lon, p.lat)
    off = float(metres) / M_PER_NM
    ok = off <= cfg.match_distance_nm
    res = {"matched": ok, "ais_lon": lon, "ais_lat": lat, "offset_nm": round(off, 2), "how": how}
    if not ok:
        res["reason"] = f"AIS puts the ship {off:.1f} nm from the declared position"
        res["reason_code"] = "off_declared"
    return res


def _offset(m: dict[str, Any]) -> dict[str, Any]:
    return {"offset_nm": m["offset_nm"]} if "offset_nm" in m else {}


def _figure(lon: float, lat: float, t: float, d: float, z: float, zone: int) -> dict[str, Any]:
    return {
        "t": iso_utc(t),
        "lon": lon,
        "lat": lat,
        "distance_to_land_nm": round(d, 2),
        "depth_m": None if np.isnan(z) else round(z, 1),
        "zone": ZONES[zone],
    }


def needed_hours(ex: DeclaredExchange, cfg: AuditConfig) -> tuple[float, str]:
    """Time the exchange needs, and the assumption behind it."""
    if ex.volume_m3 is None:
        hours = max(0.0, (ex.end.t - ex.start.t) / 3600)
        return hours, "no volume declared: the declared duration is taken as the time needed"
    method = (ex.method or "").strip().lower()
    factor = METHOD_FACTOR.get(method, 3.0)
    hours = ex.volume_m3 * factor / cfg.pump_rate_m3_h
    why = (
        f"{ex.volume_m3:g} m3 x {factor:g} volumes pumped ({method or 'method unknown'}) "
        f"at {cfg.pump_rate_m3_h:g} m3/h"
    )
    return hours, why


Verdict = Literal["compliant", "compliant_fallback", "noncompliant", "unverified"]


@dataclass(frozen=True, slots=True)
class ExchangeVerdict:
    """The judgement of one declared exchange, with the figures behind it."""

    index: int
    exchange: DeclaredExchange
    verdict: Verdict
    reasons: tuple[str, ...]
    #: the reasons as codes and figures, for a reader in another language (the dashboard)
    reason_codes: tuple[dict[str, Any], ...]
    rules: tuple[str, ...]  # the lead rules it breaks (BW-EXCH-50, BW-EXCH-200)
    figures: tuple[dict[str, Any], ...]  # start, the AIS fixes between, end
    worst: int  # index into figures: nearest to land
    shallowest: int
    times: tuple[float, ...]  # Unix time of each figure
    track_match: dict[str, dict[str, Any]]
    opportunity: dict[str, Any]
    tolerance: dict[str, float]
    basemap: dict[str, str]
    evidence: tuple[EvidencePoint, ...]
    #: AIS silences overlapping the exchange (each says whether it could hide a departure)
    silences: tuple[Silence, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The exchange's entry in the audit document."""
        ex = self.exchange
        return {
            "index": self.index,
            "declared": {
                "start": {"time": iso_utc(ex.start.t), "lat": ex.start.lat, "lon": ex.start.lon},
                "end": {"time": iso_utc(ex.end.t), "lat": ex.end.lat, "lon": ex.end.lon},
                "volume_m3": ex.volume_m3,
                "method": ex.method,
            },
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "reason_codes": [dict(c) for c in self.reason_codes],
            "start": self.figures[0],
            "end": self.figures[-1],
            "worst": self.figures[self.worst],
            "shallowest": self.figures[self.shallowest],
            "points_assessed": len(self.figures),
            "track_match": {**self.track_match, "tolerance": self.tolerance},
            "a_water_opportunity": self.opportunity,
            "leads": list(self.rules),
            "ais_silences": [x.to_json() for x in self.silences],
        }

    def lead(self, rule: str, mmsi: int, vessel: dict[str, Any]) -> Lead:
        """The lead for one rule this exchange breaks; its key point is the worst one."""
        worst = self.figures[self.worst]
        sogs = [e.sog for e in self.evidence if e.sog is not None]
        key = EvidencePoint(
            self.times[self.worst],
            worst["lon"],
            worst["lat"],
            None,
            None,
            None,
            worst["distance_to_land_nm"] * M_PER_NM,
        )
        return build_lead(
            mmsi=mmsi,
            rule=rule,
            zone=None,
            started_at=self.exchange.start.t,
            ended_at=self.exchange.end.t,
            key_point=key,
            points=self.evidence,
            cap=MAX_EVIDENCE,
            vessel=vessel,
            max_sog_kn=max(sogs) if sogs else None,
            details={"exchange": self.to_json(), "basemap": self.basemap},
        )


def _evidence(at: AssessedTrack, lo: float, hi: float) -> tuple[EvidencePoint, ...]:
    out = []
    for i in np.flatnonzero((at.t >= lo) & (at.t <= hi)):
        p = at.positions[int(i)]
        d = float(at.distance_nm[i]) * M_PER_NM
        out.append(EvidencePoint.of(p, d, float(at.lon[i]), float(at.lat[i])))
    return tuple(out)


def audit_exchange(
    k: int,
    ex: DeclaredExchange,
    at: AssessedTrack,
    a_windows: list[WaterWindow],
    assessor: BallastAssessor,
    cfg: AuditConfig,
) -> ExchangeVerdict:
    """Verdict and figures for one (validated) exchange."""
    match = {"start": _match(at, ex.start, cfg), "end": _match(at, ex.end, cfg)}
    between = np.flatnonzero((at.t > ex.start.t) & (at.t < ex.end.t))
    lons = np.concatenate([[ex.start.lon], at.lon[between], [ex.end.lon]])
    lats = np.concatenate([[ex.start.lat], at.lat[between], [ex.end.lat]])
    ts = np.concatenate([[ex.start.t], at.t[between], [ex.end.t]])
    a = assessor.assess(lons, lats)
    figs = tuple(
        _figure(lons[i], lats[i], ts[i], a.distance_nm[i], a.depth_m[i], int(a.zone[i]))
        for i in range(len(lons))
    )
    hours, why = needed_hours(ex, cfg)
    long_enough = [x for x in a_windows if x.hours >= hours]
    opportunity = {
        "needed_hours": round(hours, 2),
        "assumption": why,
        "a_water_windows": [x.to_json() for x in a_windows],
        "a_water_long_enough": bool(long_enough),
    }
    reasons: list[str] = []
    codes: list[dict[str, Any]] = []

    def say(text: str, code: str, **figures: Any) -> None:
        reasons.append(text)
        codes.append({"code": code, **figures})

    rules: list[str] = []
    # an AIS silence in the exchange that the ship could have left the water in and come
    # back (alerts/ballast/silences.py): its fixes do not prove where it exchanged
    line_nm = 200.0 if a.meets_200.all() else 50.0
    quiet = silences_during(at, ex.start.t, ex.end.t, line_nm)
    hiding = [s for s in quiet if s.could_hide]
    verdict: Verdict
    if not (match["start"]["matched"] and match["end"]["matched"]):
        verdict = "unverified"
        for key, m in match.items():
            if not m["matched"]:
                say(f"{key}: {m['reason']}", m["reason_code"], point=key, **_offset(m))
    elif a.meets_200.all():
        verdict = "compliant"
        say("start, end and every AIS fix between meet 200 nm and 200 m", "meets_200")
    elif a.meets_50.all() and not long_enough:
        verdict = "compliant_fallback"
        say(
            f"meets 50 nm and 200 m throughout; the voyage offered no a)-water for {hours:.1f} h",
            "fallback",
            needed_hours=round(hours, 1),
        )
    else:
        verdict = "noncompliant"
        if not a.meets_50.all():
            rules.append("BW-EXCH-50")
            say("not even 50 nm from land and 200 m deep throughout", "not_50")
        if long_enough:
            rules.append("BW-EXCH-200")
            say(
                f"a)-water was available for {long_enough[0].hours:.1f} h "
                f"from {iso_utc(long_enough[0].start)}, needed {hours:.1f} h",
                "a_water_available",
                available_hours=round(long_enough[0].hours, 1),
                start=iso_utc(long_enough[0].start),
                needed_hours=round(hours, 1),
            )
    if hiding and verdict in ("compliant", "compliant_fallback"):
        # only a verdict in the ship's favour rests on the fixes the silence leaves out
        verdict = "unverified"
        reasons.clear()
        codes.clear()
        worst = max(hiding, key=lambda s: s.reach_nm - s.margin_nm)
        say(
            f"AIS silent {(worst.end - worst.start) / 3600:.1f} h during the exchange, "
            f"long enough to go {worst.reach_nm:.0f} nm out and back, past the "
            f"{line_nm:.0f} nm line {worst.margin_nm:.0f} nm away: the fixes around the "
            "silence do not show where the ship exchanged",
            "ais_gap",
            **worst.to_json(),
        )
    margin = cfg.match_time_s
    return ExchangeVerdict(
        index=k,
        exchange=ex,
        verdict=verdict,
        reasons=tuple(reasons),
        reason_codes=tuple(codes),
        rules=tuple(rules),
        figures=figs,
        worst=int(np.argmin(a.distance_nm)),
        shallowest=int(np.argmin(np.nan_to_num(a.depth_m, nan=-1e9))),
        times=tuple(float(t) for t in ts),
        track_match=match,
        opportunity=opportunity,
        tolerance={"distance_nm": cfg.match_distance_nm, "time_s": cfg.match_time_s},
        basemap=assessor.basemap.names,
        evidence=_evidence(at, ex.start.t - margin, ex.end.t + margin),
        silences=tuple(quiet),
    )


def audit(
    decl: Declaration,
    track: Sequence[Position],
    vessel: VesselInfo | None,
    assessor: BallastAssessor,
    cfg: AuditConfig | None = None,
    *,
    now: float,
    state: StateVessels | None = None,
) -> AuditResult:
    """Audit every declared exchange; leads only for ships the rule applies to. ``now``
    is when the audit is made (the caller's clock); ``state`` the register of state
    vessels that backs a type 35's exemption."""
    decl.validate()
    cfg = cfg or AuditConfig()
    at = assess_track(track, assessor)
    appl = applicability(decl, vessel, at, now, cfg.max_gap_s, state)
    # a claimed exemption never silences a lead without saying so (see applicability)
    claims = [e for e in appl["exemptions"] if e["status"] == "claimed"]
    a_ws = at.a_windows(cfg.max_gap_s)
    vjson = vessel_json(decl.mmsi, vessel)
    verdicts = [
        audit_exchange(k, ex, at, a_ws, assessor, cfg) for k, ex in enumerate(decl.exchanges)
    ]
    leads = [v.lead(r, decl.mmsi, vjson) for v in verdicts if appl["applies"] for r in v.rules]
    for ld in leads:
        if claims:
            ld.details["claimed_exemptions"] = claims
    exchanges = []
    for v in verdicts:
        summary = v.to_json()
        if claims:
            summary["claimed_exemptions"] = claims
        if not appl["applies"] and v.rules:
            # said on the verdict itself, so nobody reads "no lead" as "compliant"
            summary["leads_not_raised"] = {
                "rules": list(v.rules),
                "because": [f"{e['citation']} ({e['status']})" for e in appl["exemptions"]],
            }
        exchanges.append(summary)
    doc = {
        "mmsi": decl.mmsi,
        "vessel": vjson,
        "audited_at": iso_utc(round(now)),
        "basemap": assessor.basemap.names,
        "track_points": len(at.t),
        "applicability": appl,
        "exchanges": exchanges,
        "leads": [ld.to_json() for ld in leads],
        "assumptions": {
            "pump_rate_m3_h": cfg.pump_rate_m3_h,
            "volumes_pumped_per_method": {**METHOD_FACTOR, "unknown": 3.0},
            "track_match_tolerance": {
                "distance_nm": cfg.match_distance_nm,
                "time_s": cfg.match_time_s,
            },
            "max_ais_gap_s": cfg.max_gap_s,
            "ajb": f"within 200 nm of land inside lon/lat box {list(AJB_BOX)}, or inland "
            "in Brazil's territory (Natural Earth 10m; approximation)",
        },
        "record": {"rule": "BW-RECORD", "retention": RETENTION},
    }
    return AuditResult(doc, leads)
