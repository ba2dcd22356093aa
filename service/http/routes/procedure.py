"""The procedure a lead starts: PATCH /leads/{id} moves it, with the data each step needs.

The body shapes are checked here; whether the move is allowed and what it needs is the
state machine's (alerts/procedure/workflow.py), and the store writes the change and its history
row together (``Repository.move_lead``).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Header, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from vigia.alerts.identity.interference import RULE as INTERFERENCE
from vigia.alerts.lead import Lead
from vigia.alerts.procedure.calendars import STATES, SeatCalendar
from vigia.alerts.procedure.deadlines import compute_deadlines
from vigia.alerts.procedure.repeats import repeat_offence
from vigia.alerts.procedure.workflow import (
    REGIMES,
    RESPONSIBLE_ROLES,
    Actor,
    Move,
    allowed_moves,
    regime_of,
)
from vigia.alerts.procedure.workflow import STATES as LEAD_STATES
from vigia.service.db.protocol import ApiKeyRecord, Repository, Scope
from vigia.service.errors import NotFoundError, PreconditionFailedError
from vigia.service.http.deps import get_repository, require_role, require_scope
from vigia.service.http.doubts import interference_doubts, interference_victims
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.params import LeadId

inspector = require_role("inspector")
router = APIRouter(tags=["procedure"])


EXAMPLE_CASE: dict[str, Any] = {
    "id": "L-3f9c2a1b7d4e5f60",
    "status": "infraction",
    "regime": "lesta",
    "due": "2026-03-03",
    "procedure": {
        "regime": "lesta",
        "seat_state": "RJ",
        "auto": {"number": "CPRJ-001/2026", "date": "2026-02-06", "known_date": "2026-02-06"},
    },
    "deadlines": [
        {
            "name": "defesa",
            "due": "2026-03-03",
            "basis": "NORMAM-07/DPC 0306 b) I",
            "counted_from": "2026-02-06",
            "days": 15,
            "counting": "working_days",
            "pending": True,
            "met_on": None,
            "late": None,
            "actor": "autuado",
        }
    ],
    "history": [
        {
            "at": "2026-02-06T14:00:00Z",
            "by": "inspector-silva",
            "by_role": "inspector",
            "from": "notified",
            "to": "infraction",
            "reason": None,
            "before": {"auto": None},
            "after": {"auto": {"number": "CPRJ-001/2026"}},
        }
    ],
    "repeat_offence": {
        "window": {"from": "2025-02-06", "to": "2026-02-06"},
        "applies": False,
        "prior": [],
        "by": "infractor",
        "fine_factor": None,
        "basis": "RLESTA (Decreto nº 2.596/1998), art. 10",
    },
    "allowed_moves": ["defence", "judged"],
    "interference": [],
}


def _sane(day: dt.date) -> dt.date:
    # a date typed with a wrong century would silently push every deadline out of sight
    if not dt.date(2000, 1, 1) <= day <= dt.date(2100, 12, 31):
        raise ValueError("dates must fall between 2000 and 2100")
    return day


Day = Annotated[dt.date, AfterValidator(_sane)]
Text = Annotated[str, Field(min_length=1, max_length=500)]


def _uf(code: str) -> str:
    if code not in STATES:
        raise ValueError(f"not a Brazilian state code; one of {', '.join(STATES)}")
    return code


UF = Annotated[str, AfterValidator(_uf)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoticeIn(_In):
    """Notificação para Comparecimento (NORMAM-07 0306 a) I, Anexo 3-A)."""

    number: Text | None = None
    date: Day
    appear_by: Day = Field(description="the date the notified person must appear by")
    place: Text | None = Field(
        default=None,
        description="where to appear (the office's address); default: the register's, "
        "where a public source gives it, else a blank line on the Notice",
    )
    hours: Text | None = Field(
        default=None,
        description="the hours to appear in; default: the office's public-service hours "
        "in the register, where a public source gives them, else a blank line",
    )


class AutoIn(_In):
    """Auto de Infração (Anexo 3-B): number, date, and who signed or refused."""

    number: Text
    date: Day
    known_date: Day | None = Field(
        default=None, description="when the infractor knew of the Auto (default: its date)"
    )
    signature: Literal["signed", "refused", "a_rogo"]
    vessel_mmsi: int | None = Field(
        default=None,
        ge=0,
        le=999_999_999,
        description="ATON-DAMAGE: the candidate vessel the inspector holds responsible",
    )
    signed_by: Text | None = None
    inscription: Text | None = Field(
        default=None, description="the vessel's inscription number (Capitania, Delegacia, Agência)"
    )
    witnesses: list[Text] = Field(default_factory=list, max_length=4)
    refusal_note: Annotated[str, Field(max_length=2000)] | None = None


class DecisionIn(_In):
    """The competent authority's decision (0306 b) II-III, 0404 b))."""

    date: Day
    known_date: Day | None = Field(default=None, description="when the infractor knew of it")
    outcome: Literal["procedente", "improcedente"] | None = Field(
        default=None, description="the Auto's judgment (first instance)"
    )
    appeal_outcome: Literal["provido", "parcialmente_provido", "nao_provido"] | None = Field(
        default=None,
        description="the decision on an appeal, kept apart from the Auto's judgment",
    )
    penalty: Literal["multa", "suspensao", "cancelamento", "demolicao", "nenhuma"] | None = None
    fine_brl: Annotated[float, Field(ge=0, le=1e10)] | None = None
    summary: Annotated[str, Field(max_length=4000)] | None = None


