"""Helpers of the pipeline's judgement: record intake in order, the beach approach
between fixes, what late static data does to an open beach episode, and the platform
installation test."""

from __future__ import annotations

from collections.abc import Sequence

from vigia.alerts.distress import is_distress_mmsi
from vigia.alerts.episodes import Episode, EpisodeConfig
from vigia.alerts.rules import Approach, VesselMoment
from vigia.alerts.tracking import metres
from vigia.ingest.records import (
    AidToNavigation,
    Position,
    Record,
    StaticData,
    VesselInfo,
    device_class,
    iso_utc,
)
from vigia.ingest.units import valid_lonlat


def split_records(
    records: Sequence[Record],
) -> tuple[list[Position], list[Position], list[AidToNavigation], list[int | StaticData], int]:
    """(vessel positions, distress beacons, AtoN reports, the batch in order, skipped).

    The order list holds, for each vessel position, its index in the positions list and,
    for each static report, the report itself: the pipeline walks it so a static report
    changes the verdict only of the positions after it, whatever the batching."""
    batch: list[Position] = []
    beacons: list[Position] = []
    atons: list[AidToNavigation] = []
    seq: list[int | StaticData] = []
    skipped = 0
    for r in records:
        if type(r) is Position:
            lon, lat, mmsi = r.lon, r.lat, r.mmsi
            if (
                valid_lonlat(lon, lat)
                # ship stations (MID 2xx-7xx) are vessels; anything else is asked
                and (
                    (200_000_000 <= mmsi <= 799_999_999 and r.msg_type != 9)
                    or device_class(mmsi, r.msg_type) == "vessel"
                )
            ):
                seq.append(len(batch))
                batch.append(r)
            elif is_distress_mmsi(mmsi):
                beacons.append(r)  # SART/MOB/EPIRB: a life in danger, see distress.py
            else:
                skipped += 1
        elif isinstance(r, StaticData):
            seq.append(r)
        elif type(r) is AidToNavigation:
            atons.append(r)  # ATON-DAMAGE, see aton.py
    return batch, beacons, atons, seq, skipped


def made_good_in_band(
    prev_t: float | None, appr: Approach, pos: Position, d: float, thr: float
) -> tuple[float, float] | None:
    """(metres the vessel surely covered inside the band since its previous fix, seconds
    taken), for judging 0211 b) 3) between fixes. Inside the band since the last fix:
    the leg itself. Entering: at least from the band's edge to here (where it was before
    it crossed is unknown, so it gets the benefit of the doubt for the rest)."""
    assert pos.lon is not None and pos.lat is not None
    if appr.last_t is not None:
        dt = pos.t - appr.last_t
        leg = metres(appr.last_lon, appr.last_lat, pos.lon, pos.lat)
    elif prev_t is not None:
        dt = pos.t - prev_t
        leg = max(0.0, thr - d)
    else:
        return None
    return (leg, dt) if dt > 0 else None


def reclassify(
    episodes: dict[tuple[str, int], Episode] | None, t: float, sailing: bool, basis: str
) -> None:
    """Late static data (or a new status) changed the vessel's class while a beach
    episode is open. The positions already judged keep their verdict: they were judged
    with what was known then (unknown propulsion counts as motor), and evidence never
    changes after the fact. The episode stops growing under its rule (the next positions
    are judged under the new class), and its lead says what changed, when and why, so
    an inspector can weigh it (docs/leads.md)."""
    for (rule, _), ep in (episodes or {}).items():
        if rule.startswith("BATH-") and ep.sailing != sailing and "reclassified" not in ep.notes:
            ep.notes["reclassified"] = {
                "at": iso_utc(t),
                "vessel_class": "sailing" if sailing else "motor",
                "basis": basis,
            }


def is_installation(m: VesselMoment, d: float, info: VesselInfo | None, cfg: EpisodeConfig) -> bool:
    """Whether a position near a platform is the installation itself, or a ship moored
    to it: stopped (SOG at or below the anchoring speed, or a moored/at-anchor status
    the SOG does not contradict), within ``installation_radius_m`` of the footprint
    (where its AIS antenna can be), and at least ``installation_min_length_m`` long by
    its own static data. The length is what keeps out the fishing boats that tie up to
    platforms (a known practice 0212 f) is aimed at): they are tens of metres long,
    FPSOs, FSOs, semi-submersibles and shuttle tankers in tandem well over 60 m. With
    no static data there is no evidence, and no exemption."""
    if not m.stopped or d > cfg.installation_radius_m or info is None:
        return False
    return info.length_m is not None and info.length_m >= cfg.installation_min_length_m
