"""A seat whose municipal holidays Vigia lacks: the lead's calendar says so and its terms
are not presented as certain (issue 32). Dates worked out by hand on a month calendar."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.api.conftest import Api
from tests.api.test_procedure import make_lead, patch

NOTICE = {"date": "2026-10-01", "appear_by": "2026-10-02"}


def _walk_to_auto(api: Api, lead_id: str) -> dict[str, Any]:
    patch(api, lead_id, {"status": "notified", "notice": NOTICE})
    auto = {"number": f"{lead_id}/2026", "date": "2026-10-05", "signature": "signed"}
    return patch(api, lead_id, {"status": "infraction", "auto": auto})


def test_a_seat_without_municipal_holidays_says_so(api: Api) -> None:
    tabatinga = "Capitania Fluvial de Tabatinga"  # seat Tabatinga (AM), none of its own listed
    api.repo.upsert_leads([replace(make_lead("L-CRB"), authority=tabatinga), make_lead("L-RJC")])

    b = patch(api, "L-CRB", {"status": "triaged"})
    cal = b["calendar"]
    assert (cal["state"], cal["municipality"], cal["verified"]) == ("AM", "Tabatinga", False)
    assert "Tabatinga (AM)" in cal["note"] and "may end later" in cal["note"]
    b = _walk_to_auto(api, "L-CRB")
    terms = {d["name"]: d for d in b["deadlines"]}
    # Auto known Mon 5 Oct 2026: 15 working days skip Mon 12 Oct -> Tue 27 Oct, on the
    # national and state calendars; not certain
    assert terms["defesa"]["due"] == "2026-10-27"
    assert terms["defesa"]["certain"] is False and "Tabatinga (AM)" in terms["defesa"]["note"]
    assert terms["julgamento"]["certain"] is False
    # a date a person entered is what it is
    assert terms["comparecimento"]["certain"] is True and terms["comparecimento"]["note"] is None

    # Rio de Janeiro's municipal holidays are listed: the same Auto, certain
    b = patch(api, "L-RJC", {"status": "triaged"})
    assert b["calendar"]["verified"] is True and b["calendar"]["note"] is None
    b = _walk_to_auto(api, "L-RJC")
    defesa = next(d for d in b["deadlines"] if d["name"] == "defesa")
    assert (defesa["due"], defesa["certain"], defesa["note"]) == ("2026-10-27", True, None)