class AppealIn(_In):
    """An appeal: the date filed and, optionally, a deposit receipt (never required:
    STF Súmula Vinculante 21, Lei 9.784/1999 art. 56 §2º, over NORMAM-07 0306 c))."""

    filed: Day
    deposit_receipt: Text | None = None


class PartyIn(_In):
    """A party liable under NORMAM-07 0304, as the inspector identified it."""

    role: Literal[tuple(RESPONSIBLE_ROLES)]  # type: ignore[valid-type]
    name: Text
    document: Text | None = Field(default=None, description="CPF / CNPJ / passport")
    licence: Text | None = Field(
        default=None, description="the conductor's Certificado de Habilitação (CHA) number"
    )
    address: Text | None = None


class FineFactorsIn(_In):
    """Inputs of the fine's factors (NORMAM-20 1.5.2 c), 1.5.3); the amount is people's."""

    sensibilidade_ambiental: Text | None = None
    acao_resposta: Text | None = None
    situacao_economica: (
        Literal["micro_pequena", "media", "grande", "pf_isenta", "pf_declarante"] | None
    ) = None
    notes: Annotated[str, Field(max_length=4000)] | None = None


class LeadChange(_In):
    """A move in the procedure (``status``) and/or data for the lead's record."""

    status: Literal[LEAD_STATES] | None = Field(  # type: ignore[valid-type]
        default=None, description="the state to move to; omit to only enter data"
    )
    reason: Annotated[str, Field(max_length=2000)] | None = Field(
        default=None, description="why (required to dismiss)"
    )
    regime: Literal[REGIMES] | None = Field(  # type: ignore[valid-type]
        default=None,
        description="the rule's own regime: pollution (Lei 9.966) for the ballast rules, "
        "LESTA for the others; any other is refused",
    )
    vessel_mmsi: int | None = Field(
        default=None,
        ge=0,
        le=999_999_999,
        description="ATON-DAMAGE: the candidate vessel held responsible, named before the "
        "Notice (the lead's MMSI is the aid's)",
    )
    seat_state: UF | None = Field(default=None, description="the authority's seat state (UF)")
    seat_municipality: Text | None = Field(
        default=None, description="the authority's seat city (its municipal holidays)"
    )
    responsible: list[PartyIn] | None = Field(
        default=None, max_length=20, description="liable parties (NORMAM-07 0304)"
    )
    notice: NoticeIn | None = Field(default=None, description="Notice / intimação")
    auto: AutoIn | None = Field(default=None, description="Auto de Infração (to infraction)")
    report_known_date: Day | None = Field(
        default=None, description="pollution: infractor's knowledge of the Laudo (0404 b))"
    )
    defence_received: Day | None = Field(default=None, description="date the defence arrived")
    decision: DecisionIn | None = Field(default=None, description="judgment (to judged)")
    appeal: AppealIn | None = Field(default=None, description="appeal (to appeal)")
    payment_notice_date: Day | None = Field(
        default=None, description="pollution: receipt of the notice to pay (0405)"
    )
    paid_on: Day | None = Field(default=None, description="the date the fine was paid")
    fine_factors: FineFactorsIn | None = Field(
        default=None, description="fine factors (NORMAM-20 1.5.2 c), 1.5.3)"
    )


def found(lead: Lead | None, lead_id: str) -> Lead:
    """The lead the store found in the caller's scope, else a 404: another authority's
    lead is "not found", not "forbidden", so a Capitania cannot probe another's caseload
    (the store already left it out: ``Scope``)."""
    if lead is None:
        raise NotFoundError(f"no lead with id {lead_id!r}")
    return lead


def etag(lead: Lead) -> str:
    """The lead's entity tag: its stored version, as a strong (quoted) tag."""
    return f'"{lead.version}"'


def with_etag(response: Response, lead: Lead) -> Response:
    """``response`` carrying the lead's ``ETag``."""
    response.headers["ETag"] = etag(lead)
    return response


