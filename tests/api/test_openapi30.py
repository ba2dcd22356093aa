"""``/api`` is a valid OpenAPI 3.0 document: the one a 3.0 tool (code generators, OGC
clients following the ``oas30`` conformance class) reads. The judge is
openapi-spec-validator, not our own conversion."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_spec_validator import OpenAPIV30SpecValidator, validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from tests.api.conftest import Api, make_settings, start


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("oas30")
    yield from start(make_settings(f"sqlite:///{tmp / 'v.sqlite'}", tmp))


def _errors(doc: dict[str, Any]) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in OpenAPIV30SpecValidator(doc).iter_errors()
    ]


def test_api_document_validates_as_openapi_30(live: Api) -> None:
    r = live.client.get("/api", headers=live.h("viewer"))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/vnd.oai.openapi+json;version=3.0")
    doc = r.json()
    assert doc["openapi"].startswith("3.0.")
    assert _errors(doc) == []
    validate(doc, cls=OpenAPIV30SpecValidator)  # the library's own entry point agrees
    # the document still describes the API: every OGC path is there
    for path in ("/collections/vessels/items", "/collections/{layer}/queryables", "/leads"):
        assert path in doc["paths"], path


def test_the_validator_refuses_a_31_only_field(live: Api) -> None:
    # the oracle can fail: the defect the issue reported (info.summary, 3.1 only) is caught
    doc = live.client.get("/api", headers=live.h("viewer")).json()
    doc["info"]["summary"] = "AIS watch"
    with pytest.raises(OpenAPIValidationError):
        validate(doc, cls=OpenAPIV30SpecValidator)
