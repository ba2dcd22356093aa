"""Leads and the GNSS interference events that cast doubt on them, linked when read.

The link is computed on every read of a lead (``case_json``), never stored: the event is
settled hours after the leads it explains, possibly by another process (broker mode's
pairing stage), and a lead's evidence never changes. ``alerts/identity/victims.py``
says which leads an event explains; this module asks the store for the candidates.
"""

from __future__ import annotations

from typing import Any

from vigia.alerts.identity.interference import RULE
from vigia.alerts.identity.victims import doubtable, doubts, moved, window
from vigia.alerts.lead import Lead
from vigia.ingest.records import iso_utc
from vigia.service.db.protocol import LeadQuery, Repository, Scope

#: ships of an event looked at for its victims: a jammed sea may hold hundreds
_MAX = 100
#: events looked at for a lead, or a page of the list (newest first): its time span
_MAX_PAGE = 1_000


def interference_doubts(repo: Repository, lead: Lead, scope: Scope) -> list[dict[str, Any]]:
    """The interference events in ``scope`` that moved ``lead``'s vessel to where the
    lead lies (an event is routed by its spot, so it is the victim's office's); the same
    read as a list page's, so the list and the detail never disagree."""
    return page_doubts(repo, [lead], scope)[0]


def interference_victims(repo: Repository, event: Lead, scope: Scope) -> list[dict[str, Any]]:
    """The leads in ``scope`` that an ``ID-INTERFERENCE`` lead explains (the first
    ``_MAX`` ships it names): what the duty officer may dismiss with it."""
    if event.rule != RULE:
        return []
    out: list[dict[str, Any]] = []
    for mmsi in sorted(moved(event))[:_MAX]:
        q = LeadQuery(mmsi=mmsi, start=event.started_at - 60.0, include_silenced=True)
        leads, _ = repo.list_leads(q, _MAX, scope=scope)
        out += [
            {"lead_id": x.id, "mmsi": x.mmsi, "rule": x.rule, "zone_id": x.zone_id,
             "started_at": iso_utc(x.started_at), "status": x.status}
            for x in leads
            if doubts(x, [event])
        ]  # fmt: skip
    return sorted(out, key=lambda v: (v["started_at"], v["lead_id"]))


def page_doubts(repo: Repository, leads: list[Lead], scope: Scope) -> list[list[dict[str, Any]]]:
    """``interference_doubts`` for each lead of a list page, in one read of the events
    spanning the page (the newest ``_MAX_PAGE``), matched by MMSI."""
    judged = [x for x in leads if doubtable(x.rule)]
    if not judged:
        return [[] for _ in leads]
    spans = [window(x) for x in judged]
    lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
    q = LeadQuery(rule=RULE, start=lo, end=hi, include_silenced=True)
    events, _ = repo.list_leads(q, _MAX_PAGE, scope=scope)
    by_mmsi: dict[int, list[Lead]] = {}
    for e in events:
        for mmsi in moved(e):
            by_mmsi.setdefault(mmsi, []).append(e)
    return [doubts(x, by_mmsi.get(x.mmsi, ())) for x in leads]
