"""Readiness, metrics, and the OpenAPI document's examples and error shapes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Api, make_settings, start
from vigia.service.settings import IngestSettings

pytestmark = pytest.mark.postgis
# routes other issues own; their examples are theirs to add
FOREIGN = ("/ballast",)


def test_healthz_needs_no_key_and_readyz_reports_the_store(shared_api: Api) -> None:
    assert shared_api.client.get("/healthz").json() == {"status": "ok"}
    r = shared_api.client.get("/readyz", headers=shared_api.h("viewer"))
    assert r.status_code == 200
    assert r.json()["database"] == "ok" and r.json()["worker"] == "off"


def test_readyz_is_503_when_no_message_came_within_the_limit(
    store_url: str, tmp_path: Path
) -> None:
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(worker=True, ready_max_message_age_s=5)
    for api in start(settings):
        r = api.client.get("/readyz", headers=api.h("viewer"))
        assert r.status_code == 503
        assert r.headers["content-type"] == "application/problem+json"
        assert "no message" in r.json()["detail"]
        assert api.client.get("/healthz").status_code == 200


def test_metrics_are_prometheus_text_with_every_family(shared_api: Api) -> None:
    r = shared_api.client.get("/metrics", headers=shared_api.h("viewer"))
    assert r.headers["content-type"].startswith("text/plain")
    for line in (
        "# TYPE vigia_sentences_total counter",
        "# TYPE vigia_decode_errors_total counter",
        "# TYPE vigia_positions_stored_total counter",
        "# TYPE vigia_leads_total counter",
        "# TYPE vigia_ingest_lag_seconds gauge",
    ):
        assert line in r.text.splitlines()


def _ops(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (m.upper(), path, op)
        for path, item in doc["paths"].items()
        for m, op in item.items()
        if isinstance(op, dict) and "responses" in op
    ]


def test_every_operation_documents_a_success_example_and_problem_errors(shared_api: Api) -> None:
    doc = shared_api.client.get("/openapi.json").json()
    assert doc["components"]["securitySchemes"]["ApiKey"]["name"] == "X-API-Key"
    for method, path, op in _ops(doc):
        responses = op["responses"]
        for status, entry in responses.items():
            if status.startswith(("4", "5")):
                assert list(entry["content"]) == ["application/problem+json"], (path, status)
        if path == "/healthz":
            assert "security" not in op
        else:
            assert {"401", "403"} <= set(responses), (method, path)
        if path.startswith(FOREIGN):
            continue
        success = [e for s, e in responses.items() if s.startswith("2")]
        examples = [c for e in success for c in e.get("content", {}).values() if "example" in c]
        assert examples or "204" in responses, (method, path)
