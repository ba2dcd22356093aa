"""Assigning a lead to an officer (issue 35): who, by whom and since when on the lead, a
row in its history, only officers of the caller's authority, viewers refused; and a
refused judgment says why as a code with its figures (``reason``, ``facts``)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.api.test_procedure import make_lead, patch
from vigia.service.http.deps import hash_key


def _assign(api: Api, lead_id: str, officer: str | None, status: int = 200) -> dict[str, Any]:
    r = api.client.put(
        f"/leads/{lead_id}/assignment", json={"officer": officer}, headers=api.h("inspector")
    )
    assert r.status_code == status, r.text
    out: dict[str, Any] = r.json()
    return out


def test_a_lead_is_assigned_taken_off_and_its_history_says_so(api: Api) -> None:
    api.repo.upsert_leads([make_lead("L-ASSIGN")])
    api.repo.add_api_key("Bruno Reis", "inspector", hash_key("k-bruno"))
    api.repo.add_api_key("Zé Scoped", "inspector", hash_key("k-ze"), authority="CP Santos")
    api.repo.add_api_key("Carla Dias", "viewer", hash_key("k-carla"))
    names = api.client.get("/officers", headers=api.h("inspector")).json()["officers"]
    # viewers cannot move leads, so they are no officers; an unlimited caller sees every
    # authority, so an officer limited to one is listed too
    assert {o["name"] for o in names} == {"test-inspector", "test-admin", "Bruno Reis",
                                          "Zé Scoped"}  # fmt: skip
    out = _assign(api, "L-ASSIGN", "Bruno Reis")
    got = out["procedure"]["assignment"]
    assert (got["officer"], got["by"]) == ("Bruno Reis", "test-inspector")
    assert got["at"].endswith("Z")
    row = out["history"][-1]
    assert (row["from"], row["to"]) == ("new", "new")
    assert row["after"]["assignment"] == got
    listed = api.client.get("/leads", headers=api.h("viewer")).json()["leads"]
    assert listed[0]["procedure"]["assignment"]["officer"] == "Bruno Reis"
    # an unknown name is refused, naming the list to pick from
    r = _assign(api, "L-ASSIGN", "Ninguém", 422)
    assert "GET /officers" in r["detail"]
    off = _assign(api, "L-ASSIGN", None)
    assert "assignment" not in off["procedure"]
    assert off["history"][-1]["after"] == {"assignment": None}
    r = api.client.put(
        "/leads/L-ASSIGN/assignment", json={"officer": "Bruno Reis"}, headers=api.h("viewer")
    )
    assert r.status_code == 403
    scoped = api.client.get("/officers", headers={"X-API-Key": "k-ze"}).json()["officers"]
    assert "Zé Scoped" in {o["name"] for o in scoped}
    # but not for a lead of another authority, which that officer could not open
    api.repo.upsert_leads([make_lead("L-RIO")])
    authority = api.client.get("/leads/L-RIO", headers=api.h("viewer")).json()["authority"]
    assert authority != "CP Santos"
    _assign(api, "L-RIO", "Zé Scoped", 422)


def test_a_judgment_before_the_defence_term_says_why_with_its_date(api: Api) -> None:
    api.repo.upsert_leads([make_lead("L-WHY")])
    patch(api, "L-WHY", {"status": "triaged", "seat_state": "RJ"})
    patch(api, "L-WHY", {"status": "notified",
                         "notice": {"date": "2026-02-02", "appear_by": "2026-02-05"}})  # fmt: skip
    party = {"role": "comandante", "name": "Carlos Alves"}
    auto = {"number": "A-1", "date": "2026-02-06", "signature": "signed"}
    case = patch(api, "L-WHY", {"status": "infraction", "auto": auto, "responsible": [party]})
    due = next(d for d in case["deadlines"] if d["name"] == "defesa")
    early = {"date": "2026-02-20", "outcome": "procedente"}
    r = patch(api, "L-WHY", {"status": "judged", "decision": early}, 422)
    assert (r["field"], r["reason"]) == ("decision.date", "defence-term-running")
    assert r["facts"] == {"due": due["due"], "basis": due["basis"]}
