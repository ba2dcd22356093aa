"""The dashboard's Content-Security-Policy on every path that serves it (issue 31): the
page at ``/`` had it, while ``/ui/`` (the static files answer it with the same page) and
the assets had none, so the page could be framed (clickjacking) and nothing kept its
scripts to the origin there. The real app, through its TestClient."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import Api, make_settings, start

HTML = {"Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"}
PATHS = [
    "/ui/",
    "/ui/index.html",
    "/ui/app.css",
    "/ui/js/main.js",
    "/ui/vendor/maplibre-gl/maplibre-gl.mjs",
    "/ui/vendor/maplibre-gl/maplibre-gl-worker.mjs",
    "/ui/no-such-file.js",  # a 404 under /ui/ too
]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    tmp: Path = tmp_path_factory.mktemp("ui")
    yield from start(make_settings(f"sqlite:///{tmp / 'vigia.sqlite'}", tmp))


@pytest.fixture
def client(api: Api) -> TestClient:
    return api.client


def _policy(value: str) -> dict[str, str]:
    """A CSP header as directive -> sources, read independently of the code under test."""
    out: dict[str, str] = {}
    for part in value.split(";"):
        name, _, sources = part.strip().partition(" ")
        if name:
            out[name] = sources.strip()
    return out


def test_the_page_at_the_root_cannot_be_framed(client: TestClient) -> None:
    r = client.get("/", headers=HTML)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    policy = _policy(r.headers["content-security-policy"])
    assert policy["frame-ancestors"] == "'none'" and policy["default-src"] == "'self'"
    assert r.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_every_dashboard_path_carries_the_pages_policy(
    client: TestClient, path: str, method: str
) -> None:
    page = client.get("/", headers=HTML).headers["content-security-policy"]
    r = client.request(method, path, headers=HTML)
    assert r.status_code == (404 if "no-such" in path else 200), path
    assert r.headers.get("content-security-policy") == page, path
    assert _policy(r.headers["content-security-policy"])["frame-ancestors"] == "'none'"
    assert r.headers.get("x-frame-options") == "DENY", path
    assert r.headers.get("x-content-type-options") == "nosniff", path
    assert r.headers.get("referrer-policy") == "no-referrer", path


def test_json_clients_still_get_the_landing_without_the_page(api: Api) -> None:
    r = api.client.get("/", headers={"Accept": "application/json", **api.h("viewer")})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert "x-frame-options" not in r.headers  # an API answer, not the page
