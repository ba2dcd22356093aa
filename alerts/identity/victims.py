"""A lead raised where GNSS interference put the vessel (issue 34): its position is doubt.

An interference event (``interference.py``) moves every ship near the spoofer to one
spot at once. The zone rules judge each fix as it comes, two hours before the event can
be settled, so a ship put inside a military area or a bather strip raises that area's
lead like any intruder. Those leads are not withdrawn or rewritten (evidence never
changes; the event is a lead of its own, found later, maybe by another process of broker
mode): each is *marked* when read, by the events that name its vessel jumping to where
the lead lies, so an inspector sees why the position is not to be trusted before a
Notice goes out, and the event's lead lists the ships it moved.

A lead is a victim of an event when the event names its vessel with a jump that ends
within ``RADIUS_M`` (5 km, the event's own linkage radius) of the lead's closest point,
and the lead starts no earlier than 30 s before that jump (the watch keeps one fix of
each 30 s at each end: its jump time may be up to 30 s after the first false fix) and
no later than a day after it (the watch forgets a vessel after a day). Leads of the
``ID-*`` rules are about what a vessel said, not where it was, and are never marked,
except ``ID-ON-LAND``: a ship put on land by interference is the event's victim.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from vigia.alerts.identity.interference import FORGET_S, RADIUS_M, RULE
from vigia.alerts.identity.land import RULE as LAND_RULE
from vigia.alerts.identity.pending import BUCKET_S
from vigia.alerts.lead import Lead
from vigia.alerts.tracking import metres


def doubtable(rule: str) -> bool:
    """Whether a lead of ``rule`` may be an event's victim (the module's docstring)."""
    return not rule.startswith("ID-") or rule == LAND_RULE


def moved(event: Lead) -> set[int]:
    """The MMSIs an ``ID-INTERFERENCE`` lead names as jumping."""
    return {v["mmsi"] for v in event.details.get("vessels", ())}


def window(lead: Lead) -> tuple[float, float]:
    """The times an event must span to name ``lead``'s vessel: (its jump no earlier than
    a day before the lead starts, nor later than 30 s after)."""
    return lead.started_at - FORGET_S, lead.started_at + BUCKET_S


def doubts(lead: Lead, events: Iterable[Lead]) -> list[dict[str, Any]]:
    """The interference events (``ID-INTERFERENCE`` leads) that moved ``lead``'s vessel
    to where the lead lies, oldest first: each with its lead id, the jump's time, where
    from and where to, its length, and how many ships the event moved."""
    if not doubtable(lead.rule):
        return []
    lo, hi = window(lead)
    out: list[dict[str, Any]] = []
    for e in events:
        if e.rule != RULE:
            continue
        for v in e.details.get("vessels", ()):
            if v.get("mmsi") != lead.mmsi:
                continue
            t = dt.datetime.fromisoformat(v["t"]).timestamp()
            to = v["to"]
            if (
                lo <= t <= hi
                and metres(to[0], to[1], lead.closest_lon, lead.closest_lat) <= RADIUS_M
            ):
                out.append({
                    "lead_id": e.id, "t": v["t"], "from": v["from"], "to": to,
                    "jump_m": v["jump_m"], "vessel_count": e.details.get("vessel_count"),
                })  # fmt: skip
                break
    return sorted(out, key=lambda x: (x["t"], x["lead_id"]))
