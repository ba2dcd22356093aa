"""A vessel's identity (issue 34): what its MMSI says (form, MID, administration), the
checks on its latest static data (IMO check digit, MID against the call sign), its
identity history (every change of its static data the store keeps, newest first) and
the ``ID-*`` leads raised on it, each with the changes that raised it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from vigia.alerts.identity.history import DAY_CAP, day_text
from vigia.alerts.identity.mid import country, flag_conflict, table
from vigia.alerts.identity.static import imo_valid
from vigia.ingest.mmsi import is_valid_mmsi
from vigia.ingest.records import device_class, iso_utc
from vigia.service.db.protocol import LeadQuery, Repository, Scope
from vigia.service.http.deps import get_repository, require_scope
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.paging import decode_history_cursor, encode_history_cursor
from vigia.service.http.routes.params import Mmsi
from vigia.service.http.routes.vessels import vessel_json

router = APIRouter(tags=["vessels"])

ViewerScope = Annotated[Scope, Depends(require_scope("viewer"))]
#: the identity leads listed at most (newest first): a vessel with more is a case already
LEADS_LIMIT = 200
#: changes of the identity history listed at most (newest first); ``history_total`` says
#: how many are stored
HISTORY_MAX = 1_000

EXAMPLE: dict[str, Any] = {
    "mmsi": 710000001,
    "valid_form": True,
    "device_class": "vessel",
    "mid": 710,
    "mid_country": "BR",
    "mid_name": "Brazil",
    "static": {"mmsi": 710000001, "name": "MARIA DO MAR", "callsign": "PP1234", "imo": None},
    "checks": {"imo_check_digit": None, "callsign_flag": None},
    "history": [
        {
            "t": "2024-03-01T10:20:00Z",
            "field": "name",
            "before": "ALFA",
            "after": "MARIA DO MAR",
            "msg_type": 5,
            "source": "tcp:127.0.0.1:10110",
        },
        {
            "t": "2024-02-28T08:00:00Z",
            "field": "imo_check",
            "before": None,
            "after": 9074728,
            "msg_type": 5,
            "source": "tcp:127.0.0.1:10110",
        },
    ],
    "history_total": 2,
    "history_limit": 100,
    "history_next": None,
    "history_day_cap": DAY_CAP,
    "history_not_kept": [],
    "leads": [
        {
            "lead_id": "6f1c...",
            "rule": "ID-STATIC-CHANGE",
            "started_at": "2024-03-01T10:20:00Z",
            "events": [
                {
                    "t": "2024-03-01T10:20:00Z",
                    "why": ["name and call sign changed in one report"],
                    "changes": {"name": {"from": "ALFA", "to": "BRAVO"}},
                }
            ],
        }
    ],
}


@router.get(
    "/vessels/{mmsi}/identity",
    summary="A vessel's identity and its history",
    responses={
        200: {"content": {"application/json": {"example": EXAMPLE}}},
        **problem_responses(400, 401, 403, 422),
    },
)
def identity(
    mmsi: Mmsi,
    repo: Annotated[Repository, Depends(get_repository)],
    scope: ViewerScope,
    limit: Annotated[
        int, Query(ge=1, le=HISTORY_MAX, description="changes of the history listed at most")
    ] = 100,
    before: Annotated[
        str | None,
        Query(max_length=300, description="the `history_next` of the page before: older changes"),
    ] = None,
) -> dict[str, Any]:
    """The MMSI's ITU-R M.585 form and MID, the checks on the latest static data, its
    identity history (changes of name, call sign, IMO, ship type, length or beam, and an
    IMO failing its check digit, newest first, at most ``limit``; ``history_total`` of
    them stored; a UTC day keeps its first ``history_day_cap`` changes, and the days
    with more are in ``history_not_kept``), and the ``ID-*`` leads of this MMSI in the
    caller's scope (newest first): a vessel with no static data and no lead still
    answers, with nulls and empty lists."""
    mid, iso = country(mmsi)
    info = repo.get_vessel(mmsi)
    imo = info.imo if info is not None and info.imo else None
    after = decode_history_cursor(before)
    history = repo.identity_history(mmsi, limit + 1, after)  # one more: is there a next?
    changes = history.changes[:limit]
    last = changes[-1] if len(history.changes) > limit else None
    leads, _ = repo.list_leads(LeadQuery(mmsi=mmsi), LEADS_LIMIT, scope=scope)
    return {
        "mmsi": mmsi,
        "valid_form": is_valid_mmsi(mmsi),
        "device_class": device_class(mmsi),
        "mid": mid,
        "mid_country": iso,
        "mid_name": table()[mid][1] if iso is not None and mid is not None else None,
        "static": vessel_json(info) if info is not None else None,
        "checks": {
            "imo_check_digit": None if imo is None else imo_valid(imo),
            "callsign_flag": flag_conflict(mmsi, info.callsign if info else None),
        },
        "history": [c.to_json() for c in changes],
        "history_total": history.total,
        "history_limit": limit,
        # keyset paging past the newest changes (null on the oldest page)
        "history_next": None if last is None else encode_history_cursor(last.t, last.field),
        "history_day_cap": DAY_CAP,
        "history_not_kept": [
            {"day": day_text(day), "changes": n, "kept": kept} for day, n, kept in history.not_kept
        ],
        "leads": [
            {
                "lead_id": x.id,
                "rule": x.rule,
                "started_at": iso_utc(x.started_at),
                "events": x.details.get("events", []),
            }
            for x in leads
            if x.rule.startswith("ID-")
        ],
    }
