"""A lead through the whole procedure over HTTP, with every deadline checked against
dates worked out by hand on a paper calendar (NORMAM-07 0306, 0404-0405).

Seat in Rio de Janeiro (RJ) for the LESTA case: 2026 Carnival is Mon 16 / Tue 17 Feb
(Tuesday is an RJ state holiday, both days are closed federal offices), Tiradentes is
Tue 21 Apr (national), Saint George is Thu 23 Apr (RJ only), Christmas Fri 25 Dec and
New Year Fri 1 Jan 2027.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import text

from tests.api.conftest import Api
from vigia.alerts.lead import EvidencePoint, Lead
from vigia.service.db.repository import SqlRepository

T0 = 1_767_000_000.0  # 2025-12-29


def make_lead(lead_id: str, rule: str = "SEC-PLATFORM", mmsi: int = 710000001) -> Lead:
    ev = [
        EvidencePoint(T0, -40.051, -22.37, 6.0, 90.0, 0, 300.0),
        EvidencePoint(T0 + 60, -40.05, -22.37, 7.5, 90.0, 0, 150.0),
    ]
    return Lead(
        id=lead_id,
        mmsi=mmsi,
        rule=rule,
        citation="NORMAM-07/DPC 0212 f)",
        zone_id=None if rule.startswith("BW-") else "plat-p66",
        zone_kind=None if rule.startswith("BW-") else "platform",
        started_at=T0,
        ended_at=T0 + 60,
        min_distance_m=150.0,
        max_sog_kn=7.5,
        closest_lon=-40.05,
        closest_lat=-22.37,
        closest_t=T0 + 60,
        evidence=ev,
        vessel={"name": "MARIA DO MAR", "ship_type": 30, "length_m": 18.0, "flag_mid": 710},
        authority="Capitania dos Portos do Rio de Janeiro",
    )


def patch(api: Api, lead_id: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    r = api.client.patch(f"/leads/{lead_id}", json=body, headers=api.h("inspector"))
    assert r.status_code == status, r.text
    out: dict[str, Any] = r.json()
    return out


def due(body: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    return {d["name"]: (d["due"], d["pending"]) for d in body["deadlines"]}


def test_lesta_lead_from_new_to_closed(api: Api) -> None:
    api.repo.upsert_leads([make_lead("L-LESTA")])
    before = api.client.get("/leads/L-LESTA", headers=api.h("viewer")).json()
    assert before["regime"] == "lesta" and before["deadlines"] == [] and before["history"] == []

    r = patch(api, "L-LESTA", {"status": "closed"}, 409)
    assert r["allowed"] == ["triaged", "dismissed"] and "triaged, dismissed" in r["detail"]
    patch(api, "L-LESTA", {"status": "dismissed"}, 422)  # a dismissal needs a reason

    party = {"role": "comandante", "name": "João da Silva", "document": "123.456.789-09"}
    b = patch(api, "L-LESTA", {"status": "triaged", "seat_state": "RJ", "responsible": [party]})
    assert b["procedure"]["responsible"][0]["basis"] == "NORMAM-07 0304 a)"
    # LESTA: the Notice to Appear precedes the Auto (0306 a) I)
    auto = {"number": "CPRJ-001/2026", "date": "2026-02-06", "signature": "signed"}
    r = patch(api, "L-LESTA", {"status": "infraction", "auto": auto}, 409)
    assert r["allowed"] == ["notified", "dismissed"]
    patch(api, "L-LESTA", {"status": "notified"}, 422)  # no notice data
    notice = {"date": "2026-02-02", "appear_by": "2026-02-05"}
    b = patch(api, "L-LESTA", {"status": "notified", "notice": notice})
    assert due(b) == {"comparecimento": ("2026-02-05", True)} and b["due"] == "2026-02-05"

    # Auto known Fri 6 Feb: 15 working days skip Carnival Mon 16 and Tue 17 -> Tue 3 Mar;
    # no defence yet, so judgment 30 calendar days after that -> Thu 2 Apr
    b = patch(api, "L-LESTA", {"status": "infraction", "auto": auto})
    assert due(b)["defesa"] == ("2026-03-03", True)
    assert due(b)["julgamento"] == ("2026-04-02", True)
    assert b["due"] == "2026-03-03"
    defesa = next(d for d in b["deadlines"] if d["name"] == "defesa")
    assert defesa["counting"] == "working_days" and defesa["basis"] == "NORMAM-07/DPC 0306 b) I"

    # defence received Mon 2 Mar: judgment 30 calendar days -> Wed 1 Apr
    b = patch(api, "L-LESTA", {"status": "defence", "defence_received": "2026-03-02"})
    assert due(b)["defesa"] == ("2026-03-03", False)
    assert due(b)["julgamento"] == ("2026-04-01", True)

    # decision known Mon 20 Apr: appeal 5 working days skip Tiradentes (Tue 21) and Saint
    # George (Thu 23, RJ) -> Wed 29 Apr; payment 15 calendar days -> Tue 5 May
    decision = {
        "date": "2026-04-15",
        "known_date": "2026-04-20",
        "outcome": "procedente",
        "penalty": "multa",
        "fine_brl": 2000.0,
    }
    b = patch(api, "L-LESTA", {"status": "judged", "decision": decision})
    assert due(b)["recurso"] == ("2026-04-29", True)
    assert due(b)["pagamento"] == ("2026-05-05", True)
    assert due(b)["julgamento"] == ("2026-04-01", False)

    # a deposit receipt may be recorded (never required: see test_seven_cases)
    appeal = {"filed": "2026-04-28", "deposit_receipt": "GRU 0001234"}
    b = patch(api, "L-LESTA", {"status": "appeal", "appeal": appeal})
    assert b["procedure"]["appeals"][0]["deposit_receipt"] == "GRU 0001234"
    assert due(b)["decisao_recurso"] == ("2026-05-28", True)  # 30 days from Tue 28 Apr
    who = {d["name"]: d["actor"] for d in b["deadlines"]}
    assert who["decisao_recurso"].startswith("Capitão dos Portos") and who["defesa"] == "autuado"

    # appeal decided, known Mon 28 Dec: 5 working days to the DGN skip Fri 1 Jan and the
    # weekends -> Tue 5 Jan 2027; payment 15 calendar days -> Tue 12 Jan 2027
    second = {
        "date": "2026-12-18",
        "known_date": "2026-12-28",
        "appeal_outcome": "nao_provido",
    }
    b = patch(api, "L-LESTA", {"status": "judged", "decision": second})
    assert due(b)["decisao_recurso"] == ("2026-05-28", False)
    assert due(b)["recurso_ultima_instancia"] == ("2027-01-05", True)
    assert due(b)["pagamento"] == ("2027-01-12", True)
    assert b["due"] == "2027-01-05"

    b = patch(api, "L-LESTA", {"status": "closed", "reason": "multa paga"})
    assert b["due"] is None and not any(p for _, p in due(b).values())
    r = patch(api, "L-LESTA", {"status": "triaged"}, 409)
    assert r["allowed"] == []

    steps = [(h["from"], h["to"]) for h in b["history"]]
    assert steps == [
        ("new", "triaged"),
        ("triaged", "notified"),
        ("notified", "infraction"),
        ("infraction", "defence"),
        ("defence", "judged"),
        ("judged", "appeal"),
        ("appeal", "judged"),
        ("judged", "closed"),
    ]
    assert {h["by"] for h in b["history"]} == {"test-inspector"}
    assert {h["by_role"] for h in b["history"]} == {"inspector"}
    assert b["history"][2]["after"]["auto"]["number"] == "CPRJ-001/2026"
    assert b["history"][-1]["reason"] == "multa paga"
    assert b["evidence"] == before["evidence"]


def test_history_and_closed_evidence_refuse_sql_edits(api: Api) -> None:
    """Not even a hand-typed UPDATE can rewrite the history or a closed lead's evidence."""
    api.repo.upsert_leads([make_lead("L-SQL")])
    patch(api, "L-SQL", {"status": "dismissed", "reason": "a buoy tender on duty"})
    assert isinstance(api.repo, SqlRepository)
    for sql in (
        "UPDATE lead_history SET reason = 'nothing' WHERE lead_id = 'L-SQL'",
        "DELETE FROM lead_history WHERE lead_id = 'L-SQL'",
        "UPDATE leads SET min_distance_m = 9999 WHERE id = 'L-SQL'",
        "UPDATE leads SET evidence = '[]' WHERE id = 'L-SQL'",
    ):
        with (
            pytest.raises(Exception, match=r"append-only|cannot change"),
            api.repo.engine.begin() as c,
        ):
            c.execute(text(sql))
    body = api.client.get("/leads/L-SQL", headers=api.h("viewer")).json()
    assert body["history"][0]["reason"] == "a buoy tender on duty"
    assert body["min_distance_m"] == 150.0 and len(body["evidence"]) == 2


