"""The administrative procedure a lead starts (NORMAM-07 0302-0306, 0401-0405).

A checked state machine over the lead's ``status`` and a JSON record of what the
inspector entered at each step (``procedure``). Pure code: no HTTP, no SQL. The store
calls :func:`apply_move` inside the transaction that writes the new state and its
history row, so every change is validated here and recorded there.

States: ``new`` -> ``triaged`` -> ``notified`` (Notificação para Comparecimento, Anexo
3-A) -> ``infraction`` (Auto de Infração, Anexo 3-B) -> ``defence`` -> ``judged`` ->
``appeal`` -> ``judged`` ... -> ``closed``; ``dismissed`` (with a reason) from the early
states. Under LESTA the Notice precedes the Auto (0306 a) I); under Lei 9.966 the Auto
comes first and the summons after it (0404 a) I, b)), so pollution leads may go from
``triaged`` straight to ``infraction`` and record the summons as data.
"""

from __future__ import annotations

import copy
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

# the errors and regimes are re-exported (``X as X``): the service and the procedure's
# modules have always imported them from here
from vigia.alerts.procedure.errors import ProcedureConflictError as ProcedureConflictError
from vigia.alerts.procedure.errors import ProcedureDataError as ProcedureDataError
from vigia.alerts.procedure.infractions import LESTA as LESTA
from vigia.alerts.procedure.infractions import POLLUTION as POLLUTION
from vigia.alerts.procedure.infractions import (
    POLLUTION_RULES,
    is_infraction,
    name_vessel,
    refuse_no_infraction,
    require_offender,
    rule_regime,
)
from vigia.alerts.procedure.infractions import REGIMES as REGIMES

STATES = (
    "new",
    "triaged",
    "dismissed",
    "notified",
    "infraction",
    "defence",
    "judged",
    "appeal",
    "closed",
)
#: 0304: who answers for a LESTA infraction, jointly and severally
RESPONSIBLE_ROLES = {
    "tripulante": "0304 a)",
    "comandante": "0304 a)",
    "proprietario": "0304 b)",
    "armador": "0304 b)",
    "preposto": "0304 b)",
    "construtor": "0304 c)",
    "obra": "0304 d)",
    "jazida": "0304 e)",
    "pratico": "0304 f)",
    "agente_manobra": "0304 g)",
    "autor_material": "0304 h)",
}
SIGNATURES = ("signed", "refused", "a_rogo")  # 0306 a) II / 0404 a) II
OUTCOMES = ("procedente", "improcedente")
#: the decision on an appeal, kept apart from the Auto's judgment: an appeal "não
#: provido" leaves the penalty standing, so the last instance (DGN) is still open
APPEAL_OUTCOMES = ("provido", "parcialmente_provido", "nao_provido")
PENALTIES = ("multa", "suspensao", "cancelamento", "demolicao", "nenhuma")
#: first appeal to the superior authority, then the last instance (DGN)
MAX_APPEALS = 2

_MOVES: dict[str, tuple[str, ...]] = {
    "new": ("triaged", "dismissed"),
    "triaged": ("notified", "infraction", "dismissed"),
    "dismissed": ("triaged", "closed"),
    "notified": ("infraction", "dismissed"),
    "infraction": ("defence", "judged"),
    "defence": ("judged",),
    "judged": ("appeal", "closed"),
    "appeal": ("judged", "closed"),
    "closed": (),
}


def regime_of(rule: str, procedure: dict[str, Any]) -> str:
    """The lead's regime: its rule's, always. A regime stored before the rule was enforced
    (a bathers' lead put under Lei 9.966) is not obeyed: its conduct is still a traffic
    rule's, so its Auto, terms and penalty are LESTA's."""
    del procedure  # kept in the signature: callers read a lead as (rule, procedure)
    return rule_regime(rule)


#: the steps that issue a document to the infractor: the Notice and the Auto de Infração
ISSUING = ("notified", "infraction")
#: a draft is made once the lead was looked at (triaged), and while its Notice or Auto
#: may still be issued
DRAFTABLE = ("triaged", "notified", "infraction")


