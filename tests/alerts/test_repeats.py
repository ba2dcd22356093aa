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


def _decided(day: dt.date) -> dict[str, str]:
    return {"date": day.isoformat(), "known_date": day.isoformat()}


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
        # decided and known two months after the Auto: final long before REF
        "decisions": [
            {**_decided(day + dt.timedelta(days=60)), "outcome": outcome, "penalty": penalty}
        ],
    }
    if doc is not None:
        proc["responsible"] = [{"role": "armador", "name": "X", "document": doc}]
    return PriorCase(lead_id, mmsi, rule, status, proc)


def _this(doc: str | None = "12345678909") -> dict[str, Any]:
    return {} if doc is None else {"responsible": [{"role": "armador", "document": doc}]}


def test_the_same_infractor_on_another_vessel_is_a_repeat() -> None:
    rep = repeat_offence(REF, "BW-EXCH-50", _this(), 710000001, [_case("A", mmsi=538000001)])
    assert rep["applies"] and rep["by"] == "infractor" and rep["fine_factor"] == 3
    # decided Sun 16 Mar 2025 (FIRST + 60 days); 20 days (0404 c)) end Sat 5 Apr, rolled
    # to Mon 7 Apr (art. 66 §1º): irrecorrível from 8 Apr
    assert rep["prior"] == [{"lead_id": "A", "auto_date": "2025-01-15", "final_on": "2025-04-08"}]


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


# -- final before the new infraction (Penal Code art. 63; Decreto 99.066/1990 art. 185) --


def _lesta_prior(decisions: int, known: dt.date, appeals: int | None = None) -> PriorCase:
    """A closed LESTA case of the same vessel whose last (``decisions``-th) decision,
    upholding a fine, was known on ``known``."""
    proc: dict[str, Any] = {
        "auto": {"date": "2026-01-05"},
        "decisions": [
            {**_decided(known), "outcome": "procedente", "penalty": "multa"}
            for _ in range(decisions)
        ],
        "appeals": [{"filed": known.isoformat()}] * (decisions - 1 if appeals is None else appeals),
    }
    return PriorCase("P", 538000001, "BATH-SAIL", "closed", proc)


def _counts(prior: PriorCase, committed: dt.date, rule: str = "BATH-MOTOR") -> bool:
    rep = repeat_offence(D(2026, 3, 20), rule, {}, 538000001, [prior], committed=committed)
    return bool(rep["applies"])


def test_a_penalty_counts_only_once_no_appeal_remained_when_the_new_one_was_committed() -> None:
    # decision known Mon 2 Mar 2026; appeal 5 working days (0306 c), counted from the day
    # after, Lei 9.784 art. 66): Tue 3, Wed 4, Thu 5, Fri 6, Mon 9 Mar. Irrecorrível on 10 Mar.
    prior = _lesta_prior(1, D(2026, 3, 2))
    assert not _counts(prior, D(2026, 3, 9))  # the last day to appeal: not yet final
    assert _counts(prior, D(2026, 3, 10))
    rep = repeat_offence(
        D(2026, 3, 20), "BATH-MOTOR", {}, 538000001, [prior], committed=D(2026, 3, 10)
    )
    assert rep["prior"] == [{"lead_id": "P", "auto_date": "2026-01-05", "final_on": "2026-03-10"}]


def test_the_last_instance_is_final_the_day_it_is_known() -> None:
    prior = _lesta_prior(3, D(2026, 3, 5))  # judged, appealed twice, DGN's decision known 5 Mar
    assert not _counts(prior, D(2026, 3, 4))
    assert _counts(prior, D(2026, 3, 5))


def test_a_penalty_under_appeal_never_counts() -> None:
    # appealed, and the appeal's decision is not on record: not final whatever the date
    prior = _lesta_prior(1, D(2026, 3, 2), appeals=1)
    assert not _counts(prior, D(2027, 1, 1))


def test_pollution_appeal_term_rolls_over_carnival_before_the_penalty_is_final() -> None:
    # known Tue 27 Jan 2026; 20 days (0404 c)) end Mon 16 Feb, Carnival (offices closed),
    # so the term ends Wed 18 Feb (art. 66 §1º, the issue's own case): final on 19 Feb
    proc: dict[str, Any] = {
        "auto": {"date": "2026-01-05"},
        "decisions": [{**_decided(D(2026, 1, 27)), "outcome": "procedente", "penalty": "multa"}],
    }
    prior = PriorCase("P", 538000001, "BW-EXCH-200", "closed", proc)
    assert not _counts(prior, D(2026, 2, 18), "BW-EXCH-50")
    assert _counts(prior, D(2026, 2, 19), "BW-EXCH-50")
