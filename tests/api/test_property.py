"""A property-based run over the OpenAPI document (schemathesis): no input makes a 5xx.

The hostile variant (non-finite numbers, huge strings) is in test_property_hostile.py: a
module of its own, so that the two long runs go to different test workers."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from tests.api.conftest import Api, lazy_schema
from vigia.service.http.app import create_app
from vigia.service.settings import DatabaseSettings, Settings

pytestmark = [pytest.mark.postgis, pytest.mark.slow]

schema = lazy_schema()


@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_server_error(case: schemathesis.Case, api: Api) -> None:
    response = case.call(headers=api.h("admin"))
    assert response.status_code < 500, (case.method, case.formatted_path, response.text[:500])
    if response.status_code >= 400:
        assert response.headers["content-type"][0].startswith("application/problem+json")


def test_building_the_app_opens_no_store() -> None:
    # the lifespan opens the store; building the app (and its OpenAPI) must not need one
    dead = Settings(database=DatabaseSettings(url="postgresql+psycopg://nobody@127.0.0.1:1/none"))
    app = create_app(dead)
    assert app.openapi()["info"]["title"] == "Vigia"
