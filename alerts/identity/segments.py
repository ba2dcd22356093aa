"""One MMSI, two ships (issue 34): a vessel's fixes split into segments that one ship
could have sailed, each judged as a vessel of its own.

Global Fishing Watch splits an MMSI's track where the speed implied between fixes
exceeds about 25 kn; Vigia uses 50 kn (fast craft and patrol boats make 40) and never
splits fixes less than 2 km apart (GPS noise, a fix every few seconds). A fix goes to
the most recent segment it could belong to; none: it opens a new one (three at most; the
oldest gives way). A new segment is *tentative* until it has ``CONFIRM`` fixes: until
then its fixes are judged by no zone rule (one bad fix is a glitch, not a ship), and
once confirmed they are judged under a key of its own (``SEG_KEY``, in
episodes.py), so neither ship's
fixes make the other's approach speeds, stop timers or silences.

Two confirmed segments heard within ``OVERLAP_S`` of each other, more than ``APART_M``
apart, whose fixes alternate (A B A B: the MMSI's reports switched into the newer one at
least twice and back at least once) are two ships on one MMSI: an ``ID-MMSI-SHARED``
lead once the lateness bound has passed the last such fix (alerts/settling.py), with
both segments' fixes as evidence. Alternation is Global Fishing Watch's "segments that
overlap in time": one ship whose position jumps away and back (A B A: a GNSS receiver
spoofed, the ships of alerts/identity/interference.py) is not two ships; two ships
reporting on one MMSI interleave their reports. The assignment runs on the vessel's own
records in time order, so it is the same however the data arrives.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from vigia.alerts.episodes import SEG_KEY
from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.alerts.tracking import KN, VesselState, metres
from vigia.ingest.records import Position, VesselInfo

MAX_SEGMENTS = 3
MAX_KN = 50.0
NEAR_M = 2_000.0
CONFIRM = 3
OVERLAP_S = 1_800.0
APART_M = 10_000.0
RULE = "ID-MMSI-SHARED"
#: a degree sum below this is surely within NEAR_M: no distance worked out (hot path)
_QUICK_DEG = 0.015


class Track:
    """A segment's last fix, how many fixes it has, its first time, and how many times
    the MMSI's reports switched into it from another segment."""

    __slots__ = ("first_t", "lat", "lon", "n", "switches", "t")

    def __init__(self, t: float, lon: float, lat: float, switches: int = 0) -> None:
        self.t, self.lon, self.lat, self.n, self.first_t = t, lon, lat, 1, t
        self.switches = switches


def switches(tr: Track) -> int:
    """A track's switches (0 for one checkpointed before they were counted)."""
    n: int = getattr(tr, "switches", 0)
    return n


def segment_of(vs: VesselState, pos: Position) -> int:
    """The segment ``pos`` belongs to (0 for the vessel itself), updating the tracks;
    -1 while that segment is tentative (not to be judged). Notes two ships at once in
    ``vs.shared``."""
    lon, lat, t = pos.lon, pos.lat, pos.t
    assert lon is not None and lat is not None
    tracks: list[Track] | None = vs.tracks
    if tracks is None:
        vs.tracks = [Track(t, lon, lat)]
        return 0
    head = tracks[0]
    if len(tracks) == 1 and abs(head.lon - lon) + abs(head.lat - lat) < _QUICK_DEG:
        head.t, head.lon, head.lat, head.n = t, lon, lat, head.n + 1
        return 0
    best = -1
    # the segment the MMSI's previous report went to: the one heard last
    last = max(range(len(tracks)), key=lambda k: tracks[k].t)
    for k, tr in enumerate(tracks):
        d = metres(tr.lon, tr.lat, lon, lat)
        if (d <= NEAR_M or d / max(t - tr.t, 1.0) / KN <= MAX_KN) and (
            best < 0 or tr.t > tracks[best].t
        ):
            best = k
    if best < 0:
        if len(tracks) < MAX_SEGMENTS:
            tracks.append(Track(t, lon, lat, 1))
            best = len(tracks) - 1
        else:  # the oldest segment gives way (never the vessel's own, 0)
            best = min(range(1, len(tracks)), key=lambda k: tracks[k].t)
            tracks[best] = Track(t, lon, lat, 1)
    else:
        tr = tracks[best]
        tr.t, tr.lon, tr.lat, tr.n = t, lon, lat, tr.n + 1
        if best != last:
            tr.switches = switches(tr) + 1
    _note_overlap(vs, tracks, best, pos)
    return best if tracks[best].n >= CONFIRM or best == 0 else -1


def to_segment(pipe: Any, vs: VesselState, pos: Position) -> tuple[VesselState, Position] | None:
    """(the state that judges ``pos``, ``pos`` as that state knows it): the vessel's own
    for segment 0; a state of its own, keyed beyond the MMSI, for another; None while
    the segment is tentative. ``pipe`` is the LeadPipeline (typed Any: no import back)."""
    k = segment_of(vs, pos)
    if vs.shared:
        pipe._gapping.add(pos.mmsi)  # an overlap to judge once the bound passes it
    if k == 0:
        return vs, pos
    if k < 0:
        # an impossible jump no second fix has confirmed: a glitch, as the look-ahead
        # filter of alerts/tracking.py counts one
        pipe.counters["glitches"] += 1
        return None
    key = pos.mmsi + k * SEG_KEY
    sv = pipe._vessels.get(key)
    if sv is None:
        sv = pipe._vessels[key] = VesselState()
    if vs.segs is None:
        vs.segs = {}
    vs.segs[k] = sv
    return sv, dataclasses.replace(pos, mmsi=key)


def _note_overlap(vs: VesselState, tracks: list[Track], k: int, pos: Position) -> None:
    me = tracks[k]
    # A B A B at least: switched into this segment twice and into the other once
    if me.n < CONFIRM or switches(me) < 2:
        return
    for j, other in enumerate(tracks):
        if j == k or other.n < CONFIRM or pos.t - other.t > OVERLAP_S or switches(other) < 1:
            continue
        if metres(other.lon, other.lat, me.lon, me.lat) > APART_M:
            if vs.shared is None:
                vs.shared = []
            vs.shared.append(
                (EvidencePoint.of(pos, None, me.lon, me.lat), EvidencePoint(
                    other.t, other.lon, other.lat, None, None, None), min(j, k), max(j, k))
            )  # fmt: skip
            return


def shared_lead(mmsi: int, events: list[Any], info: VesselInfo | None) -> Lead:
    """The ``ID-MMSI-SHARED`` lead of one run of overlaps."""
    points = sorted({p for e in events for p in (e[0], e[1])}, key=lambda p: p.t)
    first, last = events[0], events[-1]
    apart = max(metres(e[0].lon, e[0].lat, e[1].lon, e[1].lat) for e in events)
    key = max(events, key=lambda e: metres(e[0].lon, e[0].lat, e[1].lon, e[1].lat))[0]
    return build_lead(
        mmsi=mmsi, rule=RULE, zone=None, started_at=first[0].t, ended_at=last[0].t,
        key_point=key, points=points, cap=50, vessel=vessel_json(mmsi, info),
        max_sog_kn=None,
        details={
            "segments": sorted({e[2] for e in events} | {e[3] for e in events}),
            "overlaps": len(events),
            "max_apart_m": round(apart, 1),
            "rule": f"fixes more than {APART_M:.0f} m apart within {OVERLAP_S:.0f} s, "
            f"each on a segment of {CONFIRM}+ fixes one ship could sail (<= {MAX_KN} kn), "
            "the segments' reports alternating (A B A B)",
        },
    )  # fmt: skip
