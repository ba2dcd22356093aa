"""Repeat offences: which earlier, final penalties make this infraction a repeat.

Pollution (NORMAM-20 1.5.3 b), Decreto 4.136/2002): an infraction punished with a fine
is a repeat when the same infractor was fined before "em período inferior a 36 meses";
the fine is tripled. LESTA (RLESTA art. 10): the same infraction again "em um período
igual ou inferior a doze meses"; the penalty is multiplied by two, three and so on.

Who the infractor is: the responsible parties' CPF/CNPJ (or other document) entered at
the Auto. Only when no party with a document is known does the vessel (MMSI) stand in,
and the answer says so. Only final, upheld penalties count: an Auto still open to
defence or appeal is no established infraction (a procedure is final when it is closed
with its last decision upheld and a penalty imposed).

And final *before the new infraction*: the seeds are silent on when, so the general rule
of sanctioning law applies, as in the Penal Code's art. 63 and in federal regulations
that spell it out (Decreto 99.066/1990 art. 185: "quando seja administrativamente
irrecorrível a decisão que tenha aplicado a pena correspondente à infração anterior"):
an earlier penalty counts only if no appeal against it remained on the day the new
infraction was committed. It became irrecorrível the day after its appeal term ran out
unused, or on the day the last instance's decision was known. Counting one that was
still open to appeal would make the new penalty void (docs/procedure-terms.md).
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vigia.alerts.procedure.calendars import months_before
from vigia.alerts.procedure.deadlines import compute_deadlines
from vigia.alerts.procedure.penalties import (
    LESTA_REPEAT_BASIS,
    LESTA_REPEAT_MONTHS,
    penalty_article,
)
from vigia.alerts.procedure.workflow import LESTA, regime_of

#: NORMAM-20 1.5.3 b) (Decreto 4.136/2002): strictly under 36 months, fine tripled
REPEAT_WINDOW_MONTHS = 36
REPEAT_BASIS = "NORMAM-20 1.5.3 b); Decreto 4.136/2002"


@dataclass(frozen=True, slots=True)
class PriorCase:
    """Another lead that reached the Auto, as the store holds it."""

    lead_id: str
    mmsi: int
    rule: str
    status: str
    procedure: dict[str, Any]


def infractor_keys(procedure: dict[str, Any]) -> frozenset[str]:
    """The responsible parties' documents, compacted so "123.456.789-09" and
    "12345678909" match; fullwidth and other non-ASCII digits fold to ASCII first."""
    keys = set()
    for party in procedure.get("responsible") or []:
        doc = party.get("document") if isinstance(party, dict) else None
        if not doc:
            continue
        folded = unicodedata.normalize("NFKC", str(doc)).upper()
        key = "".join(ch for ch in folded if ch.isascii() and ch.isalnum())
        if key:
            keys.add(key)
    return frozenset(keys)


def _final_penalty(case: PriorCase, regime: str) -> bool:
    decisions = case.procedure.get("decisions") or []
    if case.status != "closed" or not decisions:
        return False
    last = decisions[-1]
    wanted = ("multa",) if regime != LESTA else ("multa", "suspensao")
    return last.get("outcome") == "procedente" and last.get("penalty") in wanted


#: the appeal term after the first and after the second decision (0306 c), d); 0404 c), d))
_APPEAL_TERMS = ("recurso", "recurso_ultima_instancia")


def final_on(case: PriorCase) -> dt.date | None:
    """The first day no appeal remained against the case's last decision, or None when
    that cannot be told (no dated decision, an appeal filed and not decided)."""
    decisions = case.procedure.get("decisions") or []
    last = decisions[-1] if decisions else {}
    known = last.get("known_date") or last.get("date")
    if not known:
        return None
    instance = len(decisions)  # the last decision's instance: 1, 2 or 3
    if len(case.procedure.get("appeals") or []) >= instance:
        return None  # appealed and the appeal's decision is not on record
    if instance > len(_APPEAL_TERMS):
        return dt.date.fromisoformat(str(known))  # the last instance: final when known
    name = _APPEAL_TERMS[instance - 1]
    terms = [d for d in compute_deadlines(case.rule, "closed", case.procedure) if d.name == name]
    if not terms:
        return None  # the regime allows no appeal here: cannot happen for an upheld fine
    return terms[-1].due + dt.timedelta(days=1)


def _auto_date(case: PriorCase) -> dt.date | None:
    day = (case.procedure.get("auto") or {}).get("date")
    return dt.date.fromisoformat(str(day)) if day else None


def repeat_offence(
    reference: dt.date,
    rule: str,
    procedure: dict[str, Any],
    mmsi: int,
    priors: Sequence[PriorCase],
    committed: dt.date | None = None,
) -> dict[str, Any]:
    """The repeat-offence block of a lead (GET /leads/{id}): its window, the earlier
    final penalties that count, whether it applies and the factor on the penalty.
    ``committed`` is the day of the new infraction (``reference`` when not given): an
    earlier penalty counts only if it was final by then."""
    committed = reference if committed is None else committed
    regime = regime_of(rule, procedure)
    keys = infractor_keys(procedure)
    lesta = regime == LESTA
    article = penalty_article(rule)
    if lesta:
        start = months_before(reference, LESTA_REPEAT_MONTHS)
    else:
        start = months_before(reference, REPEAT_WINDOW_MONTHS)
    hits: list[tuple[dt.date, str, dt.date]] = []
    for case in priors:
        day = _auto_date(case)
        case_regime = regime_of(case.rule, case.procedure)
        if day is None or case_regime != regime or not _final_penalty(case, regime):
            continue
        final = final_on(case)
        if final is None or final > committed:
            continue  # still open to appeal when the new infraction was committed
        # "igual ou inferior a doze meses" (LESTA) includes the window's first day;
        # "inferior a 36 meses" (pollution) does not
        inside = (start <= day if lesta else start < day) and day < reference
        same_party = bool(keys & infractor_keys(case.procedure)) if keys else case.mmsi == mmsi
        # LESTA counts "a mesma infração": the same article of the RLESTA
        same_offence = not lesta or penalty_article(case.rule) == article
        if inside and same_party and same_offence:
            hits.append((day, case.lead_id, final))
    hits.sort()
    out: dict[str, Any] = {
        "window": {"from": start.isoformat(), "to": reference.isoformat()},
        "prior": [
            {"lead_id": lead_id, "auto_date": d.isoformat(), "final_on": f.isoformat()}
            for d, lead_id, f in hits
        ],
        "applies": bool(hits),
        "by": "infractor" if keys else "vessel",
        "fine_factor": (len(hits) + 1 if lesta else 3) if hits else None,
        "basis": LESTA_REPEAT_BASIS if lesta else REPEAT_BASIS,
    }
    if not keys:
        out["note"] = (
            "no responsible party with a CPF/CNPJ was entered at the Auto: repeat offences "
            "are looked up by the vessel (MMSI) instead"
        )
    return out
