"""Hand a running pipeline's state over to one built on edited zones.

A zone write must close only the episodes of the zones it changed or removed (issue 15,
item 4): an unchanged zone keeps its open episodes, its beach approaches and every
vessel's track state, so a POST that touches nothing else (even an empty one) never
splits a continuing breach into two leads. Zones are matched by id; "unchanged" means
equal in every validated property and the geometry (the version alone is not enough, a
store could re-number).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from vigia.alerts.arrival import Timeline
from vigia.alerts.lead import Lead
from vigia.alerts.ports.stage import hand_over_visits
from vigia.zones.evaluate import ZoneIndex


def unchanged_zones(old: ZoneIndex, new: ZoneIndex) -> dict[int, int]:
    """Old zone index -> new zone index, for every zone the edit left exactly as it was."""
    by_id = {z.id: i for i, z in enumerate(new.zones)}
    out: dict[int, int] = {}
    for i, z in enumerate(old.zones):
        j = by_id.get(z.id)
        if j is not None and new.zones[j] == z:
            out[i] = j
    return out


def closed_by_edit(lead: Lead) -> Lead:
    end = lead.evidence[-1].t if lead.evidence else lead.closest_t
    return dataclasses.replace(
        lead, ended_at=end, details={**lead.details, "closed_by": "zone-edit"}
    )


def hand_over(old: Any, nxt: Any) -> list[Lead]:
    """(Both are LeadPipelines; typed Any so this module does not import the pipeline
    back.) Move ``old``'s state into ``nxt`` (built on the edited zones, empty); return the
    leads of the episodes the edit ended (closed at their last evidence, marked
    ``closed_by: zone-edit``)."""
    keep = unchanged_zones(old.index, nxt.index)
    ended: list[Lead] = []
    # a fix waiting for its successor was received under the old zones: judge it
    # against them now (its glitch test is skipped; the edit is the rarer event)
    old._settle_pending()
    for mmsi, vs in old._vessels.items():
        if vs.tl is not None:
            # its copies hold the old zones' indices: late records from before the edit
            # are past the bound (the edit is the rarer event)
            vs.tl = Timeline(floor=vs.tl.last_t)
        if vs.episodes:
            moved = {}
            for (rule, z), ep in vs.episodes.items():
                j = keep.get(z)
                if j is None:
                    ended.append(closed_by_edit(old._lead(ep, closed=False)))
                    continue
                ep.zone_idx = j
                moved[(rule, j)] = ep
            vs.episodes = moved or None
        if vs.closing:
            held = []
            for ep in vs.closing:
                j = keep.get(ep.zone_idx)
                if j is None:
                    ended.append(closed_by_edit(old._lead(ep, closed=False)))
                else:
                    ep.zone_idx = j
                    held.append(ep)
            vs.closing = held or None
        if vs.approaches:
            appr = {keep[z]: a for z, a in vs.approaches.items() if z in keep}
            vs.approaches = appr or None
        if vs.episodes or vs.closing:
            nxt._open.add(mmsi)
    hand_over_visits(old, nxt, keep)
    nxt._vessels = old._vessels
    nxt._now = old._now
    nxt._eras = old._eras
    nxt._last_sweep = old._last_sweep
    nxt._known = old._known
    nxt._coverage = old._coverage  # what the receivers heard does not depend on zones
    nxt._gapping = old._gapping
    nxt._gone = old._gone
    nxt._expired_at = old._expired_at
    if old.identity_out() is not None:  # changes not yet taken, and the wish to keep them
        nxt.__dict__["_ident_out"] = old.take_identity()
    old._vessels = {}
    old._open.clear()
    old._pending.clear()
    return ended
