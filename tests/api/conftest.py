"""The real app on each real store, with one key per role and a small zone folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient

from tests.support import pg
from tests.support.pg import require
from vigia.service.db.protocol import Repository
from vigia.service.http.app import create_app, new_api_key
from vigia.service.http.deps import ROLES, hash_key
from vigia.service.settings import (
    ApiSettings,
    ArchiveSettings,
    DatabaseSettings,
    IngestSettings,
    Settings,
    ZoneSettings,
)


def feature(zone_id: str, kind: str, geometry: dict[str, Any], **props: Any) -> dict[str, Any]:
    """A zone Feature as a file or an upload carries it."""
    return {
        "type": "Feature",
        "geometry": geometry,
        "properties": {"id": zone_id, "kind": kind, **props},
    }


def square(lon: float, lat: float, d: float = 0.01) -> dict[str, Any]:
    """A small square polygon around a point."""
    ring = [[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d]]
    return {"type": "Polygon", "coordinates": [[*ring, ring[0]]]}


# real places: P-66 in the Campos basin, an anchorage off Santos, a special area off Rio
BUNDLED = [
    feature("plat-p66", "platform", {"type": "Point", "coordinates": [-40.05, -22.37]}),
    feature("anch-santos", "anchorage", square(-46.30, -24.05, 0.03), name="Santos 3"),
    feature(
        "notice-rio",
        "special_area",
        square(-43.15, -22.95),
        valid_from="2024-03-01T00:00:00+00:00",
        valid_to="2024-03-10T00:00:00+00:00",
        notice="AVISO 123/24",
    ),
]


@dataclass
class Api:
    """A started app, its client, its store and one key per role."""

    client: TestClient
    repo: Repository
    keys: dict[str, str] = field(default_factory=dict)

    def h(self, role: str | None) -> dict[str, str]:
        """Headers carrying the key of ``role`` (none for None)."""
        return {} if role is None else {"X-API-Key": self.keys[role]}


def make_settings(store_url: str, tmp_path: Path, **api: Any) -> Settings:
    """Settings for a test app: the given store, worker off, the small zone folder."""
    zones_dir = tmp_path / "zones"
    zones_dir.mkdir(exist_ok=True)
    (zones_dir / "test.geojson").write_text(
        json.dumps({"type": "FeatureCollection", "features": BUNDLED})
    )
    return Settings(
        database=DatabaseSettings(url=store_url, sqlite_path=str(tmp_path / "x.sqlite")),
        api=ApiSettings(**api),
        ingest=IngestSettings(worker=False),
        zones=ZoneSettings(zones_dir=str(zones_dir)),
        # a PostGIS store's archive under the test's own folder, not the user's data
        archive=ArchiveSettings(data_dir=str(tmp_path / "data")),
    )


def start(settings: Settings) -> Iterator[Api]:
    """Run the app's lifespan, add a key per role, yield, shut down."""
    with TestClient(create_app(settings)) as client:
        repo: Repository = client.app.state.repository  # type: ignore[attr-defined]
        api = Api(client, repo)
        for role in ROLES:
            key = new_api_key()
            repo.add_api_key(f"test-{role}", role, hash_key(key))
            api.keys[role] = key
        yield api


@pytest.fixture
def poppler() -> None:
    """poppler-utils (pdftotext, pdftoppm): the documents' tests read the PDFs back."""
    for tool in ("pdftotext", "pdftoppm"):
        require(tool, "the documents' tests read the PDFs back")


@pytest.fixture
def api(store_url: str, tmp_path: Path) -> Iterator[Api]:
    """The app on each store (SQLite file, PostGIS) with default limits."""
    yield from start(make_settings(store_url, tmp_path))


@pytest.fixture(scope="module", params=["sqlite", "postgis"])
def shared_api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    """One app per module and store, for tests that only read (a fresh PostGIS database
    and migration per test would dominate the suite's time)."""
    tmp = tmp_path_factory.mktemp("shared")
    if request.param == "sqlite":
        yield from start(make_settings(f"sqlite:///{tmp / 'vigia.sqlite'}", tmp))
        return
    template = request.getfixturevalue("pg_template")
    with pg.database(template=template) as url:
        yield from start(make_settings(url, tmp))


@pytest.fixture
def api_schema(api: Api) -> schemathesis.BaseSchema:
    """The running app's own OpenAPI document, calling the app in process."""
    return schemathesis.openapi.from_asgi("/openapi.json", api.client.app)


def lazy_schema() -> Any:
    """The property runs' schema, resolved per test from ``api_schema``.

    The event stream is left out: it never ends by design, so an in-process call to it
    would wait forever (tests/live/test_sse.py drives it over a real socket instead). The
    filter goes on the lazy schema: one set on the fixture's schema is not applied.
    """
    return schemathesis.pytest.from_fixture("api_schema").exclude(path="/leads/stream")