def allowed_moves(
    status: str, regime: str, procedure: dict[str, Any], rule: str | None = None
) -> tuple[str, ...]:
    """Where a lead in ``status`` may go next; without ``rule``, a lead of an infraction."""
    moves = _MOVES.get(status, ())
    if rule is not None and not is_infraction(rule):
        moves = tuple(m for m in moves if m not in ISSUING)
    if status == "triaged" and regime == LESTA:
        # 0306 a) I: the Notice to Appear precedes the Auto de Infração
        moves = tuple(m for m in moves if m != "infraction")
    if status == "judged":
        last = (procedure.get("decisions") or [{}])[-1]
        if (
            len(procedure.get("appeals") or []) >= MAX_APPEALS
            or last.get("outcome") != "procedente"
        ):
            moves = tuple(m for m in moves if m != "appeal")
    return moves


def check_issuable(rule: str, status: str, procedure: dict[str, Any]) -> None:
    """Raise what a move to the Notice or the Auto would, whatever the lead's status: a
    :class:`ProcedureConflictError` for a lead that is no infraction, a
    :class:`ProcedureDataError` for one whose offender is not named yet. The one law every
    move and every drafted document obeys."""
    refuse_no_infraction(rule, allowed_moves(status, regime_of(rule, procedure), procedure, rule))
    require_offender(rule, procedure)


def check_draft(rule: str, status: str, procedure: dict[str, Any]) -> None:
    """Raise what refuses a draft of the Notice or the Auto for this lead now: the law of
    :func:`check_issuable`, and a draft's own time (from triage while either may still be
    issued)."""
    allowed = allowed_moves(status, regime_of(rule, procedure), procedure, rule)
    refuse_no_infraction(rule, allowed)
    if status not in DRAFTABLE:
        raise ProcedureConflictError(
            f"documents are drafted for a lead in {', '.join(DRAFTABLE)}; it is {status}",
            ("triaged",) if status == "new" else (),
        )
    require_offender(rule, procedure)


@dataclass(frozen=True, slots=True)
class Actor:
    """Who makes a change: the API key's name and role."""

    name: str
    role: str


@dataclass(frozen=True, slots=True)
class Move:
    """A requested change: a new status (or None for a data-only edit) and its data.

    Dates in the dicts are ISO ``YYYY-MM-DD`` strings (the HTTP layer checked the shapes).
    """

    to: str | None
    reason: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    #: ATON-DAMAGE: the vessels the evidence names as candidates (lead details)
    candidates: tuple[dict[str, Any], ...] = ()


def _date(value: Any, what: str) -> dt.date:
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError as exc:
        raise ProcedureDataError(f"{what}: {value!r} is not a date (YYYY-MM-DD)", what) from exc


def _need(
    block: dict[str, Any] | None, keys: tuple[str, ...], step: str, prefix: str = ""
) -> dict[str, Any]:
    """``block`` when it has every one of ``keys``; ``prefix`` names it in the body."""
    missing = [k for k in keys if not block or block.get(k) in (None, "")]
    if missing:
        where = f"{prefix}.{missing[0]}" if prefix else missing[0]
        raise ProcedureDataError(f"moving to {step} needs {', '.join(missing)}", where)
    return dict(block or {})


def _not_before(later: dt.date, earlier: dt.date, what: str, field: str | None = None) -> None:
    if later < earlier:
        raise ProcedureDataError(f"{what}: {later} is before {earlier}", field or what)


