"""POST /zones/imports (issue 40) on both stores: admins only; a register and a zip of
real S-57 cells imported as `vigia zones import` does; the zones then show their source
and date; hostile uploads are clear 4xx and change nothing."""

from __future__ import annotations

import base64
import functools
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import Api, make_settings, start
from tests.conftest import FIXTURES
from vigia.service.http.routes.zone_imports import MAX_UNZIPPED_BYTES

pytestmark = pytest.mark.postgis

REGISTER = (
    "kind,name,lat,lon,operator,status,source,date\n"
    "platform,P-99,-22.5,-40.1,Petrobras,producing,ANP SIGEP,2026-12-01\n"
    "military,Ilha Fiscal,-22.896981,-43.166447,,,Wikipedia 'Ilha Fiscal',2026-11-30\n"
)


@pytest.fixture
def small_api(store_url: str, tmp_path: Path) -> Iterator[Api]:
    """The app with uploads capped at 2 MB (the NOAA cell's zip is 1.8 MB in base64)."""
    yield from start(make_settings(store_url, tmp_path, max_upload_bytes=2_000_000))


def _post(api: Api, body: bytes, name: str, role: str | None = "admin", **query: str) -> object:
    params = {"name": name, **query}
    return api.client.post("/zones/imports", params=params, content=body, headers=api.h(role))


def test_an_admin_imports_a_register_and_a_zip_of_cells(small_api: Api) -> None:
    api = small_api
    for role, status in ((None, 401), ("viewer", 403), ("inspector", 403)):
        assert _post(api, REGISTER.encode(), "installations.csv", role).status_code == status  # type: ignore[attr-defined]
    r = _post(api, REGISTER.encode(), "installations.csv")
    assert r.status_code == 200, r.text  # type: ignore[attr-defined]
    assert r.json()["added"] == ["military-ilha-fiscal", "platform-p-99"]  # type: ignore[attr-defined]
    got = api.client.get("/collections/zones/items/platform-p-99", headers=api.h("viewer"))
    props = got.json()["properties"]
    assert props["source"] == "ANP SIGEP (register installations.csv row 2)"
    assert props["source_date"] == "2026-12-01" and props["operator"] == "Petrobras"
    assert props["provenance"]["row"] == 2
    again = _post(api, REGISTER.encode(), "installations.csv").json()  # type: ignore[attr-defined]
    assert again["counts"]["unchanged"] == 2 and again["counts"]["added"] == 0

    cells = base64.b64encode((FIXTURES / "enc" / "US4MD81M.zip").read_bytes())
    r = _post(api, cells, "US4MD81M.zip")
    assert r.status_code == 200, r.text  # type: ignore[attr-defined]
    report = r.json()  # type: ignore[attr-defined]
    assert report["counts"]["added"] == 103 and len(report["skipped"]) == 12
    channel = api.client.get(
        "/collections/zones/items/channel-US4MD81M-32647464", headers=api.h("viewer")
    ).json()["properties"]
    assert channel["source"] == "NOAA ENC US4MD81M DRGARE FIDN 32647464"
    assert channel["source_date"] == "2025-09-23"  # issue date of update 3, applied


@functools.cache
def _bomb() -> bytes:
    """A zip whose one file unpacks to one byte over the limit (zeros compress well)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("X.000", "w") as fh:
        chunk = bytes(1_000_000)
        left = MAX_UNZIPPED_BYTES + 1
        while left:
            fh.write(chunk[: min(left, len(chunk))])
            left -= min(left, len(chunk))
    return base64.b64encode(buf.getvalue())


@pytest.mark.parametrize(
    ("body", "name", "status", "says"),
    [
        (REGISTER.encode(), "../installations.csv", 422, "name"),
        (REGISTER.encode(), "installations.txt", 422, "name"),
        (b"\xff\xfe not text", "installations.csv", 422, "cannot read"),
        (b"kind,name,lat,lon,date\nplatform,X,-95,-40,2026-12-01\n", "r.csv", 422, "row 2"),
        (base64.b64encode(b"PK\x03\x04 broken"), "cells.zip", 422, "not a readable zip"),
        (b"PK\x03\x04 not base64!", "cells.zip", 422, "base64"),
        (b'{"type":"FeatureCollection","features":[]}', "zones.geojson", 422, "not a source"),
        (None, "cells.zip", 422, "unpacks to"),
        (b"A" * 5_000_004, "cells.zip", 413, "limit"),  # the default upload limit, 5 MB
    ],
)
def test_hostile_uploads_are_clear_4xx_and_change_nothing(
    shared_api: Api, body: bytes | None, name: str, status: int, says: str
) -> None:
    api = shared_api  # one app per store: none of these may change anything
    before = api.repo.count_zones()
    r = _post(api, _bomb() if body is None else body, name)
    assert r.status_code == status, r.text  # type: ignore[attr-defined]
    assert says in r.text  # type: ignore[attr-defined]
    assert api.repo.count_zones() == before
