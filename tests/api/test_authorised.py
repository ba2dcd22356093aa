"""Issue 10: the authorised-vessel register through the API (roles, CSV, validity,
applied by the running worker) and the worker's vessel registry surviving a restart."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
import pytest

from scripts import aisgen
from tests.api.conftest import BUNDLED, Api, feature, make_settings, square, start
from tests.api.test_worker import MMSI, T0, _wait, crossing_lines
from tests.live.service import ADMIN_KEY, Service
from vigia.alerts.authorised import Authorisation
from vigia.service.settings import IngestSettings

pytestmark = pytest.mark.postgis
CSV = (
    "mmsi,zone_id,operator,valid_from,valid_to,note\n"
    f"{MMSI},plat-p66,,2024-01-01T00:00:00Z,2024-12-31T23:59:59Z,supply under contract\n"
    "710000222,,Petrobras,,,standby vessel\n"
)


def _import(api: Api, body: str, role: str = "admin") -> tuple[int, dict]:  # type: ignore[type-arg]
    r = api.client.post(
        "/authorised-vessels/import",
        content=body.encode(),
        headers={**api.h(role), "Content-Type": "text/csv"},
    )
    return r.status_code, r.json() if r.content else {}


def test_admins_manage_the_register_and_others_cannot(api: Api) -> None:
    status, body = _import(api, CSV)
    assert status == 201 and [e["mmsi"] for e in body["entries"]] == [MMSI, 710000222]
    assert body["entries"][0]["valid_to"] == "2024-12-31T23:59:59Z"
    listed = api.client.get("/authorised-vessels", headers=api.h("inspector")).json()
    assert listed["entries"] == body["entries"]
    assert api.client.get("/authorised-vessels", headers=api.h("viewer")).status_code == 403
    assert _import(api, CSV, role="inspector")[0] == 403
    # a bad row refuses the whole file, naming its line; nothing is added
    status, problem = _import(api, CSV + "12,plat-p66,,,,\n")
    assert status == 400 and "line 4" in problem["detail"]
    both = {"entries": [{"mmsi": 710000333, "zone_id": "a", "operator": "b"}]}
    r = api.client.post("/authorised-vessels", json=both, headers=api.h("admin"))
    assert r.status_code == 422
    assert len(api.client.get("/authorised-vessels", headers=api.h("admin")).json()["entries"]) == 2
    entry_id = body["entries"][1]["id"]
    assert (
        api.client.delete(f"/authorised-vessels/{entry_id}", headers=api.h("admin")).status_code
        == 204
    )
    assert (
        api.client.delete(f"/authorised-vessels/{entry_id}", headers=api.h("admin")).status_code
        == 404
    )


@pytest.mark.parametrize(
    "broken",
    [
        'mmsi,zone_id\n"710000333"x\r,plat-p66\n',  # a bare CR after a quoted field
        "mmsi,zone_id\n710000333,plat\x00p66\n",  # a NUL: the request guard refuses it
        'mmsi,zone_id\n"710000333,plat-p66\n',  # a quote never closed
    ],
)
def test_a_broken_csv_is_a_4xx_and_adds_nothing(api: Api, broken: str) -> None:
    status, problem = _import(api, broken)
    assert status in (400, 422), problem
    assert problem["detail"]
    assert api.client.get("/authorised-vessels", headers=api.h("admin")).json()["entries"] == []


def test_the_running_worker_judges_with_the_register_from_the_store(
    store_url: str, tmp_path: Path
) -> None:
    """The crossing of P-66 is a lead without an entry; with one valid at the time of
    the crossing (loaded before the worker starts), none."""
    synthetic = tmp_path / "crossing.nmea"
    synthetic.write_text("\n".join(crossing_lines()) + "\n")
    settings = make_settings(store_url, tmp_path)
    for api in start(settings):
        assert _import(api, CSV)[0] == 201
    settings.ingest = IngestSettings(worker=True, files=[str(synthetic)], flush_interval_s=0.2)
    for api in start(settings):
        assert api.client.app.state.worker.wait_idle(60)  # type: ignore[attr-defined]
        leads = api.client.get(f"/leads?mmsi={MMSI}", headers=api.h("viewer")).json()["leads"]
        assert leads == []
        counters = api.client.get("/ingest/counters", headers=api.h("viewer")).json()["counters"]
        assert counters["pipeline_authorised_fixes"] > 0


def test_a_restarted_worker_remembers_the_ship_types_it_stored(
    store_url: str, tmp_path: Path
) -> None:
    """A tanker known from its type 5 before a restart lies in the tanker anchorage
    after it: allowed at once, not "unknown type" until its next type 5."""
    tanker = 710000555
    anchorage = feature(
        "anch-tankers", "anchorage", square(-46.30, -24.05, 0.03), allowed={"ship_types": [80]}
    )
    settings = make_settings(store_url, tmp_path)
    (tmp_path / "zones" / "test.geojson").write_text(
        json.dumps({"type": "FeatureCollection", "features": [*BUNDLED[:1], anchorage]})
    )
    before = tmp_path / "before.nmea"
    before.write_text(
        "\n".join(aisgen.static_lines(tanker, T0, name="SYNTH TANKER", ship_type=80, length_m=240))
        + "\n"
    )
    fixes = aisgen.run(-46.31, -24.06, course=45, sog_kn=0.2, t0=T0 + 3600, dt_s=60, n=20)
    after = tmp_path / "after.nmea"
    after.write_text("\n".join(s for _, s in aisgen.lines_for(tanker, fixes)) + "\n")
    for files in ([before], [after]):
        settings.ingest = IngestSettings(
            worker=True, files=[str(f) for f in files], flush_interval_s=0.2
        )
        for api in start(settings):
            worker = api.client.app.state.worker  # type: ignore[attr-defined]
            assert worker.wait_idle(60)
            _wait(lambda a=api: a.repo.get_vessel(tanker) is not None)
    leads = api.client.get(f"/leads?mmsi={tanker}", headers=api.h("viewer")).json()["leads"]
    assert leads == []
    assert worker.registry_loaded >= 1


@pytest.mark.parametrize(
    "mmsi",
    [
        "71000123\u00b2",  # a superscript two: str.isdigit says yes, int() says no (was a 500)
        "\u0667\u0661\u0660\u0660\u0660\u0660\u0663\u0663\u0663",  # Arabic-Indic 710000333
        "\uff17\uff11\uff10\uff10\uff10\uff10\uff13\uff13\uff13",  # fullwidth 710000333
        "\u06f7\u06f1\u06f0\u06f0\u06f0\u06f0\u06f3\u06f3\u06f3",  # Persian 710000333
    ],
)
def test_an_mmsi_in_other_digits_is_a_row_error_and_adds_nothing(api: Api, mmsi: str) -> None:
    status, problem = _import(api, f"mmsi,zone_id\n710000111,plat-p66\n{mmsi},plat-p66\n")
    assert status == 400, problem
    assert "1 bad row" in problem["detail"] and "line 3" in problem["detail"]
    assert api.client.get("/authorised-vessels", headers=api.h("admin")).json()["entries"] == []


def test_every_bad_row_is_counted(api: Api) -> None:
    rows = "".join(f"7100001{i:02d}\u00b2,plat-p66\n" for i in range(25))
    status, problem = _import(api, "mmsi,zone_id\n" + rows + "710000111,plat-p66\n")
    # 25 bad rows counted; the first 20 named (lines 2..21), the others summed up
    assert status == 400 and problem["detail"].startswith("25 bad row(s)")
    assert "line 21:" in problem["detail"] and "line 22:" not in problem["detail"]
    assert problem["detail"].endswith("5 more")


def test_a_large_import_is_stored_whole_across_batches(api: Api) -> None:
    """Written in transactions of a few rows, the import still comes back complete, in
    file order, and the register lists every row once."""
    entries = [Authorisation(710_000_000 + i, zone_id="plat-p66") for i in range(7)]
    stored = api.repo.add_authorisations(entries, batch=3)  # type: ignore[call-arg]
    assert [e.mmsi for e in stored] == [e.mmsi for e in entries]
    assert len({e.id for e in stored}) == 7
    assert [e.mmsi for e in api.repo.list_authorisations()] == [e.mmsi for e in entries]


def test_healthz_answers_while_a_large_csv_is_imported(store_url: str, tmp_path: Path) -> None:
    """Over a real socket: /healthz polled while 60,000 rows are imported answers every
    time within a second (the import used to run on the event loop and stall every
    request for tens of seconds), and the import itself succeeds."""
    rows = 60_000
    body = "mmsi,zone_id\n" + "".join(f"{710_000_000 + i},plat-p66\n" for i in range(rows))
    svc = Service(tmp_path, store_url).start()
    latencies: list[float] = []
    done = threading.Event()

    def poll() -> None:
        with httpx.Client(base_url=svc.base, timeout=30) as client:
            while not done.is_set():
                t0 = time.perf_counter()
                client.get("/healthz").raise_for_status()
                latencies.append(time.perf_counter() - t0)
                time.sleep(0.05)

    poller = threading.Thread(target=poll, daemon=True)
    try:
        poller.start()
        r = httpx.post(
            f"{svc.base}/authorised-vessels/import",
            content=body.encode(),
            headers={"X-API-Key": ADMIN_KEY, "Content-Type": "text/csv"},
            timeout=300,
        )
        done.set()
        poller.join(60)
    finally:
        done.set()
        svc.stop()
    assert r.status_code == 201, r.text[:500]
    assert len(r.json()["entries"]) == rows
    assert len(latencies) >= 5  # the import lasted long enough to be polled meanwhile
    assert max(latencies) < 1.0, sorted(latencies)[-5:]
