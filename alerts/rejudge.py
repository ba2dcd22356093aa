"""A vessel's late records put in their place and its verdicts worked out again.

:mod:`alerts.arrival` explains the model; this is the one operation that needs the
pipeline's insides: go back to the copy of the vessel's state taken before the earliest
late record, judge every record since in time order (the same code path as on arrival),
and report the open episodes whose lead changed or was superseded.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vigia.alerts.arrival import Kept, clone_state
from vigia.alerts.episodes import SEG_KEY, Episode
from vigia.alerts.identity.history import judged_again
from vigia.alerts.identity.static import learn
from vigia.alerts.lead import Lead
from vigia.alerts.tracking import VesselState
from vigia.ingest.records import Position

# the pipeline is typed Any here (as in alerts.handover) so this module does not import
# the pipeline back: these functions are its own, kept apart to be read in one sitting
LeadPipeline = Any


def _episodes(vs: VesselState) -> list[Episode]:
    return [*(vs.episodes or {}).values(), *(vs.closing or ())]


def _leads(pipe: LeadPipeline, vs: VesselState) -> dict[str, tuple[Episode, dict[str, Any]]]:
    out = {}
    for ep in _episodes(vs):
        lead: Lead = pipe._lead(ep, closed=False)
        out[lead.id] = (ep, lead.to_json())
    return out


def _restore(vs: VesselState, state: VesselState) -> None:
    for name in VesselState.__slots__:
        if name != "tl":
            setattr(vs, name, getattr(state, name))


def rejudge(pipe: LeadPipeline, mmsi: int, vs: VesselState, recs: list[Kept]) -> None:
    """Put ``recs`` (this vessel's records that came out of order, or after one that
    did, in one batch) into its timeline and judge again from the copy before the
    earliest; duplicates and records past the bound are counted and left out."""
    tl = vs.tl
    assert tl is not None
    n0 = len(tl.times)
    bound = pipe.bound_of(vs)
    lowest: int | None = None
    for r in recs:
        i, dup = tl.place(r)
        if dup:
            pipe.counters["duplicates"] += 1
            continue
        if (i < n0 and r.t < bound) or not tl.judgeable(i, r.t):
            # too late to take its place: stored by the caller, never judged
            pipe.counters["late_past_bound"] += 1
            _mark_late(vs, r, pipe.config.hold_s)
            continue
        if i < n0 or (n0 and r.t <= tl.times[n0 - 1]):
            pipe.counters["late_records"] += 1
        tl.insert(i, r)
        lowest = i if lowest is None else min(lowest, i)
    if lowest is None:
        return
    j = tl.snapshot_for(lowest)
    assert j >= 0, "a placed record always has a copy of the state before it"
    snap = tl.snaps[j]
    before = _leads(pipe, vs)
    redo = tl.cut(snap.at)
    pipe.counters["rejudged"] += len(redo)
    for k in vs.segs or {}:  # other segments' states go back with the vessel's
        key = mmsi + k * SEG_KEY
        pipe._vessels.pop(key, None)
        for held in (pipe._open, pipe._pending, pipe._gapping):
            held.discard(key)
    _restore(vs, clone_state(snap.state))
    for k, sv in (vs.segs or {}).items():
        pipe._vessels[mmsi + k * SEG_KEY] = sv
    pipe._known.restore(mmsi, snap.registry_row)
    first_static = next((r.t for r in redo if type(r) is not Position), None)
    if first_static is not None:
        # its static reports from then on are noted again: their changes replace those
        # handed out before (alerts/identity/history.py)
        judged_again(pipe.identity_out(), mmsi, vs.ident, first_static)
    positions = [r for r in redo if type(r) is Position]
    hits = iter(
        pipe._hits(
            np.fromiter([p.lon for p in positions], dtype=np.float64, count=len(positions)),
            np.fromiter([p.lat for p in positions], dtype=np.float64, count=len(positions)),
        )
        if positions
        else []
    )
    for r in redo:
        if tl.wants_snapshot(r.t):
            pipe._snapshot(vs, tl, mmsi)
        tl.append(r)
        if type(r) is Position:
            pipe._fix(vs, r, next(hits))
        else:
            learn(pipe, vs, r)
    # episodes already given out closed are final: judged again they came out the same
    # (the bound is past them), and are not given out twice
    if vs.episodes:
        vs.episodes = {k: e for k, e in vs.episodes.items() if _key(e) not in tl.done} or None
    if vs.closing:
        vs.closing = [e for e in vs.closing if _key(e) not in tl.done] or None
    if vs.gaps:  # silences already judged are not judged twice
        vs.gaps = [g for g in vs.gaps if g.key not in tl.done] or None
    if vs.gaps:
        pipe._gapping.add(mmsi)
    if vs.pending is None:
        pipe._pending.discard(mmsi)
    else:
        pipe._pending.add(mmsi)
    for key, state in [(mmsi, vs)] + [
        (mmsi + k * SEG_KEY, sv) for k, sv in (vs.segs or {}).items()
    ]:
        if state.pending is not None:
            pipe._pending.add(key)
        if state.episodes or state.closing:
            pipe._open.add(key)
        if state.gaps or state.shared or (state.ident is not None and state.ident.events):
            pipe._gapping.add(key)
    _revise(pipe, vs, before)


def _key(ep: Episode) -> tuple[str, int, float]:
    return (ep.rule, ep.zone_idx, ep.started_at)


def _revise(
    pipe: LeadPipeline, vs: VesselState, before: dict[str, tuple[Episode, dict[str, Any]]]
) -> None:
    """Mark every episode a late record changed (``details.revisions``: how many times)
    and report the open leads it superseded, each with the id that replaces it."""
    after = _leads(pipe, vs)
    for old_id, (old, old_json) in before.items():
        now = after.get(old_id)
        if now is not None:
            if now[1] != old_json:
                _bump(now[0], old)
            continue
        new = _successor(old, [e for e, _ in after.values()], pipe.config.hold_s)
        new_id = None
        if new is not None:
            _bump(new, old)
            new_id = pipe._lead(new, closed=False).id
            named = list(new.notes.get("supersedes", ()))
            new.notes["supersedes"] = [*named, *old.notes.get("supersedes", ()), old_id]
        # the old open lead as it stood, marked: a store that kept it replaces it
        gone: Lead = pipe._lead(old, closed=False)
        gone.details["superseded_by"] = new_id
        pipe._revisions.append(gone)


def _bump(ep: Episode, old: Episode) -> None:
    seen = max(int(ep.notes.get("revisions", 0)), int(old.notes.get("revisions", 0)))
    ep.notes["revisions"] = seen + 1


def _successor(old: Episode, eps: list[Episode], hold: float) -> Episode | None:
    """The episode of the same rule and zone that overlaps ``old`` in time."""
    assert old.last is not None
    for ep in eps:
        assert ep.last is not None
        if (
            ep.rule == old.rule
            and ep.zone_idx == old.zone_idx
            and ep.started_at <= old.last.t + hold
            and old.started_at <= ep.last.t + hold
        ):
            return ep
    return None


def _mark_late(vs: VesselState, r: Kept, hold: float) -> None:
    """A record past the bound that falls within an episode still held: the lead says
    so (``details.late_evidence``), its evidence unchanged."""
    for ep in _episodes(vs):
        assert ep.last is not None
        if ep.started_at - hold <= r.t <= ep.last.t + hold:
            ep.notes["late_evidence"] = int(ep.notes.get("late_evidence", 0)) + 1
