"""Leads follow their Capitania when jurisdictions change (issue 20): a routed lead still
before any Notice or Auto moves to the jurisdiction zone that now claims it, and back to
the bundled register when that zone goes; a notified lead stays where its Notice was
issued (re-routing it would leave a Notice signed by another office)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tests.api.conftest import Api, feature, square
from tests.api.test_procedure import make_lead, patch
from vigia.alerts.procedure import register

RJ = "CP-TESTE-Macaé"


def _lead(api: Api, lead_id: str) -> dict[str, Any]:
    r = api.client.get(f"/leads/{lead_id}", headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_routed_leads_follow_a_new_jurisdiction_and_notified_ones_stay(api: Api) -> None:
    # two leads at P-66 off Macaé, routed by the bundled register (no zone claims them)
    leads = [dataclasses.replace(make_lead(i), authority=None) for i in ("L-NEW", "L-NOTI")]
    api.repo.upsert_leads(leads)
    before = _lead(api, "L-NEW")
    assert before["details"]["routing"]["approximate"] is True
    register_office = before["authority"]
    assert register_office and register_office != RJ
    patch(api, "L-NOTI", {"status": "triaged", "seat_state": "RJ"})
    notice = {"date": "2026-02-02", "appear_by": "2026-02-05"}
    patch(api, "L-NOTI", {"status": "notified", "notice": notice})

    fc = {"type": "FeatureCollection", "features": [
        feature("jur-test-rj", "jurisdiction", square(-40.05, -22.37, 0.2), authority=RJ,
                seat_state="RJ")]}  # fmt: skip
    r = api.client.post("/collections/zones/items", json=fc, headers=api.h("admin"))
    assert r.status_code in (200, 201), r.text

    moved = _lead(api, "L-NEW")
    assert moved["authority"] == RJ
    assert moved["details"]["routing"] == {
        "authority": RJ, "zone_id": "jur-test-rj", "approximate": False,
    }  # fmt: skip
    assert _lead(api, "L-NOTI")["authority"] == register_office  # its Notice was issued

    r = api.client.delete("/collections/zones/items/jur-test-rj", headers=api.h("admin"))
    assert r.status_code in (200, 204), r.text
    back = _lead(api, "L-NEW")
    assert back["authority"] == register_office
    assert back["details"]["routing"]["approximate"] is True


def test_leads_follow_a_new_versions_register_of_offices(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new version of Vigia ships another register: at start the leads not yet notified
    are routed again by it (once), the notified ones stay where their Notice was issued."""
    leads = [dataclasses.replace(make_lead(i), authority=None) for i in ("L-REG", "L-NOTI")]
    api.repo.upsert_leads(leads)
    before = _lead(api, "L-REG")["authority"]
    assert before == "Capitania dos Portos de Macaé"  # P-66, nearest seat of the register
    patch(api, "L-NOTI", {"status": "triaged", "seat_state": "RJ"})
    notice = {"date": "2026-02-02", "appear_by": "2026-02-05"}
    patch(api, "L-NOTI", {"status": "notified", "notice": notice})
    # the service noted the bundled register when it started: nothing to do
    assert api.repo.sync_register(register.fingerprint()) is None

    near = register.Office("Delegacia de Teste", "delegacia", "Macaé", "RJ", -40.05, -22.37,
                           1, ("https://example.org",))  # fmt: skip
    bundled = register.offices()
    monkeypatch.setattr(register, "offices", lambda: (*bundled, near))
    assert api.repo.sync_register("another register") == 1
    assert _lead(api, "L-REG")["authority"] == "Delegacia de Teste"
    assert _lead(api, "L-NOTI")["authority"] == before  # its Notice was issued
    assert api.repo.sync_register("another register") is None  # once, not at every start
