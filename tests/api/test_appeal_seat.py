"""Who decides a first LESTA appeal, and on whose calendar (issue 32): against a
Delegacia's or Agência's judgment, "os conseqüentes pedidos de recursos caberão ao
respectivo Capitão dos Portos" (NORMAM-07 0305 b) II), the Capitania above it, so the
decision's term rolls over on that Capitania's seat calendar (Lei 9.784/1999 art. 66
§1º), while the appeal itself is filed at the office that judged (0306 d) II).

Dates worked out by hand on a month calendar: the Delegacia em Ilhéus answers to the
Capitania dos Portos da Bahia in Salvador, whose 8 December (Nossa Senhora da Conceição
da Praia) Ilhéus does not keep."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.api.conftest import Api
from tests.api.test_procedure import make_lead, patch
from vigia.alerts.procedure.deadlines import compute_deadlines

ILHEUS = "Delegacia da Capitania dos Portos em Ilhéus"
BAHIA = "Capitania dos Portos da Bahia"


def _walk(api: Api, lead_id: str) -> dict[str, Any]:
    patch(api, lead_id, {"status": "triaged"})
    patch(api, lead_id, {"status": "notified",
                         "notice": {"date": "2027-09-01", "appear_by": "2027-09-03"}})  # fmt: skip
    auto = {"number": f"{lead_id}/2027", "date": "2027-09-06", "signature": "signed"}
    patch(api, lead_id, {"status": "infraction", "auto": auto})
    patch(api, lead_id, {"status": "defence", "defence_received": "2027-09-20"})
    decision = {"date": "2027-10-28", "known_date": "2027-11-03", "outcome": "procedente",
                "penalty": "multa", "fine_brl": 2000.0}  # fmt: skip
    patch(api, lead_id, {"status": "judged", "decision": decision})
    return patch(api, lead_id, {"status": "appeal", "appeal": {"filed": "2027-11-08"}})


def _terms(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["name"]: d for d in body["deadlines"]}


def test_a_delegacias_appeal_is_decided_on_its_capitanias_calendar(api: Api) -> None:
    api.repo.upsert_leads(
        [
            replace(make_lead("L-ILH"), authority=ILHEUS),
            replace(make_lead("L-SSA"), authority=BAHIA),
        ]
    )
    b = _walk(api, "L-ILH")
    proc = b["procedure"]
    assert (proc["seat_state"], proc["seat_municipality"]) == ("BA", "Ilhéus")
    assert (proc["appeal_authority"], proc["appeal_seat_municipality"]) == (BAHIA, "Salvador")
    t = _terms(b)
    # decision known Wed 3 Nov 2027: 5 working days at Ilhéus (Thu 4, Fri 5, Mon 8, Tue
    # 9, Wed 10) -> Wed 10 Nov; filed Mon 8 Nov
    assert (t["recurso"]["due"], t["recurso"]["met_on"]) == ("2027-11-10", "2027-11-08")
    assert BAHIA in t["recurso"]["actor"]
    # 30 days from Mon 8 Nov reach Wed 8 Dec, a holiday in Salvador -> Thu 9 Dec
    d = t["decisao_recurso"]
    assert (d["counted_to"], d["due"]) == ("2027-12-08", "2027-12-09")
    assert d["actor"] == f"Capitão dos Portos ({BAHIA}; 0305 b) II)"

    # the Capitania's own judgment: its Capitão dos Portos decides at home, same day
    b = _walk(api, "L-SSA")
    assert b["procedure"]["appeal_authority"] == BAHIA
    assert _terms(b)["decisao_recurso"]["due"] == "2027-12-09"


def test_without_the_superior_the_judging_seat_decides() -> None:
    # the same case with no appeal seat (an authority the register does not hold):
    # Ilhéus keeps no 8 December, so the term ends on it
    proc = {
        "seat_state": "BA",
        "seat_municipality": "Ilhéus",
        "auto": {"number": "A", "date": "2027-09-06", "known_date": "2027-09-06"},
        "defence_received": "2027-09-20",
        "decisions": [{"date": "2027-10-28", "known_date": "2027-11-03",
                       "outcome": "procedente", "penalty": "multa"}],
        "appeals": [{"filed": "2027-11-08"}],
    }  # fmt: skip
    got = {d.name: d for d in compute_deadlines("SEC-PLATFORM", "appeal", proc)}
    assert got["decisao_recurso"].due.isoformat() == "2027-12-08"
    with_seat = {**proc, "appeal_seat_state": "BA", "appeal_seat_municipality": "Salvador"}
    got = {d.name: d for d in compute_deadlines("SEC-PLATFORM", "appeal", with_seat)}
    assert got["decisao_recurso"].due.isoformat() == "2027-12-09"
