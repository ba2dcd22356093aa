"""Every route in the OpenAPI document, with no key, a wrong key, and each role."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from tests.api.conftest import Api, make_settings
from vigia.service.http.app import create_app
from vigia.service.http.deps import ROLES, hash_key
from vigia.service.settings import AuthSettings

pytestmark = pytest.mark.postgis

# routes that need more than the viewer role; every other documented route needs viewer
NEEDS: dict[tuple[str, str], str] = {
    ("POST", "/collections/zones/items"): "admin",
    ("PUT", "/collections/zones/items/{zone_id}"): "admin",
    ("DELETE", "/collections/zones/items/{zone_id}"): "admin",
    ("PATCH", "/leads/{lead_id}"): "inspector",
    ("PUT", "/leads/{lead_id}/assignment"): "inspector",  # issue 35
    ("GET", "/leads/{lead_id}/documents/{kind}.pdf"): "inspector",
    ("POST", "/silences"): "inspector",
    ("POST", "/watchlist"): "inspector",
    ("DELETE", "/watchlist/{entry_id}"): "inspector",
    ("GET", "/apikeys"): "admin",
    ("POST", "/apikeys"): "admin",
    ("DELETE", "/apikeys/{key_id}"): "admin",
}
OPEN = {("GET", "/healthz")}
# this routes, whose roles the test knows exactly (others: monotone, admin passes)
OURS = (
    "/collections",
    "/vessels",
    "/leads",
    "/ingest",
    "/readyz",
    "/metrics",
    "/conformance",
    "/apikeys",
    "/silences",
    "/watchlist",
)
SAMPLE_PARAMS = {
    "zone_id": "plat-p66",
    "mmsi": "710000001",
    "lead_id": "L-none",
    "key_id": "999999",
    "entry_id": "999999",
    "kind": "notice",
}


def _operations(api: Api) -> list[tuple[str, str, str]]:
    doc: dict[str, Any] = api.client.get("/openapi.json").json()
    ops = []
    for template, item in doc["paths"].items():
        for method in item:
            if method in {"get", "post", "put", "delete", "patch"}:
                url = re.sub(r"\{(\w+)\}", lambda m: SAMPLE_PARAMS.get(m.group(1), "1"), template)
                ops.append((method.upper(), template, url))
    return ops


def test_the_document_lists_the_routes_of_the_contract(shared_api: Api) -> None:
    api = shared_api
    templates = {t for _, t, _ in _operations(api)}
    assert {
        "/healthz",
        "/readyz",
        "/metrics",
        "/collections/zones/items",
        "/collections/zones/items/{zone_id}",
        "/vessels",
        "/vessels/{mmsi}",
        "/vessels/{mmsi}/track",
        "/ingest/counters",
        "/leads",
        "/leads/{lead_id}",
        "/leads/{lead_id}/evidence",
    } <= templates


def test_every_route_but_healthz_refuses_a_missing_or_unknown_key(shared_api: Api) -> None:
    api = shared_api
    ops = _operations(api)
    assert len(ops) >= 15
    for method, template, url in ops:
        for headers in ({}, {"X-API-Key": "not-a-key"}):
            r = api.client.request(method, url, headers=headers)
            if (method, template) in OPEN:
                assert r.status_code == 200, (method, url)
                continue
            assert r.status_code == 401, (method, url, headers, r.status_code, r.text)
            assert r.headers["content-type"] == "application/problem+json"
            assert r.json()["status"] == 401


def test_each_role_gets_403_below_the_route_s_role_and_no_401_or_5xx(api: Api) -> None:
    roles = sorted(ROLES, key=ROLES.__getitem__)
    for method, template, url in _operations(api):
        # an event stream never ends under TestClient; it takes the lowest role (viewer),
        # so there is no 403 to look for, and its 401s are checked above
        if (method, template) in OPEN or template.endswith("/stream"):
            continue
        statuses = {}
        for role in roles:
            r = api.client.request(method, url, headers=api.h(role))
            statuses[role] = r.status_code
            # whatever the answer (200, 404 for a missing id, 422 for no body), a valid key
            # is never an authentication failure nor a server error
            assert r.status_code != 401 and r.status_code < 500, (role, method, url, r.text)
            if r.status_code == 403:
                assert r.headers["content-type"] == "application/problem+json"
        allowed = [statuses[role] != 403 for role in roles]
        assert allowed[-1], (method, url, "admin may do everything")
        assert allowed == sorted(allowed), (method, url, statuses)  # roles only add rights
        if template.startswith(OURS) or template == "/":
            needed = NEEDS.get((method, template), "viewer")
            expected = [ROLES[role] >= ROLES[needed] for role in roles]
            assert allowed == expected, (method, url, statuses)


def test_a_viewer_cannot_change_zones(shared_api: Api) -> None:
    api = shared_api
    body = {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [-40.0, -22.0]},
        "properties": {"id": "p-x", "kind": "platform"},
    }
    for role in ("viewer", "inspector"):
        r = api.client.post("/collections/zones/items", json=body, headers=api.h(role))
        assert r.status_code == 403
        r = api.client.delete("/collections/zones/items/plat-p66", headers=api.h(role))
        assert r.status_code == 403
    r = api.client.get("/collections/zones/items/plat-p66", headers=api.h("viewer"))
    assert r.status_code == 200
    r = api.client.get("/collections/zones/items/p-x", headers=api.h("viewer"))
    assert r.status_code == 404


def test_unknown_routes_and_methods_are_problems(shared_api: Api) -> None:
    api = shared_api
    r = api.client.get("/no/such/route", headers=api.h("viewer"))
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/problem+json"
    r = api.client.patch("/vessels", headers=api.h("viewer"))
    assert r.status_code == 405
    assert r.json()["type"].endswith("method-not-allowed")


def test_a_bootstrap_admin_key_from_settings_is_stored_hashed_and_works(
    store_url: str, tmp_path: Path
) -> None:
    settings = make_settings(store_url, tmp_path)
    settings.auth = AuthSettings(bootstrap_admin_key=SecretStr("deploy-time-admin-key-0123456789"))
    for _ in range(2):  # a restart does not store it twice
        with TestClient(create_app(settings)) as client:
            h = {"X-API-Key": "deploy-time-admin-key-0123456789"}
            r = client.delete("/collections/zones/items/plat-p66", headers=h)
            assert r.status_code in (204, 404)
            repo = client.app.state.repository  # type: ignore[attr-defined]
            record = repo.find_api_key(hash_key("deploy-time-admin-key-0123456789"))
            assert record is not None and record.role == "admin"
            assert record.key_hash != "deploy-time-admin-key-0123456789"