def _merge_data(proc: dict[str, Any], data: dict[str, Any], status: str, rule: str) -> None:
    """Data that may be entered or corrected at any step before the lead is closed."""
    if "regime" in data and data["regime"] is not None:
        if data["regime"] not in REGIMES:
            raise ProcedureDataError(f"regime must be one of {', '.join(REGIMES)}", "regime")
        if data["regime"] != rule_regime(rule):
            # the regime is the rule's: a 0212 area under Lei 9.966 would give an Auto whose
            # conduct and legal basis disagree (NORMAM-07 0301 against 0401)
            governed = ", ".join(sorted(POLLUTION_RULES))
            raise ProcedureDataError(
                f"regime: a {rule} lead follows the {rule_regime(rule)} regime; the pollution "
                f"regime (Lei 9.966/2000, NORMAM-20) governs only {governed}",
                "regime",
            )
        proc["regime"] = data["regime"]
    for key in ("seat_state", "seat_municipality"):
        if data.get(key) is not None:
            proc[key] = data[key]
    if data.get("responsible") is not None:
        parties = []
        for party in data["responsible"]:
            role = party.get("role")
            if role not in RESPONSIBLE_ROLES:
                known = ", ".join(RESPONSIBLE_ROLES)
                raise ProcedureDataError(
                    f"responsible role {role!r} is not one of {known}", "responsible.role"
                )
            if not party.get("name"):
                raise ProcedureDataError("a responsible party needs a name", "responsible.name")
            parties.append({**party, "basis": f"NORMAM-07 {RESPONSIBLE_ROLES[role]}"})
        proc["responsible"] = parties
    if data.get("fine_factors") is not None:
        proc["fine_factors"] = dict(data["fine_factors"])
    if data.get("report_known_date") is not None:
        proc["report_known_date"] = _date(
            data["report_known_date"], "report_known_date"
        ).isoformat()
    if data.get("payment_notice_date") is not None:
        when = _date(data["payment_notice_date"], "payment_notice_date")
        proc["payment_notice_date"] = when.isoformat()
    if data.get("paid_on") is not None:
        _paid(proc, _date(data["paid_on"], "paid_on"))
    if "assignment" in data:  # who works the lead (routes/assignment.py); None: nobody
        if data["assignment"]:
            proc["assignment"] = dict(data["assignment"])
        else:
            proc.pop("assignment", None)
    if data.get("notice") is not None and status != "triaged":
        # pollution: the summons follows the Auto (0404 b)), so it is entered later
        proc["notice"] = _notice(data["notice"])


def _paid(proc: dict[str, Any], paid: dt.date) -> None:
    """Payment of a fine (0306 b) IV, 0405): only once a fine was imposed, not before it."""
    fines = [d for d in proc.get("decisions") or [] if d.get("penalty") == "multa"]
    if not fines:
        raise ProcedureDataError("paid_on: no decision imposed a fine", "paid_on")
    _not_before(paid, _date(fines[0]["date"], "decision.date"), "paid_on")
    proc["payment"] = {"paid_on": paid.isoformat()}


def _notice(block: dict[str, Any]) -> dict[str, Any]:
    notice = _need(block, ("date", "appear_by"), "notified", "notice")
    issued = _date(notice["date"], "notice.date")
    _not_before(_date(notice["appear_by"], "notice.appear_by"), issued, "notice.appear_by")
    return notice


def _enter_step(
    proc: dict[str, Any],
    current: str,
    to: str,
    data: dict[str, Any],
    reason: str | None,
) -> None:
    """Check and record what arriving in ``to`` requires."""
    if to == "dismissed":
        if not reason or not reason.strip():
            raise ProcedureDataError("dismissing a lead needs a reason", "reason")
        proc["dismissal_reason"] = reason.strip()
    elif to == "notified":
        proc["notice"] = _notice(data.get("notice") or {})
    elif to == "infraction":
        auto = _need(data.get("auto"), ("number", "date", "signature"), "infraction", "auto")
        auto.pop("vessel_mmsi", None)  # kept as the named vessel (infractions.name_vessel)
        if proc.get("vessel"):
            auto["vessel"] = proc["vessel"]
        if auto["signature"] not in SIGNATURES:
            raise ProcedureDataError(
                f"auto.signature must be one of {', '.join(SIGNATURES)}", "auto.signature"
            )
        issued = _date(auto["date"], "auto.date")
        # knowledge of the Auto starts the defence term (0306 b) I); signing is knowledge
        known = _date(auto.get("known_date") or issued.isoformat(), "auto.known_date")
        _not_before(known, issued, "auto.known_date")
        if proc.get("notice"):
            _not_before(issued, _date(proc["notice"]["date"], "notice.date"), "auto.date")
        auto["known_date"] = known.isoformat()
        proc["auto"] = auto
    elif to == "defence":
        needed = _need(data, ("defence_received",), "defence")
        received = _date(needed["defence_received"], "defence_received")
        _not_before(received, _date(proc["auto"]["date"], "auto.date"), "defence_received")
        proc["defence_received"] = received.isoformat()
    elif to == "judged":
        _judge(proc, current, data)
    elif to == "appeal":
        _appeal(proc, data)
    elif to == "closed":
        proc["closure"] = {"reason": reason or ""}
    elif to == "triaged" and current == "dismissed":
        proc.pop("dismissal_reason", None)


