"""The deadlines of a lead's procedure, from the dates the inspector entered.

LESTA (NORMAM-07 0306): defence 15 working days from knowledge of the Auto (b) I);
judgment 30 calendar days from the defence, or from the end of its term (b) II);
payment 15 calendar days (b) IV); appeal 5 working days from knowledge of the decision,
decided in 30 days (c); the prior deposit it still names is void: STF Súmula
Vinculante 21, Lei 9.784/1999 art. 56 §2º); last appeal to DGN 5 working days
from notice of the appeal's decision, decided in 30 days (d) I).

Pollution (NORMAM-07 0404-0405, NORMAM-20 1.6, Lei 9.966/2000), every term in
consecutive days excluding the first and including the last (0404 a) III): defence 20
days from knowledge of the technical report, or from the end of the summons' term when
the summons was ignored (b)); judgment 30 days (b)); appeal 20 days from knowledge of
the judgment, no deposit (c)); last appeal 20 days, decided in 30 (d)); payment 5 days
from receipt of the notice to pay (0405; NORMAM-20 1.6). 0404 c) gives the DPC no term to
decide the first appeal: Lei 9.784/1999 art. 59 §1º does, 30 days (extendable once by as
many, §2º).

An appeal's decision term runs from the appeal, never from the decision appealed: the
law counts it from the file's receipt by the deciding authority (Lei 9.784 art. 59 §1º),
which the appeal reaches through the office that judged (0306 d) II, 0404 c)); Vigia
counts from the filing, the earliest that receipt can be, so the date shown is never
later than the law's. A first LESTA appeal against a Delegacia's or Agência's judgment is
decided by the Capitão dos Portos above it (0305 b) II), so its term rolls over on that
Capitania's seat calendar (the procedure's ``appeal_seat_*``). The DPC and the DGN sit in
Rio de Janeiro, so their decision terms roll over on that city's calendar, not the judging
office's (art. 66 §1º: the day the deciding office has no expediente).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any

from vigia.alerts.procedure.calendars import (
    ROLLOVER_BASIS,
    Deadline,
    SeatCalendar,
    add_consecutive_days,
    add_working_days,
    term_end,
)
from vigia.alerts.procedure.workflow import LESTA, ProcedureDataError, regime_of

N07 = "NORMAM-07/DPC"
#: the DPC and the DGN, which decide the appeals made to them, both sit in Rio de Janeiro
HEADQUARTERS = SeatCalendar("RJ", "Rio de Janeiro")


def _d(value: Any) -> dt.date | None:
    return None if value in (None, "") else dt.date.fromisoformat(str(value))


@dataclass(frozen=True, slots=True)
class _Terms:
    defence: tuple[int, str]
    judgment: tuple[int, str]
    appeal: tuple[tuple[int, str], tuple[int, str]]  # first appeal, last instance
    #: who decides each appeal sits at the judging office's seat (False) or at the
    #: DPC's and DGN's in Rio de Janeiro (True)
    appeal_decision: tuple[tuple[int, str, bool], tuple[int, str, bool]]
    payment: tuple[int, str]
    working: bool  # defence and appeals in working days (LESTA)


_LESTA = _Terms(
    defence=(15, f"{N07} 0306 b) I"),
    judgment=(30, f"{N07} 0306 b) II"),
    appeal=((5, f"{N07} 0306 c)"), (5, f"{N07} 0306 d) I")),
    appeal_decision=((30, f"{N07} 0306 c)", False), (30, f"{N07} 0306 d) I", True)),
    payment=(15, f"{N07} 0306 b) IV"),
    working=True,
)
_POLLUTION = _Terms(
    defence=(20, f"{N07} 0404 b); Lei 9.966/2000"),
    judgment=(30, f"{N07} 0404 b)"),
    appeal=((20, f"{N07} 0404 c)"), (20, f"{N07} 0404 d)")),
    # 0404 c) sets no term for the DPC's decision on the first appeal: Lei 9.784 does
    appeal_decision=(
        (30, f"Lei 9.784/1999 art. 59 §1º ({N07} 0404 c) sets none)", True),
        (30, f"{N07} 0404 d)", True),
    ),
    payment=(5, f"{N07} 0405; NORMAM-20 1.6"),
    working=False,
)


class _Builder:
    def __init__(self, status: str, seat: SeatCalendar, working: bool) -> None:
        self.status, self.seat, self.working = status, seat, working
        self.out: list[Deadline] = []

    def add(
        self,
        name: str,
        start: dt.date,
        term: tuple[int, str],
        *,
        working: bool,
        pending_in: tuple[str, ...],
        met_on: dt.date | None,
        seat: SeatCalendar | None = None,
    ) -> Deadline:
        days, basis = term
        seat = seat or self.seat  # the office that must act by then, when not the seat
        if working:
            counted_to, counting = add_working_days(start, days, seat), "working_days"
        else:
            counted_to = add_consecutive_days(start, days)
            counting = "calendar_days" if self.working else "consecutive_days"
        due = term_end(start, days, working, seat)
        if due != counted_to:
            basis = f"{basis}; {ROLLOVER_BASIS}"
        item = Deadline(
            name,
            due,
            basis,
            start,
            days,
            counting,
            pending=self.status in pending_in and met_on is None,
            met_on=met_on,
            counted_to=None if due == counted_to else counted_to,
            note=seat.term_note(start, due),
        )
        self.out.append(item)
        return item


#: who acts by each deadline, per regime (0305 and 0403: competence)
_ACTORS = {
    True: {
        "comparecimento": "notificado",
        "defesa": "autuado",
        "julgamento": "Autoridade Competente da CP/DL/AG (0305 b) I)",
        "recurso": "autuado, ao Capitão dos Portos (0305 b) II)",
        "decisao_recurso": "Capitão dos Portos (0305 b) II)",
        "recurso_ultima_instancia": "autuado, ao DGN (0305 c))",
        "decisao_recurso_ultima_instancia": "DGN (0305 c))",
        "pagamento": "autuado",
    },
    False: {
        "comparecimento": "autuado (intimação)",
        "defesa": "autuado",
        "julgamento": "Autoridade Competente que lavrou o auto (0403 b), 0404 b))",
        "recurso": "autuado, ao Diretor de Portos e Costas (0403 c) IV)",
        "decisao_recurso": "Diretor de Portos e Costas (0403 c) IV)",
        "recurso_ultima_instancia": "autuado, ao DGN (0403, 0404 d))",
        "decisao_recurso_ultima_instancia": "DGN (0404 d))",
        "pagamento": "autuado",
    },
}


def compute_deadlines(rule: str, status: str, proc: dict[str, Any]) -> list[Deadline]:
    """Every deadline the entered dates determine, oldest step first, each with who acts."""
    lesta = regime_of(rule, proc) == LESTA
    actors = dict(_ACTORS[lesta])
    if lesta and proc.get("appeal_authority"):
        # the Capitão dos Portos is the one above the judging office: name him
        head = f"Capitão dos Portos ({proc['appeal_authority']}; 0305 b) II)"
        actors["recurso"] = f"autuado, ao {head}"
        actors["decisao_recurso"] = head
    return [replace(d, actor=actors.get(d.name, "")) for d in _deadlines(rule, status, proc)]


def _deadlines(rule: str, status: str, proc: dict[str, Any]) -> list[Deadline]:
    lesta = regime_of(rule, proc) == LESTA
    terms = _LESTA if lesta else _POLLUTION
    seat = SeatCalendar(proc.get("seat_state"), proc.get("seat_municipality"))
    b = _Builder(status, seat, terms.working)
    notice = proc.get("notice") or {}
    auto = proc.get("auto") or {}
    decisions: list[dict[str, Any]] = list(proc.get("decisions") or [])
    appeals: list[dict[str, Any]] = list(proc.get("appeals") or [])
    appear_by = _d(notice.get("appear_by"))
    if appear_by is not None:
        issued = _d(notice.get("date")) or appear_by
        basis = f"{N07} 0306 a) I; Anexo 3-A" if lesta else f"{N07} 0404 b)"
        b.out.append(
            Deadline(
                "comparecimento",
                appear_by,
                basis,
                issued,
                (appear_by - issued).days,
                "entered",
                pending=status == "notified",
            )
        )
    if lesta:
        defence_from = _d(auto.get("known_date"))
    else:
        # 0404 b): knowledge of the Laudo, which comes after the intimação that follows
        # the Auto, so never before knowledge of the Auto itself; when the summoned party
        # did not appear, the end of the summons' term
        report = _d(proc.get("report_known_date"))
        auto_known = _d(auto.get("known_date"))
        if report is not None and auto_known is not None:
            defence_from = max(report, auto_known)
        else:
            defence_from = report or (appear_by if auto else None)
    first = decisions[0] if decisions else None
    if defence_from is not None:
        received = _d(proc.get("defence_received"))
        defence = b.add(
            "defesa",
            defence_from,
            terms.defence,
            working=terms.working,
            pending_in=("infraction", "notified"),
            met_on=received,
        )
        b.add(
            "julgamento",
            received or defence.due,
            terms.judgment,
            working=False,
            pending_in=("infraction", "defence"),
            met_on=_d(first["date"]) if first else None,
        )
    for i, decision in enumerate(decisions):
        _after_decision(b, terms, lesta, proc, i, decision, appeals)
    return b.out


def _after_decision(
    b: _Builder,
    terms: _Terms,
    lesta: bool,
    proc: dict[str, Any],
    i: int,
    decision: dict[str, Any],
    appeals: list[dict[str, Any]],
) -> None:
    known = _d(decision["known_date"])
    assert known is not None
    latest = i == len(proc.get("decisions") or []) - 1
    upheld = decision.get("outcome") == "procedente"
    if upheld and i < len(terms.appeal):
        filed = appeals[i] if i < len(appeals) else None
        name = "recurso" if i == 0 else "recurso_ultima_instancia"
        b.add(
            name,
            known,
            terms.appeal[i],
            working=terms.working,
            pending_in=("judged",) if latest else (),
            met_on=_d(filed["filed"]) if filed else None,
        )
        filed_on = _d(filed["filed"]) if filed else None
        if filed_on is not None:
            # from the appeal's filing, never from the decision appealed (module doc)
            days, basis, at_hq = terms.appeal_decision[i]
            answer = proc["decisions"][i + 1] if i + 1 < len(proc["decisions"]) else None
            b.add(
                f"decisao_{name}",
                filed_on,
                (days, basis),
                working=False,
                pending_in=("appeal",) if i == len(appeals) - 1 else (),
                met_on=_d(answer["date"]) if answer else None,
                seat=HEADQUARTERS if at_hq else _appeal_seat(proc),
            )
    if not (latest and upheld and decision.get("penalty") == "multa"):
        return
    paid = _d((proc.get("payment") or {}).get("paid_on"))
    if lesta:
        # 0306 b) IV: counted from the notice of the penalty, that is the decision's
        b.add(
            "pagamento",
            known,
            terms.payment,
            working=False,
            pending_in=("judged", "appeal"),
            met_on=paid,
        )
    elif proc.get("payment_notice_date"):
        notice = _d(proc["payment_notice_date"])
        assert notice is not None
        b.add(
            "pagamento", notice, terms.payment, working=False, pending_in=("judged",), met_on=paid
        )


def _appeal_seat(proc: dict[str, Any]) -> SeatCalendar | None:
    """The calendar of the office that decides a first LESTA appeal: the Capitania above
    the Delegacia or Agência that judged (0305 b) II), when the procedure names it; else
    the judging office's own seat (a Capitania's appeal stays at home)."""
    state = proc.get("appeal_seat_state")
    if not state:
        return None
    return SeatCalendar(state, proc.get("appeal_seat_municipality"))


def check_dates(rule: str, before: str, status: str, proc: dict[str, Any]) -> None:
    """Date checks that need the deadlines: a judgment without a defence comes only
    after the defence term ran out (0306 b) II, 0404 b): "após decorrido o prazo"), and
    never while that term has not even started (a pollution Laudo not yet known)."""
    if not (before == "infraction" and status == "judged") or proc.get("defence_received"):
        return
    decided = dt.date.fromisoformat(proc["decisions"][-1]["date"])
    defence = [d for d in compute_deadlines(rule, status, proc) if d.name == "defesa"]
    if not defence:
        raise ProcedureDataError(
            "the defence term has not started (enter when the infractor knew of the Auto "
            "and of the Laudo Técnico Ambiental, NORMAM-07/DPC 0404 b), or the end of an "
            "ignored summons): no judgment before it ran out or a defence was received",
            "report_known_date",
            reason="defence-term-not-started",
        )
    if decided <= defence[0].due:
        raise ProcedureDataError(
            f"no defence was received and its term runs until {defence[0].due} "
            f"({defence[0].basis}): the judgment can only come after it",
            "decision.date",
            reason="defence-term-running",
            facts={"due": defence[0].due.isoformat(), "basis": defence[0].basis},
        )
