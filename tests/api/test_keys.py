"""Admins manage API keys over HTTP: create (shown once), list without hashes, revoke."""

from __future__ import annotations

import pytest

from tests.api.conftest import Api

pytestmark = pytest.mark.postgis


def test_create_list_and_revoke_a_key(api: Api) -> None:
    admin = api.h("admin")
    r = api.client.post("/apikeys", json={"role": "inspector", "name": "insp-silva"}, headers=admin)
    assert r.status_code == 201
    created = r.json()
    key = created["key"]
    assert created["role"] == "inspector" and len(key) >= 40

    mine = {"X-API-Key": key}
    assert api.client.get("/leads", headers=mine).status_code == 200
    assert api.client.get("/apikeys", headers=mine).status_code == 403

    listed = api.client.get("/apikeys", headers=admin).json()["keys"]
    assert [k["name"] for k in listed if k["id"] == created["id"]] == ["insp-silva"]
    assert key not in str(listed) and all("key_hash" not in k for k in listed)

    assert api.client.delete(f"/apikeys/{created['id']}", headers=admin).status_code == 204
    assert api.client.get("/leads", headers=mine).status_code == 401
    assert api.client.delete("/apikeys/999999", headers=admin).status_code == 404


def test_a_bad_role_is_422_and_an_admin_cannot_revoke_its_own_key(api: Api) -> None:
    admin = api.h("admin")
    r = api.client.post("/apikeys", json={"role": "captain"}, headers=admin)
    assert r.status_code == 422
    own = next(
        k["id"]
        for k in api.client.get("/apikeys", headers=admin).json()["keys"]
        if k["name"] == "test-admin"
    )
    assert api.client.delete(f"/apikeys/{own}", headers=admin).status_code == 422
    assert api.client.get("/apikeys", headers=admin).status_code == 200
