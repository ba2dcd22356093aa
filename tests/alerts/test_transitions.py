"""Every (from, to) pair of states against a table written here from NORMAM-07 0306
and 0404 (not read from the state machine), for both regimes and the no-infraction rule."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from vigia.alerts.procedure.workflow import (
    STATES,
    Move,
    ProcedureConflictError,
    ProcedureDataError,
    allowed_moves,
    apply_move,
    check_draft,
    check_issuable,
)

# from -> the states the law lets a lead go to next (LESTA, an ordinary rule)
LESTA_TABLE = {
    "new": {"triaged", "dismissed"},
    "triaged": {"notified", "dismissed"},  # 0306 a) I: the Notice comes first
    "dismissed": {"triaged", "closed"},
    "notified": {"infraction", "dismissed"},
    "infraction": {"defence", "judged"},
    "defence": {"judged"},
    "judged": {"appeal", "closed"},  # after an upheld penalty, with appeals left
    "appeal": {"judged", "closed"},
    "closed": set(),
}
# 0404 a) I, b): the Auto comes first, the summons follows it
POLLUTION_TABLE = {**LESTA_TABLE, "triaged": {"notified", "infraction", "dismissed"}}
# a distress beacon is no infraction: never a Notice nor an Auto
SAR_TABLE = {
    **POLLUTION_TABLE,
    "triaged": {"dismissed"},
    "notified": {"dismissed"},
    "new": {"triaged", "dismissed"},
}
UPHELD: dict[str, Any] = {"decisions": [{"outcome": "procedente"}], "appeals": []}

CASES = [
    ("SEC-PLATFORM", "lesta", LESTA_TABLE),
    ("BW-EXCH-200", "pollution", POLLUTION_TABLE),
    ("SAR-DISTRESS", "lesta", {**SAR_TABLE}),
    ("SAR-DISTRESS", "pollution", SAR_TABLE),
]


@pytest.mark.parametrize(("rule", "regime", "table"), CASES)
def test_every_pair(rule: str, regime: str, table: dict[str, set[str]]) -> None:
    assert set(table) == set(STATES)
    for src, dst in itertools.product(STATES, STATES):
        proc = {"regime": regime, **UPHELD}
        legal = dst in table[src]
        assert (dst in allowed_moves(src, regime, proc, rule)) == legal, (src, dst)
        if src == dst:
            continue
        try:
            apply_move(rule, src, proc, Move(dst, reason="r"))
        except ProcedureConflictError:
            assert not legal, (src, dst)
        except ProcedureDataError:
            assert legal, (src, dst)  # allowed, only short of the step's data
        else:
            assert legal, (src, dst)


def test_appeals_left() -> None:
    # an Auto judged improcedente leaves nothing to appeal; two appeals are the most
    lost = {"decisions": [{"outcome": "improcedente"}], "appeals": []}
    assert allowed_moves("judged", "lesta", lost) == ("closed",)
    twice = {"decisions": [{"outcome": "procedente"}], "appeals": [{}, {}]}
    assert allowed_moves("judged", "lesta", twice) == ("closed",)


def test_rejected_first_appeal_opens_the_dgn() -> None:
    proc = {
        "regime": "lesta",
        "auto": {"date": "2026-02-06"},
        "decisions": [{"date": "2026-03-20", "outcome": "procedente", "penalty": "multa"}],
        "appeals": [{"filed": "2026-03-25", "instance": 2}],
    }
    decision = {"date": "2026-04-20", "appeal_outcome": "nao_provido"}
    status, after = apply_move(
        "SEC-PLATFORM", "appeal", proc, Move("judged", data={"decision": decision})
    )
    assert status == "judged" and after["decisions"][-1]["appeal_outcome"] == "nao_provido"
    assert after["decisions"][0]["outcome"] == "procedente"  # the Auto's judgment untouched
    assert "appeal" in allowed_moves("judged", "lesta", after)
    granted = {"date": "2026-04-20", "appeal_outcome": "provido"}
    _, after = apply_move(
        "SEC-PLATFORM", "appeal", proc, Move("judged", data={"decision": granted})
    )
    assert allowed_moves("judged", "lesta", after) == ("closed",)
    with pytest.raises(ProcedureDataError, match="appeal_outcome"):
        apply_move(
            "SEC-PLATFORM",
            "appeal",
            proc,
            Move("judged", data={"decision": {"date": "2026-04-20", "outcome": "procedente"}}),
        )


def test_payment_checked_against_its_term() -> None:
    from vigia.alerts.procedure.deadlines import compute_deadlines

    proc = {
        "regime": "lesta",
        "decisions": [
            {
                "date": "2026-03-20",
                "known_date": "2026-03-20",
                "outcome": "procedente",
                "penalty": "multa",
            }
        ],
    }
    with pytest.raises(ProcedureDataError, match="paid_on"):
        apply_move("SEC-PLATFORM", "judged", proc, Move(None, data={"paid_on": "2026-03-19"}))
    with pytest.raises(ProcedureDataError, match="no decision imposed a fine"):
        apply_move(
            "SEC-PLATFORM",
            "infraction",
            {"regime": "lesta"},
            Move(None, data={"paid_on": "2026-03-21"}),
        )
    for paid, late in (("2026-04-06", False), ("2026-04-07", True)):  # due Mon 6 Apr
        _, after = apply_move("SEC-PLATFORM", "judged", proc, Move(None, data={"paid_on": paid}))
        pay = next(
            d for d in compute_deadlines("SEC-PLATFORM", "judged", after) if d.name == "pagamento"
        )
        assert pay.to_json()["late"] is late and not pay.pending


def test_aton_auto_of_a_lead_notified_without_a_vessel_names_the_chosen_candidate() -> None:
    # a lead notified before the vessel had to be named first: the Auto still names one
    cands = (
        {"mmsi": 710000001, "name": "A", "ship_type": 30},
        {"mmsi": 710000002, "name": "B", "ship_type": 70},
    )
    proc = {"regime": "lesta", "notice": {"date": "2026-02-02", "appear_by": "2026-02-05"}}
    auto = {"number": "1", "date": "2026-02-06", "signature": "signed"}
    with pytest.raises(ProcedureDataError, match="candidates"):
        apply_move(
            "ATON-DAMAGE",
            "notified",
            proc,
            Move("infraction", data={"auto": auto}, candidates=cands),
        )
    with pytest.raises(ProcedureDataError, match="candidates"):
        bad = {**auto, "vessel_mmsi": 992710001}  # the aid's own MMSI
        apply_move(
            "ATON-DAMAGE",
            "notified",
            proc,
            Move("infraction", data={"auto": bad}, candidates=cands),
        )
    chosen = {**auto, "vessel_mmsi": 710000002}
    _, after = apply_move(
        "ATON-DAMAGE", "notified", proc, Move("infraction", data={"auto": chosen}, candidates=cands)
    )
    assert after["auto"]["vessel"] == {"mmsi": 710000002, "name": "B", "ship_type": 70}


CANDS = (
    {"mmsi": 710000001, "name": "A", "ship_type": 30},
    {"mmsi": 710000002, "name": "B", "ship_type": 70},
)
NOTICE = {"notice": {"date": "2026-02-02", "appear_by": "2026-02-05"}}


def test_aton_names_its_vessel_before_the_notice_and_keeps_it() -> None:
    """RLESTA art. 23, V punishes whoever damages a nautical sign; the lead's MMSI is the
    sign's, so nobody is notified until the inspector names a candidate (0302 b))."""
    with pytest.raises(ProcedureDataError) as err:
        apply_move("ATON-DAMAGE", "triaged", {}, Move("notified", data=NOTICE, candidates=CANDS))
    assert err.value.field == "vessel_mmsi"
    with pytest.raises(ProcedureDataError) as err:
        check_draft("ATON-DAMAGE", "triaged", {})
    assert err.value.field == "vessel_mmsi"
    _, proc = apply_move(
        "ATON-DAMAGE", "triaged", {}, Move(None, data={"vessel_mmsi": 710000002}, candidates=CANDS)
    )
    assert proc["vessel"] == {"mmsi": 710000002, "name": "B", "ship_type": 70}
    check_draft("ATON-DAMAGE", "triaged", proc)
    status, proc = apply_move("ATON-DAMAGE", "triaged", proc, Move("notified", data=NOTICE))
    with pytest.raises(ProcedureDataError, match="fixed"):
        apply_move(
            "ATON-DAMAGE",
            status,
            proc,
            Move(None, data={"vessel_mmsi": 710000001}, candidates=CANDS),
        )
    auto = {"number": "1", "date": "2026-02-06", "signature": "signed"}
    _, after = apply_move("ATON-DAMAGE", status, proc, Move("infraction", data={"auto": auto}))
    assert after["auto"]["vessel"]["mmsi"] == 710000002
    # any other lead's vessel is its own
    with pytest.raises(ProcedureDataError) as err:
        apply_move(
            "SEC-PLATFORM", "triaged", {}, Move(None, data={"vessel_mmsi": 1}, candidates=CANDS)
        )
    assert err.value.field == "vessel_mmsi"


