"""Terms after an appeal, and terms at a seat whose municipal calendar Vigia lacks, against
dates worked out by hand on a printed month calendar (issue 32; the same cases are rows
17-21 of docs/procedure-terms.md).

An appeal's decision term runs from the appeal's filing (the law counts it from the
file's receipt by the deciding authority, Lei 9.784/1999 art. 59 §1º, which is never
before the filing), never from the decision appealed. The DPC and the DGN sit in Rio de
Janeiro, so the terms they decide by roll over on Rio's calendar (art. 66 §1º): São
Sebastião (20 January) and São Jorge (23 April, a state holiday of RJ).
"""

from __future__ import annotations

from typing import Any

from vigia.alerts.procedure.deadlines import compute_deadlines


def _terms(rule: str, status: str, proc: dict[str, Any]) -> dict[str, dict[str, object]]:
    return {d.name: d.to_json() for d in compute_deadlines(rule, status, proc)}


def _upheld(date: str, known: str) -> dict[str, Any]:
    return {"date": date, "known_date": known, "outcome": "procedente", "penalty": "multa"}


def _not_granted(date: str, known: str) -> dict[str, Any]:
    return {**_upheld(date, known), "appeal_outcome": "nao_provido"}


def _case(
    regime: str,
    seat: str,
    auto_day: str,
    decisions: list[dict[str, Any]],
    filed: list[str],
    **more: Any,
) -> dict[str, Any]:
    """A procedure at ``seat`` ("state/municipality") with an Auto known the day it was
    made, its decisions, and appeals filed on the ``filed`` days."""
    state, town = seat.split("/")
    return {
        "regime": regime,
        "seat_state": state,
        "seat_municipality": town,
        "auto": {"number": "A", "date": auto_day, "known_date": auto_day},
        "decisions": decisions,
        "appeals": [{"filed": day} for day in filed],
        **more,
    }


def _span(term: dict[str, object]) -> tuple[object, object, object]:
    return term["counted_from"], term["counted_to"], term["due"]


def test_lesta_first_appeal_decided_from_the_filing() -> None:
    # seat Rio de Janeiro; decision known Mon 14 Dec 2026, appeal filed on the last of
    # its 5 working days (15, 16, 17, 18, 21 Dec), Mon 21 Dec. The Capitão dos Portos
    # has 30 days (0306 c)): from 21 Dec they reach Wed 20 Jan 2027, São Sebastião in
    # Rio -> Thu 21 Jan. From the decision they would reach Wed 13 Jan.
    proc = _case(
        "lesta",
        "RJ/Rio de Janeiro",
        "2026-10-01",
        [_upheld("2026-12-10", "2026-12-14")],
        ["2026-12-21"],
        defence_received="2026-10-15",
    )
    t = _terms("SEC-PLATFORM", "appeal", proc)
    assert t["recurso"]["due"] == "2026-12-21" and t["recurso"]["met_on"] == "2026-12-21"
    d = t["decisao_recurso"]
    assert _span(d) == ("2026-12-21", "2027-01-20", "2027-01-21")
    assert d["counting"] == "calendar_days" and d["pending"] is True
    assert d["basis"] == "NORMAM-07/DPC 0306 c); Lei 9.784/1999 art. 66 §1º"
    assert d["certain"] is True and d["note"] is None


def test_lesta_last_instance_decided_by_the_dgn_on_rios_calendar() -> None:
    # seat Santos. First appeal filed Fri 4 Sep 2026: the Capitão dos Portos's 30 days
    # reach Sun 4 Oct -> Mon 5 Oct (Santos); decided 10 Dec, late. That decision known
    # Mon 14 Dec; the appeal to the DGN filed Mon 21 Dec (the 5th working day). The DGN
    # (Rio de Janeiro) has 30 days (0306 d) I): Wed 20 Jan 2027 is São Sebastião in Rio
    # -> Thu 21 Jan. On Santos's calendar 20 Jan is a working day.
    decisions = [_upheld("2026-09-01", "2026-09-01"), _not_granted("2026-12-10", "2026-12-14")]
    filed = ["2026-09-04", "2026-12-21"]
    proc = _case(
        "lesta", "SP/Santos", "2026-07-01", decisions, filed, defence_received="2026-07-10"
    )
    t = _terms("SEC-PLATFORM", "appeal", proc)
    first = t["decisao_recurso"]
    assert (first["counted_to"], first["due"], first["late"]) == ("2026-10-04", "2026-10-05", True)
    assert t["recurso_ultima_instancia"]["due"] == "2026-12-21"
    last = t["decisao_recurso_ultima_instancia"]
    assert _span(last) == ("2026-12-21", "2027-01-20", "2027-01-21")
    assert last["actor"].startswith("DGN") and last["pending"] is True


