"""The procedure's legal bounds, each from both sides, against dates worked out by hand.

The terms: NORMAM-07 0306 b) I (defence, 15 working days from knowledge of the Auto),
b) II (judgment, 30 days), b) IV (payment, 15 days), c) (appeal, 5 working days);
0404 b) (pollution defence, 20 consecutive days, excluding the first, including the
last); NORMAM-20 1.5.3 b) (a repeat offence within 36 months). Every due date below
falls on a weekday that is no holiday, so a rule that moves a term ending on a closed
day would not change it either. March-May 2025: Carnival was 3-4 March, Good Friday
18 April, Tiradentes 21 April, Labour Day 1 May.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from vigia.alerts.procedure.deadlines import check_dates, compute_deadlines
from vigia.alerts.procedure.repeats import PriorCase, repeat_offence
from vigia.alerts.procedure.workflow import (
    Move,
    ProcedureConflictError,
    ProcedureDataError,
    allowed_moves,
    apply_move,
)

LESTA_RULE, POLLUTION_RULE = "SEC-CHANNEL", "BW-EXCH-50"
D = dt.date


def _walk(rule: str, *moves: Move) -> tuple[str, dict[str, Any]]:
    status, proc = "new", {}
    for move in moves:
        status, proc = apply_move(rule, status, proc, move)
    return status, proc


TRIAGE = Move("triaged")
NOTICE = Move("notified", data={"notice": {"date": "2025-03-03", "appear_by": "2025-03-07"}})
AUTO = Move(
    "infraction", data={"auto": {"number": "A-1", "date": "2025-03-10", "signature": "signed"}}
)


def _judge(day: str, outcome: str = "procedente") -> Move:
    return Move("judged", data={"decision": {"date": day, "outcome": outcome}})


def _appeal_decided(day: str) -> Move:
    # a decision on appeal says the appeal's own outcome, apart from the Auto's judgment
    # (a rejected first appeal still opens the second instance)
    return Move("judged", data={"decision": {"date": day, "appeal_outcome": "nao_provido"}})


def _appeal(day: str) -> Move:
    return Move("appeal", data={"appeal": {"filed": day}})


def test_an_infraction_cannot_be_closed_without_judgment() -> None:
    status, proc = _walk(LESTA_RULE, TRIAGE, NOTICE, AUTO)
    assert status == "infraction"
    assert "closed" not in allowed_moves(status, "lesta", proc)
    with pytest.raises(ProcedureConflictError):
        apply_move(LESTA_RULE, status, proc, Move("closed", reason="paid"))
    for to in ("defence", "judged"):
        assert to in allowed_moves(status, "lesta", proc)


def test_a_new_lead_is_triaged_before_anything_is_issued() -> None:
    with pytest.raises(ProcedureConflictError):
        apply_move(LESTA_RULE, "new", {}, NOTICE)
    with pytest.raises(ProcedureConflictError):
        apply_move(POLLUTION_RULE, "new", {}, AUTO)


def test_under_lesta_the_notice_precedes_the_auto_under_pollution_not() -> None:
    status, proc = _walk(LESTA_RULE, TRIAGE)
    with pytest.raises(ProcedureConflictError):
        apply_move(LESTA_RULE, status, proc, AUTO)  # 0306 a) I
    status, proc = _walk(POLLUTION_RULE, TRIAGE)
    assert apply_move(POLLUTION_RULE, status, proc, AUTO)[0] == "infraction"  # 0404 a) I


def test_two_appeal_instances_then_no_more() -> None:
    status, proc = _walk(
        POLLUTION_RULE,
        TRIAGE,
        AUTO,
        Move("defence", data={"defence_received": "2025-03-20"}),
        _judge("2025-04-10"),
        _appeal("2025-04-15"),
        _appeal_decided("2025-05-06"),
        _appeal("2025-05-12"),
        _appeal_decided("2025-06-02"),
    )
    assert status == "judged" and len(proc["appeals"]) == 2
    assert "appeal" not in allowed_moves(status, "pollution", proc)
    with pytest.raises(ProcedureConflictError):
        apply_move(POLLUTION_RULE, status, proc, _appeal("2025-06-05"))


def test_no_appeal_against_an_acquittal() -> None:
    base = (TRIAGE, AUTO, Move("defence", data={"defence_received": "2025-03-20"}))
    status, proc = _walk(POLLUTION_RULE, *base, _judge("2025-04-10", "improcedente"))
    with pytest.raises(ProcedureConflictError):
        apply_move(POLLUTION_RULE, status, proc, _appeal("2025-04-15"))
    status, proc = _walk(POLLUTION_RULE, *base, _judge("2025-04-10"))
    assert apply_move(POLLUTION_RULE, status, proc, _appeal("2025-04-15"))[0] == "appeal"


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_a_dismissal_needs_a_reason(reason: str | None) -> None:
    with pytest.raises(ProcedureDataError):
        apply_move(LESTA_RULE, "new", {}, Move("dismissed", reason=reason))
    assert (
        apply_move(LESTA_RULE, "new", {}, Move("dismissed", reason="duplicate"))[0] == "dismissed"
    )


def _due(rule: str, status: str, proc: dict[str, Any]) -> dict[str, dt.date]:
    return {d.name: d.due for d in compute_deadlines(rule, status, proc)}


LESTA_CASE: dict[str, Any] = {
    "regime": "lesta",
    "auto": {
        "number": "A-1",
        "date": "2025-03-10",
        "known_date": "2025-03-10",
        "signature": "signed",
    },
    "defence_received": "2025-03-18",
    "decisions": [
        {
            "date": "2025-05-05",
            "known_date": "2025-05-05",
            "outcome": "procedente",
            "penalty": "multa",
            "instance": 1,
        }
    ],
}


def test_lesta_terms_by_hand() -> None:
    due = _due(LESTA_RULE, "judged", LESTA_CASE)
    # Mon 10 Mar + 15 working days: 11-14 (4), 17-21 (9), 24-28 (14), Mon 31 Mar (15)
    assert due["defesa"] == D(2025, 3, 31)
    # defence received Tue 18 Mar + 30 days: Thu 17 Apr
    assert due["julgamento"] == D(2025, 4, 17)
    # decision known Mon 5 May + 5 working days: 6, 7, 8, 9, Mon 12 May
    assert due["recurso"] == D(2025, 5, 12)
    # fine notified with the decision, Mon 5 May + 15 days: Tue 20 May
    assert due["pagamento"] == D(2025, 5, 20)


def test_pollution_defence_is_20_consecutive_days() -> None:
    proc = {
        "regime": "pollution",
        "auto": {
            "number": "A-2",
            "date": "2025-03-10",
            "known_date": "2025-03-10",
            "signature": "signed",
        },
        "report_known_date": "2025-03-12",
    }
    # Wed 12 Mar, excluding it: 20 days later is Tue 1 Apr
    assert _due(POLLUTION_RULE, "infraction", proc)["defesa"] == D(2025, 4, 1)


def test_judgment_without_defence_only_after_the_term_ran_out() -> None:
    proc = {k: v for k, v in LESTA_CASE.items() if k not in ("defence_received", "decisions")}

    def judged_on(day: str) -> dict[str, Any]:
        return {
            **proc,
            "decisions": [
                {"date": day, "known_date": day, "outcome": "procedente", "penalty": "multa"}
            ],
        }

    with pytest.raises(ProcedureDataError):
        check_dates(LESTA_RULE, "infraction", "judged", judged_on("2025-03-31"))  # last day
    check_dates(LESTA_RULE, "infraction", "judged", judged_on("2025-04-01"))


def _fined(lead_id: str, auto_date: dt.date, rule: str = "BW-EXCH-200") -> PriorCase:
    """A closed earlier case of the same vessel with an upheld fine."""
    known = (auto_date + dt.timedelta(days=30)).isoformat()
    proc = {
        "auto": {"date": auto_date.isoformat()},
        # decided and known a month after the Auto: final long before the new infraction
        "decisions": [
            {"date": known, "known_date": known, "outcome": "procedente", "penalty": "multa"}
        ],
    }
    return PriorCase(lead_id, 538000001, rule, "closed", proc)


def test_repeat_offence_window_is_strictly_under_36_months() -> None:
    # Decreto 4.136/2002 via NORMAM-20 1.5.3 b): "em período inferior a 36 meses";
    # 36 months before 10 Mar 2026 is 10 Mar 2023, which is not inferior to 36 months
    ref = D(2026, 3, 10)

    def rep(day: dt.date) -> dict[str, object]:
        return repeat_offence(ref, "BW-EXCH-200", {}, 538000001, [_fined("L-1", day)])

    inside = rep(D(2023, 3, 11))
    assert inside["applies"] is True and inside["fine_factor"] == 3
    assert rep(D(2023, 3, 10))["applies"] is False
    assert rep(D(2023, 3, 9))["applies"] is False


def test_lesta_repeat_window_is_twelve_months_or_less() -> None:
    # RLESTA art. 10: "em um período igual ou inferior a doze meses": 10 Mar 2025 counts
    ref = D(2026, 3, 10)

    def rep(day: dt.date) -> dict[str, object]:
        return repeat_offence(ref, "BATH-MOTOR", {}, 538000001, [_fined("L-1", day, "BATH-SAIL")])

    assert rep(D(2025, 3, 10))["applies"] is True
    assert rep(D(2025, 3, 10))["fine_factor"] == 2  # multiplied by two
    assert rep(D(2025, 3, 9))["applies"] is False