def test_the_document_law_is_the_moves_law() -> None:
    # a distress alert (0213 c)): the draft is refused as the move is, same allowed moves
    for check in (check_draft, check_issuable):
        with pytest.raises(ProcedureConflictError) as err:
            check("SAR-DISTRESS", "triaged", {})
        assert err.value.allowed == ("dismissed",) and "0213 c)" in str(err.value)
    with pytest.raises(ProcedureConflictError) as err:
        check_draft("SEC-PLATFORM", "new", {})
    assert err.value.allowed == ("triaged",)
    check_draft("SEC-PLATFORM", "triaged", {})
    check_issuable("SEC-PLATFORM", "new", {})  # may become one, once triaged


def test_the_regime_is_the_rules() -> None:
    # NORMAM-07 0401: Lei 9.966 governs pollution; a platform's zone (0212 f)) is a
    # traffic rule (0301), a ballast exchange (NORMAM-20 2.3.1) a pollution one
    for rule, wrong in (("SEC-PLATFORM", "pollution"), ("BW-EXCH-50", "lesta")):
        with pytest.raises(ProcedureDataError) as err:
            apply_move(rule, "new", {}, Move("triaged", data={"regime": wrong}))
        assert err.value.field == "regime"
    _, proc = apply_move("SEC-PLATFORM", "triaged", {"regime": "pollution"}, Move(None))
    assert proc["regime"] == "lesta"  # a stored regime the rule does not allow is replaced