def test_pollution_ballast_lead(api: Api) -> None:
    """Ballast leads are pollution cases: the Auto may come first, no deposit to appeal,
    every term in consecutive days (excluding the first, including the last)."""
    api.repo.upsert_leads([make_lead("L-BW", rule="BW-EXCH-200", mmsi=636000001)])
    b = patch(api, "L-BW", {"status": "triaged", "seat_state": "SP"})
    assert b["regime"] == "pollution"
    auto = {
        "number": "CPSP-007/2026",
        "date": "2026-02-10",
        "signature": "refused",
        "witnesses": ["Sgt. A", "Cb. B"],
    }
    b = patch(api, "L-BW", {"status": "infraction", "auto": auto})
    assert b["deadlines"] == []  # no summons and no report yet: no term runs
    # the summons (after the Auto, 0404 b)), ignored: defence counts from its end,
    # Fri 20 Feb + 20 days -> Thu 12 Mar
    summons = {"date": "2026-02-11", "appear_by": "2026-02-20"}
    b = patch(api, "L-BW", {"notice": summons})
    assert b["status"] == "infraction" and due(b)["defesa"] == ("2026-03-12", True)
    # the report known on Thu 19 Feb instead: + 20 days -> Wed 11 Mar; judgment + 30 ->
    # Fri 10 Apr
    b = patch(api, "L-BW", {"report_known_date": "2026-02-19"})
    assert due(b)["defesa"] == ("2026-03-11", True)
    assert due(b)["julgamento"] == ("2026-04-10", True)
    # no defence: the judgment may not come before the term ran out
    early = {"date": "2026-03-05", "outcome": "procedente", "penalty": "multa"}
    r = patch(api, "L-BW", {"status": "judged", "decision": early}, 422)
    assert "2026-03-11" in r["detail"]
    decision = {"date": "2026-12-20", "outcome": "procedente", "penalty": "multa"}
    b = patch(api, "L-BW", {"status": "judged", "decision": decision})
    # appeal 20 days from Sun 20 Dec reaches Sat 9 Jan 2027: Lei 9.784 art. 66 §1º moves
    # it to Mon 11 Jan
    assert due(b)["recurso"] == ("2027-01-11", True)
    b = patch(api, "L-BW", {"status": "appeal", "appeal": {"filed": "2026-12-30"}})
    # 0404 c) sets the DPC no term: Lei 9.784 art. 59 §1º's 30 days from the filing, Wed
    # 30 Dec -> Fri 29 Jan 2027, a working day in Rio de Janeiro, where the DPC sits
    assert due(b)["decisao_recurso"] == ("2027-01-29", True)
    second = {"date": "2027-01-25", "known_date": "2027-01-26", "appeal_outcome": "nao_provido"}
    b = patch(api, "L-BW", {"status": "judged", "decision": second})
    assert due(b)["recurso_ultima_instancia"] == ("2027-02-15", True)  # Tue 26 Jan + 20
    # notice to pay received Fri 5 Feb 2027: 5 consecutive days run through Carnival
    # (Mon 8 / Tue 9 Feb 2027) -> Wed 10 Feb
    b = patch(api, "L-BW", {"payment_notice_date": "2027-02-05"})
    assert due(b)["pagamento"] == ("2027-02-10", True)
    pay = next(d for d in b["deadlines"] if d["name"] == "pagamento")
    assert pay["counting"] == "consecutive_days" and "0405" in pay["basis"]
    b = patch(api, "L-BW", {"status": "closed", "reason": "paga"})
    assert [h["to"] for h in b["history"]] == [
        "triaged",
        "infraction",
        "infraction",
        "infraction",
        "judged",
        "appeal",
        "judged",
        "judged",
        "closed",
    ]


