"""What a backtest says: the leads as the store would have kept them (routed to their
authority, silenced where an inspector's silence covers them), their count per day,
vessel, rule, zone and authority, and the difference against the zones in force."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from vigia.alerts.lead import Lead
from vigia.alerts.procedure.routing import routed
from vigia.alerts.procedure.silencing import Silence, silence_for
from vigia.ingest.records import iso_utc
from vigia.zones.model import Zone

#: how a draft's lead compares with the zones in force
NEW, KEPT, GONE = "new", "kept", "gone"


def as_stored(
    leads: Sequence[Lead],
    jurisdictions: Sequence[Zone],
    destinations: Mapping[int, str | None],
    silences: Sequence[Silence],
) -> list[Lead]:
    """Each lead with the authority and the silence the store would give it on writing
    (the pure half of ``service/db/silences.prepare_leads``: the same two functions)."""
    out = []
    for lead in leads:
        if lead.authority is None:
            lead = routed(lead, destinations.get(lead.mmsi), jurisdictions)
        hit = silence_for(lead, silences)
        out.append(lead if hit is None else replace(lead, silence_id=hit.id))
    return out


@dataclass(slots=True)
class Compared:
    """The draft's leads and those of the zones in force, each marked."""

    draft: list[tuple[Lead, str]]
    gone: list[Lead]


def compare(draft: Sequence[Lead], in_force: Sequence[Lead]) -> Compared:
    """By lead id (vessel, rule, zone and first position): a lead of both is kept."""
    before = {x.id for x in in_force}
    after = {x.id for x in draft}
    return Compared(
        [(x, KEPT if x.id in before else NEW) for x in draft],
        [x for x in in_force if x.id not in after],
    )


def _day(t: float) -> str:
    return datetime.fromtimestamp(t, tz=UTC).strftime("%Y-%m-%d")


def _counts(values: Sequence[Any]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(Counter(values).items(), key=lambda kv: str(kv[0]))}


def summary(
    compared: Compared,
    *,
    since: float,
    until: float,
    draft_ids: Sequence[str],
    affected: Sequence[str],
    counters: Mapping[str, int],
) -> dict[str, Any]:
    """The report as JSON: counts of the draft's leads and the difference."""
    leads = [x for x, _ in compared.draft]
    marks = Counter(m for _, m in compared.draft)
    silenced = [x for x in leads if x.silence_id is not None]
    return {
        "since": iso_utc(since),
        "until": iso_utc(until),
        "draft_zones": sorted(draft_ids),
        "zones_compared": sorted(affected),
        "leads": len(leads),
        "per_day": _counts([_day(x.started_at) for x in leads]),
        "vessels": len({x.mmsi for x in leads}),
        "by_rule": _counts([x.rule for x in leads]),
        "by_zone": _counts([x.zone_id for x in leads]),
        "by_authority": _counts([x.authority or "-" for x in leads]),
        "difference": {
            NEW: marks[NEW],
            KEPT: marks[KEPT],
            GONE: len(compared.gone),
        },
        "silenced": len(silenced),
        "silences_applied": sorted({x.silence_id for x in silenced if x.silence_id}),
        # fixes the authorised-vessel register let through, in the draft's run
        "authorised_fixes": int(counters.get("authorised_fixes", 0)),
        "installation_fixes": int(counters.get("installation_fixes", 0)),
    }


def per_zone_day(leads: Sequence[Lead]) -> dict[str, int]:
    """Each zone's most leads in one UTC day (against a lead budget)."""
    days = Counter((x.zone_id or "", _day(x.started_at)) for x in leads)
    out: dict[str, int] = {}
    for (zone, _), n in days.items():
        out[zone] = max(out.get(zone, 0), n)
    return out


def over_budget(most: Mapping[str, int], budgets: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """The zones whose busiest day in a backtest raised more leads than their budget
    (a zone without a budget has no limit; at the budget is within it)."""
    return {
        zone: {"most_in_a_day": most[zone], "budget": budgets[zone]}
        for zone in sorted(most)
        if zone in budgets and most[zone] > budgets[zone]
    }
