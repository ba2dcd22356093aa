"""Drafts of the Notice and the Auto: only for the lead's own authority, only once the
lead was triaged. SQLite only: what is checked is the route's guard, not the store."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import Api, make_settings, start
from tests.api.test_procedure import make_lead, patch

RJ = "Capitania dos Portos do Rio de Janeiro"
SP = "Capitania dos Portos de São Paulo"
URL = "/leads/{}/documents/{}.pdf"


@pytest.fixture
def sqlite_api(tmp_path: Path) -> Iterator[Api]:
    yield from start(make_settings(f"sqlite:///{tmp_path / 'vigia.sqlite'}", tmp_path))


def _key(api: Api, role: str, authority: str) -> dict[str, str]:
    body = {"role": role, "name": f"{role}-{authority}", "authority": authority}
    r = api.client.post("/apikeys", json=body, headers=api.h("admin"))
    assert r.status_code == 201, r.text
    return {"X-API-Key": r.json()["key"]}


def test_drafts_only_for_the_keys_own_authority(sqlite_api: Api) -> None:
    api = sqlite_api
    api.repo.upsert_leads([dataclasses.replace(make_lead("L-RJ"), authority=RJ)])
    patch(api, "L-RJ", {"status": "triaged"})
    rio, santos = _key(api, "inspector", RJ), _key(api, "inspector", SP)
    for kind in ("notice", "auto"):
        assert api.client.get(URL.format("L-RJ", kind), headers=rio).status_code == 200
        # another Capitania's key: "not found", as for every other read of that lead
        assert api.client.get(URL.format("L-RJ", kind), headers=santos).status_code == 404
        assert api.client.get(URL.format("L-NONE", kind), headers=rio).status_code == 404
        assert api.client.get(URL.format("L-RJ", kind), headers=api.h("viewer")).status_code == 403


def test_no_draft_before_triage(sqlite_api: Api) -> None:
    api = sqlite_api
    api.repo.upsert_leads([make_lead("L-NEW")])
    r = api.client.get(URL.format("L-NEW", "notice"), headers=api.h("inspector"))
    assert r.status_code == 409 and r.json()["allowed"] == ["triaged"]
    patch(api, "L-NEW", {"status": "triaged"})
    r = api.client.get(URL.format("L-NEW", "notice"), headers=api.h("inspector"))
    assert r.status_code == 200
