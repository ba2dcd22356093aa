"""The ``STS-ENCOUNTER`` and ``LOITER`` leads (docs/encounters.md, "The lead")."""

from __future__ import annotations

from typing import Any

from vigia.alerts.encounters.config import EncounterConfig
from vigia.alerts.encounters.runs import DriftRun, PairRun, Sample
from vigia.alerts.encounters.tracks import Info
from vigia.alerts.lead import EvidencePoint, Lead, build_lead, lead_id, thin
from vigia.ingest.records import flag_mid, iso_utc

ENCOUNTER = "STS-ENCOUNTER"
LOITER = "LOITER"


def _point(s: Sample, d: float | None) -> EvidencePoint:
    """A real fix as evidence (the one nearest the slot)."""
    f = s.fix
    return EvidencePoint(
        f.t, f.lon, f.lat, None if f.sog < 0 else f.sog, None if f.cog < 0 else f.cog,
        None if f.nav_status < 0 else f.nav_status, d,
    )  # fmt: skip


def _evidence(samples: list[Sample], dist: list[float] | None) -> list[EvidencePoint]:
    seen: set[float] = set()
    out = []
    for i, s in enumerate(samples):
        if s.fix.t not in seen:  # a fix nearest two slots is evidence once
            seen.add(s.fix.t)
            out.append(_point(s, None if dist is None else dist[i]))
    return out


def vessel_of(mmsi: int, info: Info) -> dict[str, Any]:
    """The contract's ``vessel`` object."""
    return {
        "name": info.name,
        "ship_type": info.ship_type,
        "length_m": info.length_m,
        "flag_mid": flag_mid(mmsi),
    }


def _speeds(samples: list[Sample]) -> dict[str, float]:
    sogs = [s.sog for s in samples]
    return {"mean_sog_kn": round(sum(sogs) / len(sogs), 2), "max_sog_kn": round(max(sogs), 2)}


def encounter_lead(
    run: PairRun, infos: tuple[Info, Info], cfg: EncounterConfig, *, closed: bool
) -> Lead:
    """One meeting of two vessels: the lead is the lower MMSI's, the partner named in
    ``details.vessels``; its id covers both, so one pair's meeting is one lead."""
    s = cfg.slot_s
    i = min(range(len(run.dist)), key=lambda x: (run.dist[x], x))
    close = run.dist[i]
    points = _evidence(run.sa, run.dist)
    key = _point(run.sa[i], close)
    partner = thin(_evidence(run.sb, run.dist), None, cfg.max_evidence)
    lon, lat = run.centre()
    duration = run.duration_s(s)
    details = {
        "vessels": [
            {"mmsi": m, **vessel_of(m, info), **_speeds(sm)}
            for m, info, sm in ((run.a, infos[0], run.sa), (run.b, infos[1], run.sb))
        ],
        "partner_mmsi": run.b,
        "closest_approach_m": round(close, 1),
        "closest_approach_at": iso_utc(run.sa[i].k * s),
        "partner_closest_point": [run.sb[i].lon, run.sb[i].lat],
        "mean_distance_m": round(sum(run.dist) / len(run.dist), 1),
        "duration_s": duration,
        "slots": len(run.dist),
        "centre": [round(lon, 6), round(lat, 6)],
        "provisional": duration < cfg.min_duration_s,
        "partner_evidence": [p.to_json() for p in partner],
        "definition": "Global Fishing Watch encounter: within 500 m, both below 2 kn, "
        "2 h or more, 10 km or more from an anchorage (10-min tracks, no interpolation "
        "across gaps over 1 h)",
    }
    lead = build_lead(
        mmsi=run.a, rule=ENCOUNTER, zone=None, started_at=run.start * s,
        ended_at=run.last * s if closed else None, key_point=key, points=points,
        cap=cfg.max_evidence, vessel=vessel_of(run.a, infos[0]),
        max_sog_kn=round(max(x.sog for x in run.sa + run.sb), 2), details=details,
    )  # fmt: skip
    lead.id = pair_id(run.a, run.b, run.start * s)
    return lead


def pair_id(a: int, b: int, started_at: float) -> str:
    """A meeting's lead id: both vessels and its start (the lead scheme's hash)."""
    return lead_id(a, ENCOUNTER, f"pair:{b}", started_at)


def loiter_lead(
    run: DriftRun,
    info: Info,
    cfg: EncounterConfig,
    near: list[dict[str, Any]],
    shore: float,
    *,
    closed: bool,
) -> Lead:
    """One vessel drifting for hours far from shore, near what ``near`` names."""
    s = cfg.slot_s
    lon, lat = run.centre()
    i = min(
        range(len(run.samples)),
        key=lambda x: ((run.samples[x].lon - lon) ** 2 + (run.samples[x].lat - lat) ** 2, x),
    )
    dist = min((float(n["distance_m"]) for n in near if "distance_m" in n), default=None)
    key = _point(run.samples[i], dist)
    details = {
        "duration_s": run.duration_s(s),
        "slots": len(run.samples),
        **_speeds(run.samples),
        "shore_nm": round(shore, 1),
        "near": near,
        "dark_partner": next((n for n in near if n["code"] == "dark-partner"), None),
        "centre": [round(lon, 6), round(lat, 6)],
        "definition": "slow (below 2 kn on 10-min tracks) for 4 h or more, 20 nm or more "
        "from shore (Global Fishing Watch's loitering), near a platform, a ballast line, a "
        "lane or a vessel that went silent",
    }
    return build_lead(
        mmsi=run.mmsi, rule=LOITER, zone=None, started_at=run.start * s,
        ended_at=run.last * s if closed else None, key_point=key,
        points=_evidence(run.samples, None), cap=cfg.max_evidence,
        vessel=vessel_of(run.mmsi, info),
        max_sog_kn=round(max(x.sog for x in run.samples), 2), details=details,
    )  # fmt: skip