def test_due_soonest_sort_and_repeat_offence(api: Api) -> None:
    leads = [make_lead(f"L-R{i}") for i in range(3)]
    leads.append(make_lead("L-OTHER", mmsi=538000009))
    api.repo.upsert_leads(leads)
    notice = {"date": "2026-02-02", "appear_by": "2026-02-05"}
    for lead_id, auto_date in (("L-R0", "2023-03-01"), ("L-R1", "2026-02-06")):
        patch(api, lead_id, {"status": "triaged", "seat_state": "RJ"})
        patch(api, lead_id, {"status": "notified", "notice": {**notice, "date": "2023-02-01"}})
        auto = {"number": lead_id, "date": auto_date, "signature": "signed"}
        patch(api, lead_id, {"status": "infraction", "auto": auto})
    patch(api, "L-R2", {"status": "triaged"})
    patch(api, "L-R2", {"status": "notified", "notice": notice})
    page = api.client.get("/leads?sort=due", headers=api.h("viewer")).json()["leads"]
    # L-R0's defence ran out in 2023, L-R2 must appear by 5 Feb 2026, L-R1's defence
    # runs to 3 Mar 2026; leads with no deadline come after
    assert [x["id"] for x in page][:3] == ["L-R0", "L-R2", "L-R1"]
    assert [x["due"] for x in page][:3] == ["2023-03-22", "2026-02-05", "2026-03-03"]

    # L-R0 (Auto 1 Mar 2023) is no repeat offence yet: its penalty is not final
    body = api.client.get("/leads/L-R1", headers=api.h("viewer")).json()
    assert body["repeat_offence"]["applies"] is False
    assert body["repeat_offence"]["by"] == "vessel"  # no party entered: the MMSI stands in
    # judged (a fine upheld) and closed: now final; but RLESTA art. 10 counts only twelve
    # months, and 1 Mar 2023 is three years before 6 Feb 2026
    decision = {"date": "2023-04-10", "outcome": "procedente", "penalty": "multa"}
    patch(api, "L-R0", {"status": "judged", "decision": decision})
    patch(api, "L-R0", {"status": "closed", "reason": "multa paga"})
    body = api.client.get("/leads/L-R1", headers=api.h("viewer")).json()
    rep = body["repeat_offence"]
    assert rep["window"] == {"from": "2025-02-06", "to": "2026-02-06"}
    assert rep["applies"] is False
    # the same infraction by the same vessel with an Auto of 1 Jun 2023: within twelve
    # months of L-R0's final penalty, so the penalty is multiplied by two
    api.repo.upsert_leads([make_lead("L-R3")])
    patch(api, "L-R3", {"status": "triaged", "seat_state": "RJ"})
    patch(api, "L-R3", {"status": "notified", "notice": {**notice, "date": "2023-05-02"}})
    auto = {"number": "L-R3", "date": "2023-06-01", "signature": "signed"}
    patch(api, "L-R3", {"status": "infraction", "auto": auto})
    rep = api.client.get("/leads/L-R3", headers=api.h("viewer")).json()["repeat_offence"]
    assert rep["applies"] and rep["fine_factor"] == 2
    # L-R0's fine was known Mon 10 Apr 2023; its appeal term (5 working days, RJ) ran to
    # Mon 17 Apr: irrecorrível from 18 Apr
    assert rep["prior"] == [
        {"lead_id": "L-R0", "auto_date": "2023-03-01", "final_on": "2023-04-18"}
    ]
    other = api.client.get("/leads/L-OTHER", headers=api.h("viewer")).json()
    assert other["repeat_offence"]["applies"] is False
    # and L-R0 has no earlier infraction: L-R1 came later
    first = api.client.get("/leads/L-R0", headers=api.h("viewer")).json()
    assert first["repeat_offence"]["prior"] == []


