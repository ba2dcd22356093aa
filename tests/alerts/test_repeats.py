"""Repeat offences by infractor (NORMAM-20 1.5.3 b); RLESTA art. 10): who counts, which
penalties count. Dates and factors worked out by hand from the two texts."""

from __future__ import annotations

import datetime as dt
from typing import Any

from vigia.alerts.procedure.repeats import PriorCase, infractor_keys, repeat_offence

D = dt.date
REF = D(2026, 3, 10)
CPF = "123.456.789-09"
FIRST = D(2025, 1, 15)


def _case(
    lead_id: str,
    *,
    mmsi: int = 538000001,
    doc: str | None = CPF,
    status: str = "closed",
    outcome: str = "procedente",
    penalty: str = "multa",
    day: dt.date = FIRST,
    rule: str = "BW-EXCH-200",
) -> PriorCase:
    proc: dict[str, Any] = {
        "auto": {"date": day.isoformat()},
        "decisions": [{"outcome": outcome, "penalty": penalty}],
    }
    if doc is not None:
        proc["responsible"] = [{"role": "armador", "name": "X", "document": doc}]
    return PriorCase(lead_id, mmsi, rule, status, proc)


def _this(doc: str | None = "12345678909") -> dict[str, Any]:
    return {} if doc is None else {"responsible": [{"role": "armador", "document": doc}]}


def test_the_same_infractor_on_another_vessel_is_a_repeat() -> None:
    rep = repeat_offence(REF, "BW-EXCH-50", _this(), 710000001, [_case("A", mmsi=538000001)])
    assert rep["applies"] and rep["by"] == "infractor" and rep["fine_factor"] == 3
    assert rep["prior"] == [{"lead_id": "A", "auto_date": "2025-01-15"}]


def test_another_infractor_on_the_same_vessel_is_not() -> None:
    other = _case("A", mmsi=710000001, doc="98765432100")
    rep = repeat_offence(REF, "BW-EXCH-50", _this(), 710000001, [other])
    assert rep["applies"] is False


def test_without_a_party_the_vessel_stands_in_and_says_so() -> None:
    rep = repeat_offence(REF, "BW-EXCH-50", _this(None), 538000001, [_case("A")])
    assert rep["applies"] and rep["by"] == "vessel" and "MMSI" in rep["note"]
    assert (
        repeat_offence(REF, "BW-EXCH-50", _this(None), 538000002, [_case("A")])["applies"] is False
    )


def test_only_final_upheld_fines_count() -> None:
    for case in (
        _case("open", status="judged"),  # appeal may still come
        _case("unfounded", outcome="improcedente", penalty="nenhuma"),
        _case("no-fine", penalty="suspensao"),  # pollution: "infração punida com multa"
        _case("lesta", rule="BATH-MOTOR"),  # another regime's penalty
    ):
        rep = repeat_offence(REF, "BW-EXCH-50", _this(), 1, [case])
        assert rep["applies"] is False, case.lead_id


def test_documents_match_whatever_their_punctuation_or_digits() -> None:
    assert infractor_keys(_this("123.456.789-09")) == infractor_keys(_this("12345678909"))
    fullwidth = "１２３４５６７８９０９"
    assert infractor_keys(_this(fullwidth)) == {"12345678909"}
    assert infractor_keys({"responsible": [{"role": "armador", "name": "sem doc"}]}) == set()


def test_lesta_counts_the_same_infraction_and_multiplies() -> None:
    # RLESTA art. 10: the same infraction (same art. 23 inciso) twice in twelve months:
    # this one is the third, so the penalty is multiplied by three
    priors = [
        _case("B1", rule="BATH-SAIL", day=D(2025, 6, 1), penalty="suspensao"),
        _case("B2", rule="BATH-MOTOR", day=D(2025, 9, 1)),
        _case("C", rule="SEC-CHANNEL", day=D(2025, 9, 2)),  # art. 23, VIII: another one
    ]
    rep = repeat_offence(REF, "BATH-MOTOR", _this(), 1, priors)
    assert [p["lead_id"] for p in rep["prior"]] == ["B1", "B2"]
    assert rep["fine_factor"] == 3 and "art. 10" in rep["basis"]
