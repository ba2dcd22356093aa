"""Meetings under way, judged early on slots not yet settled, so a patrol can still go.

A slot settles only once the lateness bound and the interpolation limit have passed it
(watch.py): on a live feed that is 3 h 10 min late. The early view takes the slots from
the first unsettled one to the stream clock's, places each vessel as well as what has
arrived allows (interpolated when a later fix is in; else, when nothing later has come
yet, its latest fix if under 10 minutes old; never extrapolated), and carries the
settled runs on through them. What it shows is provisional and open; it never makes a
closed lead: those come from the settled slots alone, so the leads stay a function of
the records. An early lead the settled slots do not confirm is withdrawn (watch.py,
``open_leads``).
"""

from __future__ import annotations

import math

from vigia.alerts.encounters.config import EncounterConfig
from vigia.alerts.encounters.pairing import near_pairs
from vigia.alerts.encounters.runs import PairRun, Sample
from vigia.alerts.encounters.tracks import Track


def _place(tr: Track, k: int, cfg: EncounterConfig) -> Sample | None:
    p = tr.at(k, cfg.slot_s, cfg.max_gap_s)
    if p is not None:
        s = k * cfg.slot_s
        fix = p.before if s - p.before.t <= p.after.t - s else p.after
        return None if p.sog is None else Sample(k, p.lon, p.lat, p.sog, fix)
    if max(tr.intervals) >= k:
        return None  # a later fix is in: a silence over the limit, not a wait for data
    last = tr.intervals.get(k - 1)
    if last is None or last[1].sog < 0 or k * cfg.slot_s - last[1].t >= cfg.slot_s:
        return None
    f = last[1]
    return Sample(k, f.lon, f.lat, f.sog, f)


def early_pairs(
    tracks: dict[int, Track],
    by_iv: dict[int, set[int]],
    settled: dict[tuple[int, int], PairRun],
    first: int,
    now: float,
    cfg: EncounterConfig,
) -> list[PairRun]:
    """Meetings of ``provisional_s`` or more seen in the slots from ``first`` to the
    stream clock ``now``'s, the settled runs (``settled``, up to slot ``first - 1``)
    carried through them."""
    if not math.isfinite(now):
        return []  # no record yet (a pipeline finished on empty input): nothing under way
    last = math.floor(now / cfg.slot_s)
    if last < first:
        return []
    span = math.ceil(cfg.max_gap_s / cfg.slot_s)
    recent: set[int] = set()
    for j in range(last - span, last + 1):
        recent.update(by_iv.get(j, ()))
    slow = []
    for m in sorted(recent):
        iv = tracks[m].intervals
        f = iv[max(iv)][1]
        if 0 <= f.sog < cfg.max_sog_kn:
            slow.append(m)
    if len(slow) < 2:
        return []
    runs = {
        key: PairRun(r.a, r.b, r.start, r.last, list(r.sa), list(r.sb), list(r.dist))
        for key, r in settled.items()
        if r.last == first - 1
    }
    # only the slots a slow vessel can be placed in (within the interpolation limit after
    # one of its intervals): the same samples as every slot from ``first``, without
    # walking the years between two eras of a replay slot by slot
    slots: set[int] = set()
    for m in slow:
        for i in tracks[m].intervals:
            if first - span <= i <= last:
                slots.update(range(max(first, i), min(last, i + span) + 1))
    for k in sorted(slots):
        who, at = [], []
        for m in slow:
            x = _place(tracks[m], k, cfg)
            if x is not None and x.sog < cfg.max_sog_kn:
                who.append(m)
                at.append(x)
        lons, lats = [x.lon for x in at], [x.lat for x in at]
        for i, j, d in near_pairs(who, lons, lats, cfg.near_m, cfg.h3_res):
            key = (who[i], who[j])
            run = runs.get(key)
            if run is None or run.last != k - 1:
                run = runs[key] = PairRun(key[0], key[1], k, k)
            run.add(at[i], at[j], d)
    # a run that ended in the unsettled slots stays shown, as far as it went, until the
    # settled slots close it or withdraw it
    return [r for _, r in sorted(runs.items()) if r.duration_s(cfg.slot_s) >= cfg.provisional_s]