def if_match_version(header: str | None, current: Lead) -> int | None:
    """The version an ``If-Match`` header holds the edit to (None: no condition); a 412
    when none of its tags is the lead's current one (RFC 9110 13.1.1: strong comparison,
    so a weak tag never matches)."""
    if header is None:
        return None
    tags = [t.strip() for t in header.split(",") if t.strip()]
    if "*" in tags:
        return None  # any current representation: the lead exists
    if etag(current) in tags:
        return current.version
    raise PreconditionFailedError(
        f"If-Match {header[:80]!r} is not the lead's current ETag {etag(current)}: read it again"
    )


def case_json(repo: Repository, lead: Lead, scope: Scope) -> dict[str, Any]:
    """The lead JSON with its history, deadlines and repeat offences (GET /leads/{id})."""
    out = lead.to_json()
    regime = regime_of(lead.rule, lead.procedure)
    out["deadlines"] = [
        d.to_json() for d in compute_deadlines(lead.rule, lead.status, lead.procedure)
    ]
    out["history"] = repo.lead_history(lead.id, scope)
    # GNSS interference that moved the vessel to where the lead lies (issue 34), and for
    # an interference event the leads it explains: linked when read (service/http/doubts)
    out["interference"] = interference_doubts(repo, lead, scope)
    if lead.rule == INTERFERENCE:
        out["interference_victims"] = interference_victims(repo, lead, scope)
    # the moves the state machine allows now, so a client offers only those (issue 22)
    out["allowed_moves"] = list(allowed_moves(lead.status, regime, lead.procedure, lead.rule))
    auto = lead.procedure.get("auto") or {}
    reference = (
        dt.date.fromisoformat(auto["date"])
        if auto.get("date")
        else dt.datetime.fromtimestamp(lead.started_at, dt.UTC).date()
    )
    # the day of the fact, as the lead's other dates: UTC
    committed = dt.datetime.fromtimestamp(lead.started_at, dt.UTC).date()
    out["repeat_offence"] = repeat_offence(
        reference,
        lead.rule,
        lead.procedure,
        lead.mmsi,
        repo.prior_cases(lead.id, scope),
        committed=committed,
    )
    # a stored state the holidays package no longer knows fails loudly
    seat = SeatCalendar(lead.procedure.get("seat_state"), lead.procedure.get("seat_municipality"))
    # verified: national, state and municipal holidays are all known; else the note says
    # what is missing, and the deadlines counted on this calendar are not certain
    out["calendar"] = {
        "state": seat.state,
        "municipality": seat.municipality,
        "verified": seat.note is None,
        "note": seat.note,
    }
    return out


@router.patch(
    "/leads/{lead_id}",
    summary="Move a lead through the procedure (inspector)",
    responses={
        200: {
            "description": "the lead with its history and deadlines",
            "content": {"application/json": {"example": EXAMPLE_CASE}},
        },
        **problem_responses(401, 403, 404, 409, 412, 422),
    },
)
def change_lead(
    lead_id: LeadId,
    change: Annotated[
        LeadChange,
        Body(
            openapi_examples={
                "triage": {"value": {"status": "triaged", "seat_state": "RJ"}},
                "dismiss": {"value": {"status": "dismissed", "reason": "fishing permit"}},
                "notify": {
                    "value": {
                        "status": "notified",
                        "notice": {"date": "2026-02-02", "appear_by": "2026-02-05"},
                    }
                },
                "auto": {
                    "value": {
                        "status": "infraction",
                        "auto": {"number": "123/2026", "date": "2026-02-06", "signature": "signed"},
                    }
                },
            }
        ),
    ],
    repo: Annotated[Repository, Depends(get_repository)],
    caller: Annotated[ApiKeyRecord, Depends(inspector)],
    scope: Annotated[Scope, Depends(require_scope("inspector"))],
    response: Response,
    if_match: Annotated[
        str | None,
        Header(
            alias="If-Match",
            description="the lead's `ETag` as read: the edit is refused (412) if it changed",
        ),
    ] = None,
) -> dict[str, Any]:
    """Move the lead (an impossible move is 409 naming the allowed ones) or enter data;
    every change is appended to the lead's history; the evidence never changes.
    Concurrent edits never lose one another; send `If-Match` with the `ETag` read to
    have the edit refused (412) when someone else changed the lead meanwhile."""
    expected = if_match_version(if_match, found(repo.get_lead(lead_id, scope), lead_id))
    data = change.model_dump(mode="json", exclude={"status", "reason"}, exclude_none=True)
    move = Move(to=change.status, reason=change.reason, data=data)
    actor = Actor(caller.name, caller.role)
    lead = found(repo.move_lead(lead_id, move, actor, scope=scope, if_version=expected), lead_id)
    response.headers["ETag"] = etag(lead)
    return case_json(repo, lead, scope)