def test_pollution_first_appeal_decided_by_the_dpc_under_lei_9784() -> None:
    # seat Belém. 0404 c) gives the DPC no term: Lei 9.784/1999 art. 59 §1º gives 30
    # days. Judgment known Mon 8 Mar 2027; appeal filed Wed 24 Mar. 30 consecutive
    # days reach Fri 23 Apr, São Jorge (an RJ state holiday; the DPC is in Rio) -> Sat,
    # Sun -> Mon 26 Apr. (From the judgment they would reach Wed 7 Apr.)
    proc = _case(
        "pollution",
        "PA/Belém",
        "2027-01-04",
        [_upheld("2027-02-19", "2027-03-08")],
        ["2027-03-24"],
        report_known_date="2027-01-05",
        defence_received="2027-01-20",
    )
    t = _terms("BW-EXCH-200", "appeal", proc)
    d = t["decisao_recurso"]
    assert _span(d) == ("2027-03-24", "2027-04-23", "2027-04-26")
    assert d["counting"] == "consecutive_days" and d["pending"] is True
    assert d["basis"].startswith("Lei 9.784/1999 art. 59 §1º")
    assert d["actor"].startswith("Diretor de Portos e Costas")


def test_pollution_last_instance_decided_by_the_dgn() -> None:
    # seat Manaus. First appeal filed Thu 15 Oct 2026: the DPC's 30 days reach Sat 14
    # Nov -> Mon 16 Nov; decided Fri 13 Nov, in time. That decision known Mon 28 Dec;
    # the appeal to the DGN (20 days: Sun 17 Jan 2027 -> Mon 18 Jan) filed Thu 7 Jan.
    # The DGN's 30 days (0404 d)) reach Sat 6 Feb; Sun 7, Carnival Mon 8 and Tue 9 ->
    # Wed 10 Feb (Ash Wednesday opens at 14h: a working day).
    decisions = [_upheld("2026-10-01", "2026-10-01"), _not_granted("2026-11-13", "2026-12-28")]
    proc = _case(
        "pollution",
        "AM/Manaus",
        "2026-08-03",
        decisions,
        ["2026-10-15", "2027-01-07"],
        report_known_date="2026-08-04",
        defence_received="2026-08-20",
    )
    t = _terms("BW-EXCH-200", "appeal", proc)
    first = t["decisao_recurso"]
    assert (first["counted_to"], first["due"], first["late"]) == ("2026-11-14", "2026-11-16", False)
    assert t["recurso_ultima_instancia"]["due"] == "2027-01-18"
    last = t["decisao_recurso_ultima_instancia"]
    assert _span(last) == ("2027-01-07", "2027-02-06", "2027-02-10")


def test_a_seat_without_municipal_holidays_is_not_certain() -> None:
    # Tabatinga (AM): no municipal holiday of it is listed. Auto known Mon 5 Oct 2026:
    # 15 working days skip the weekends and Mon 12 Oct (national; AM's own 5 Sep is
    # before) -> Tue 27 Oct, as far as the state and national calendars go; a municipal
    # holiday Vigia lacks could move it
    proc = _case("lesta", "AM/Tabatinga", "2026-10-05", [], [])
    d = _terms("SEC-PLATFORM", "infraction", proc)["defesa"]
    assert d["due"] == "2026-10-27" and d["certain"] is False
    assert isinstance(d["note"], str) and "Tabatinga (AM)" in d["note"]
    assert "may end later" in d["note"]
    # the same Auto at Rio de Janeiro, whose municipal holidays are listed: certain
    rio = {**proc, "seat_state": "RJ", "seat_municipality": "Rio de Janeiro"}
    d = _terms("SEC-PLATFORM", "infraction", rio)["defesa"]
    assert d["certain"] is True and d["note"] is None
    # a seat with no municipality, or none at all, is not certain either
    for seat in ({"seat_state": "RJ", "seat_municipality": None}, {"seat_state": None}):
        d = _terms("SEC-PLATFORM", "infraction", {**proc, **seat})["defesa"]
        assert d["certain"] is False and d["note"]


def test_the_headquarters_term_of_an_uncertain_seat_is_certain() -> None:
    # a Tabatinga lead's last appeal is decided in Rio, whose calendar is known
    decisions = [_upheld("2026-10-01", "2026-10-01")]
    proc = _case(
        "pollution",
        "AM/Tabatinga",
        "2026-08-03",
        decisions,
        ["2026-10-15"],
        report_known_date="2026-08-04",
    )
    t = _terms("BW-EXCH-200", "appeal", proc)
    assert t["recurso"]["certain"] is False  # filed at the judging office, in Tabatinga
    assert t["decisao_recurso"]["certain"] is True
