"""A property-based run over the OpenAPI document (schemathesis): no input makes a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from tests.api.conftest import Api, make_settings, start
from vigia.service.http.app import create_app
from vigia.service.settings import DatabaseSettings, Settings

pytestmark = [pytest.mark.postgis, pytest.mark.slow]


@pytest.fixture
def started(store_url: str, tmp_path: Path) -> Iterator[Api]:
    """The app with its lifespan running, on each store."""
    yield from start(make_settings(store_url, tmp_path))


@pytest.fixture
def api_schema(started: Api) -> schemathesis.BaseSchema:
    """The running app's own OpenAPI document, calling the app in process."""
    return schemathesis.openapi.from_asgi("/openapi.json", started.client.app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_server_error(case: schemathesis.Case, started: Api) -> None:
    response = case.call(headers=started.h("admin"))
    assert response.status_code < 500, (case.method, case.formatted_path, response.text[:500])
    if response.status_code >= 400:
        assert response.headers["content-type"][0].startswith("application/problem+json")


def test_building_the_app_opens_no_store() -> None:
    # the lifespan opens the store; building the app (and its OpenAPI) must not need one
    dead = Settings(database=DatabaseSettings(url="postgresql+psycopg://nobody@127.0.0.1:1/none"))
    app = create_app(dead)
    assert app.openapi()["info"]["title"] == "Vigia"