def _judge(proc: dict[str, Any], current: str, data: dict[str, Any]) -> None:
    if current == "appeal":
        decision = _need(data.get("decision"), ("date", "appeal_outcome"), "judged", "decision")
        if decision["appeal_outcome"] not in APPEAL_OUTCOMES:
            names = ", ".join(APPEAL_OUTCOMES)
            raise ProcedureDataError(
                f"decision.appeal_outcome must be one of {names}", "decision.appeal_outcome"
            )
        # the penalty stands unless the appeal was granted in full
        decision["outcome"] = (
            "improcedente" if decision["appeal_outcome"] == "provido" else "procedente"
        )
        if decision["outcome"] == "procedente" and not decision.get("penalty"):
            decision["penalty"] = proc["decisions"][-1].get("penalty")
    else:
        decision = _need(data.get("decision"), ("date", "outcome"), "judged", "decision")
        decision.pop("appeal_outcome", None)
    if decision["outcome"] not in OUTCOMES:
        raise ProcedureDataError(
            f"decision.outcome must be one of {', '.join(OUTCOMES)}", "decision.outcome"
        )
    penalty = decision.get("penalty") or (
        "multa" if decision["outcome"] == "procedente" else "nenhuma"
    )
    if penalty not in PENALTIES:
        raise ProcedureDataError(
            f"decision.penalty must be one of {', '.join(PENALTIES)}", "decision.penalty"
        )
    decided = _date(decision["date"], "decision.date")
    known = _date(decision.get("known_date") or decided.isoformat(), "decision.known_date")
    _not_before(known, decided, "decision.known_date")
    if current == "appeal":
        filed = _date(proc["appeals"][-1]["filed"], "appeal.filed")
        _not_before(decided, filed, "decision", "decision.date")
    else:
        _not_before(decided, _date(proc["auto"]["date"], "auto.date"), "decision.date")
    decisions = list(proc.get("decisions") or [])
    decisions.append(
        {
            **decision,
            "penalty": penalty,
            "known_date": known.isoformat(),
            "instance": len(decisions) + 1,
        }
    )
    proc["decisions"] = decisions


def _appeal(proc: dict[str, Any], data: dict[str, Any]) -> None:
    appeal = _need(data.get("appeal"), ("filed",), "appeal", "appeal")
    filed = _date(appeal["filed"], "appeal.filed")
    last = proc["decisions"][-1]
    _not_before(filed, _date(last["date"], "decision.date"), "appeal.filed")
    # 0306 c) still names a prior deposit for a LESTA appeal against a fine, but binding
    # law bars it: STF Súmula Vinculante 21 and Lei 9.784/1999 art. 56 §2º. A receipt the
    # infractor chose to pay may still be recorded; its absence refuses nothing.
    appeals = list(proc.get("appeals") or [])
    appeals.append({**appeal, "instance": len(appeals) + 2})
    proc["appeals"] = appeals


def apply_move(
    rule: str, status: str, procedure: dict[str, Any], move: Move
) -> tuple[str, dict[str, Any]]:
    """The lead's status and procedure record after ``move``, or an error that says why
    not: a 409-class :class:`ProcedureConflictError` naming the allowed moves, or a
    :class:`ProcedureDataError` naming what is missing."""
    if status == "closed":
        raise ProcedureConflictError("the lead is closed; nothing more can change", ())
    proc = copy.deepcopy(procedure)
    proc["regime"] = regime_of(rule, proc)
    _merge_data(proc, move.data, status, rule)
    name_vessel(proc, rule, status, move.to, move.data, move.candidates)
    if move.to is None or move.to == status:
        # the same status again is no move: an edit of the data, recorded like a move
        return status, proc
    if move.to not in STATES:
        raise ProcedureDataError(
            f"unknown status {move.to!r}; states: {', '.join(STATES)}", "status"
        )
    allowed = allowed_moves(status, proc["regime"], proc, rule)
    if move.to in ISSUING:
        refuse_no_infraction(rule, allowed)  # says why, where a bare refusal would not
    if move.to not in allowed:
        raise ProcedureConflictError(
            f"a lead cannot go from {status} to {move.to}; "
            f"allowed moves: {', '.join(allowed) or 'none'}",
            allowed,
        )
    if move.to in ISSUING:
        require_offender(rule, proc)
    _enter_step(proc, status, move.to, move.data, move.reason)
    return move.to, proc