def test_seven_cases_of_the_law(api: Api) -> None:
    """Issue 20's table, through the API; every expected date worked out by hand (see
    docs/procedure-terms.md for the calendars)."""
    cprj, cpsp = "Capitania dos Portos do Rio de Janeiro", "Capitania dos Portos de São Paulo"
    api.repo.upsert_leads(
        [
            make_lead("L-RIO"),
            make_lead("L-PAY"),
            replace(make_lead("L-OIL", rule="BW-EXCH-200"), authority=cpsp),
            replace(make_lead("L-OIL2", rule="BW-EXCH-200"), authority=cpsp),
            make_lead("L-SAR", rule="SAR-DISTRESS"),
            replace(make_lead("L-COPA"), authority=None, closest_lon=-43.18, closest_lat=-22.97),
        ]
    )
    # 1. LESTA defence, Auto known Wed 13 Jan 2027, seat Rio de Janeiro (from the bundled
    # register): 15 working days skip Wed 20 Jan (São Sebastião) -> Thu 4 Feb
    b = patch(api, "L-RIO", {"status": "triaged"})
    assert b["calendar"]["state"] == "RJ" and b["calendar"]["municipality"] == "Rio de Janeiro"
    patch(
        api,
        "L-RIO",
        {"status": "notified", "notice": {"date": "2027-01-11", "appear_by": "2027-01-12"}},
    )
    auto = {"number": "CPRJ-9/2027", "date": "2027-01-13", "signature": "signed"}
    b = patch(api, "L-RIO", {"status": "infraction", "auto": auto})
    assert due(b)["defesa"] == ("2027-02-04", True)

    # 2. LESTA payment, decision known Fri 20 Mar 2026: 15 calendar days reach Sat 4 Apr;
    # Lei 9.784 art. 66 §1º moves it past Sun 5 Apr -> Mon 6 Apr
    patch(api, "L-PAY", {"status": "triaged", "seat_state": "RJ"})
    patch(
        api,
        "L-PAY",
        {"status": "notified", "notice": {"date": "2026-02-02", "appear_by": "2026-02-05"}},
    )
    auto = {"number": "CPRJ-2/2026", "date": "2026-02-06", "signature": "signed"}
    patch(api, "L-PAY", {"status": "infraction", "auto": auto})
    patch(api, "L-PAY", {"status": "defence", "defence_received": "2026-03-02"})
    decision = {"date": "2026-03-20", "outcome": "procedente", "penalty": "multa"}
    b = patch(api, "L-PAY", {"status": "judged", "decision": decision})
    pay = next(d for d in b["deadlines"] if d["name"] == "pagamento")
    assert (pay["due"], pay["counted_to"]) == ("2026-04-06", "2026-04-04")
    assert "Lei 9.784/1999 art. 66 §1º" in pay["basis"]
    # 5. a LESTA appeal against a fine without any deposit receipt is accepted (STF
    # Súmula Vinculante 21; Lei 9.784 art. 56 §2º)
    b = patch(api, "L-PAY", {"status": "appeal", "appeal": {"filed": "2026-03-25"}})
    assert b["status"] == "appeal"

    # 3. pollution defence, Auto and Laudo known Tue 27 Jan 2026, seat Santos: 20 days
    # reach Carnival Mon 16 Feb, Tue 17 is closed too -> Wed 18 Feb (Ash Wednesday opens)
    b = patch(api, "L-OIL", {"status": "triaged"})
    assert b["calendar"]["municipality"] == "Santos"
    auto = {"number": "CPSP-1/2026", "date": "2026-01-26", "signature": "signed"}
    patch(api, "L-OIL", {"status": "infraction", "auto": auto})
    b = patch(api, "L-OIL", {"report_known_date": "2026-01-27"})
    assert due(b)["defesa"] == ("2026-02-18", True)
    # a Laudo known before the Auto cannot start the term before the Auto is known
    b = patch(api, "L-OIL", {"report_known_date": "2026-01-20"})
    assert due(b)["defesa"][0] == "2026-02-18"  # from Mon 26 Jan: Sun 15 Feb -> Wed 18

    # 4. pollution lead, no report date: a same-day judgment is refused and changes nothing
    patch(api, "L-OIL2", {"status": "triaged"})
    auto = {"number": "CPSP-2/2026", "date": "2026-03-02", "signature": "signed"}
    patch(api, "L-OIL2", {"status": "infraction", "auto": auto})
    decision = {"date": "2026-03-02", "outcome": "procedente", "penalty": "multa"}
    r = patch(api, "L-OIL2", {"status": "judged", "decision": decision}, 422)
    assert "not started" in r["detail"]
    body = api.client.get("/leads/L-OIL2", headers=api.h("viewer")).json()
    assert body["status"] == "infraction" and "decisions" not in body["procedure"]
    # the other side: once a defence was received the judgment may come
    patch(api, "L-OIL2", {"status": "defence", "defence_received": "2026-03-02"})
    b = patch(api, "L-OIL2", {"status": "judged", "decision": decision})
    assert b["status"] == "judged"

    # 6. a distress beacon is no infraction: no Notice, no Auto, and no pollution regime
    r = patch(api, "L-SAR", {"status": "triaged", "regime": "pollution"}, 422)
    assert r["field"] == "regime"
    r = patch(api, "L-SAR", {"status": "triaged"})
    notice = {"date": "2026-02-02", "appear_by": "2026-02-05"}
    r = patch(api, "L-SAR", {"status": "notified", "notice": notice}, 409)
    assert r["allowed"] == ["dismissed"]
    auto = {"number": "X", "date": "2026-02-06", "signature": "signed"}
    patch(api, "L-SAR", {"status": "infraction", "auto": auto}, 409)

    # 7. a lead off Copacabana with no jurisdiction zone loaded: the nearest seat of the
    # bundled register, labelled approximate
    body = api.client.get("/leads/L-COPA", headers=api.h("viewer")).json()
    assert body["authority"] == cprj
    assert body["details"]["routing"]["approximate"] is True
