"""Issue 34: the register of state vessels through the API (roles, CSV refused by line,
every entry with its source), kept by the store across restarts, handed to the running
worker's pipeline, and seeded once from the bundled file into a store that has none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Api, make_settings, start
from vigia.alerts.identity.state_register import StateVessel
from vigia.service.settings import IngestSettings, Settings

pytestmark = pytest.mark.postgis
NAVY, POLICE = 710_000_351, 710_000_552
HEADER = "mmsi,name,kind,source,valid_from,valid_to,note\n"
CSV = (
    HEADER + f"{NAVY},NPA TESTE,navy,https://example.org/navy-list,2026-01-01T00:00:00Z,,\n"
    f"{POLICE},LANCHA TESTE,police,Ofício 1/2026 NEPOM,,2026-12-31T23:59:59Z,a note\n"
)
T = 1_780_000_000.0  # 2026-05-28, inside both entries' windows


def _upload(api: Api, body: str, role: str = "admin") -> tuple[int, Any]:
    r = api.client.post(
        "/state-vessels/import",
        content=body.encode(),
        headers={**api.h(role), "Content-Type": "text/csv"},
    )
    return r.status_code, r.json() if r.content else None


def _listed(api: Api) -> list[dict[str, Any]]:
    r = api.client.get("/state-vessels", headers=api.h("inspector"))
    assert r.status_code == 200, r.text
    entries: list[dict[str, Any]] = r.json()["entries"]
    return entries


def test_inspectors_read_the_register_and_only_admins_change_it(api: Api) -> None:
    status, body = _upload(api, CSV)
    assert status == 201, body
    assert [(e["mmsi"], e["kind"]) for e in body["entries"]] == [(NAVY, "navy"), (POLICE, "police")]
    navy, police = body["entries"]
    assert navy["source"] == "https://example.org/navy-list"
    assert navy["valid_from"] == "2026-01-01T00:00:00Z" and navy["valid_to"] is None
    assert police["valid_to"] == "2026-12-31T23:59:59Z" and police["note"] == "a note"
    assert _listed(api) == body["entries"]
    assert api.client.get("/state-vessels", headers=api.h("viewer")).status_code == 403
    assert api.client.get("/state-vessels").status_code == 401
    assert _upload(api, CSV, role="inspector")[0] == 403
    one = {"entries": [{"mmsi": 710_000_353, "name": "NAPA", "kind": "navy", "source": "s"}]}
    for role, expected in (("viewer", 403), ("inspector", 403), ("admin", 201)):
        r = api.client.post("/state-vessels", json=one, headers=api.h(role))
        assert r.status_code == expected, (role, r.text)
    added = r.json()["entries"][0]
    assert added["mmsi"] == 710_000_353 and added["valid_from"] is None
    for role, expected in (("inspector", 403), ("admin", 204), ("admin", 404)):
        r = api.client.delete(f"/state-vessels/{added['id']}", headers=api.h(role))
        assert r.status_code == expected, role
    assert [e["mmsi"] for e in _listed(api)] == [NAVY, POLICE]


@pytest.mark.parametrize(
    ("row", "said"),
    [
        (f"{NAVY},NPA TESTE,navy,,,,\n", "no source"),  # every entry says where it comes from
        (f"{NAVY},NPA TESTE,,https://example.org,,,\n", "no kind"),
        (f"{NAVY},NPA TESTE,pirate,https://example.org,,,\n", "kind 'pirate'"),
        ("71000035,NPA TESTE,navy,https://example.org,,,\n", "nine-digit"),
        (f"{NAVY},NPA,navy,s,2026-02-01T00:00:00Z,2026-01-01T00:00:00Z,\n", "before valid_from"),
        (f"{NAVY},NPA,navy,s,2026-02-01,,\n", "no UTC offset"),
    ],
)
def test_a_bad_row_refuses_the_whole_upload_naming_its_line(api: Api, row: str, said: str) -> None:
    status, problem = _upload(api, CSV + row)
    assert status == 422, problem
    assert problem["detail"].startswith("1 bad row(s), nothing added: line 4: "), problem
    assert said in problem["detail"]
    assert _listed(api) == []


def test_a_json_entry_without_a_source_or_with_a_bad_field_is_refused(api: Api) -> None:
    base = {"mmsi": NAVY, "name": "NPA TESTE", "kind": "navy", "source": "https://example.org"}
    for entry in (
        {k: v for k, v in base.items() if k != "source"},
        {**base, "source": ""},
        {**base, "source": "   "},
        {**base, "kind": "pirate"},
        {**base, "valid_from": "not a time"},
    ):
        r = api.client.post("/state-vessels", json={"entries": [entry]}, headers=api.h("admin"))
        assert r.status_code == 422, (entry, r.text)
        assert r.headers["content-type"] == "application/problem+json"
    assert _listed(api) == []


def test_the_csv_needs_its_header_and_rows(api: Api) -> None:
    assert _upload(api, HEADER)[0] == 422  # no entries
    status, problem = _upload(api, "mmsi,name,kind,source,flag\n")
    assert status == 422 and "flag" in problem["detail"]
    status, problem = _upload(api, "name,kind\nNPA,navy\n")
    assert status == 422 and "mmsi,name,kind,source" in problem["detail"]


def _with_worker(store_url: str, tmp_path: Path) -> Settings:
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(worker=True, files=[], flush_interval_s=0.2)
    return settings


def _pipeline_entry(api: Api, mmsi: int) -> StateVessel | None:
    worker = api.client.app.state.worker  # type: ignore[attr-defined]
    entry: StateVessel | None = worker._pipeline.state_vessels.entry(mmsi, T)
    return entry


def test_the_register_is_kept_and_the_running_worker_judges_with_it(
    store_url: str, tmp_path: Path
) -> None:
    """An edit reaches the running worker's pipeline at once; a restarted worker loads
    the register from the store."""
    settings = _with_worker(store_url, tmp_path)
    for api in start(settings):
        assert _pipeline_entry(api, NAVY) is None
        assert _upload(api, CSV)[0] == 201
        got = _pipeline_entry(api, NAVY)
        assert got is not None and got.source == "https://example.org/navy-list"
        police = _pipeline_entry(api, POLICE)
        assert police is not None
        assert api.client.delete(f"/state-vessels/{police.id}", headers=api.h("admin")).is_success
        assert _pipeline_entry(api, POLICE) is None
    for api in start(settings):
        assert [e["mmsi"] for e in _listed(api)] == [NAVY]
        got = _pipeline_entry(api, NAVY)
        assert got is not None and got.name == "NPA TESTE" and got.kind == "navy"


def test_the_bundled_register_seeds_an_empty_store_once(store_url: str, tmp_path: Path) -> None:
    """Offered once: an admin who empties the register does not get it back on restart."""
    seed = tmp_path / "seed.csv"
    seed.write_text(CSV)
    settings = make_settings(store_url, tmp_path)
    settings.zones.state_vessels_file = str(seed)
    for api in start(settings):
        listed = _listed(api)
        assert [e["mmsi"] for e in listed] == [NAVY, POLICE]
        for e in listed:
            assert api.client.delete(f"/state-vessels/{e['id']}", headers=api.h("admin")).is_success
    for api in start(settings):
        assert _listed(api) == []


def test_a_bad_seed_file_is_logged_and_the_service_starts(store_url: str, tmp_path: Path) -> None:
    seed = tmp_path / "seed.csv"
    seed.write_text(HEADER + f"{NAVY},NPA TESTE,navy,,,,\n")  # no source
    settings = make_settings(store_url, tmp_path)
    settings.zones.state_vessels_file = str(seed)
    for api in start(settings):
        assert _listed(api) == []
