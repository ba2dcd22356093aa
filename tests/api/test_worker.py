"""The worker inside the app: replayed NMEA -> store -> API, counters, metrics, leads."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyais import encode_dict
from pyproj import Geod

from tests.api.conftest import BUNDLED, Api, make_settings, start
from tests.support.nmea import timestamped
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import Position
from vigia.ingest.sources import FileSource
from vigia.service.db.codec import storable
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.settings import IngestSettings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

pytestmark = pytest.mark.postgis
GEOD = Geod(ellps="WGS84")
P66 = (-40.05, -22.37)
T0 = 1_709_294_400  # 2024-03-01T12:00:00Z
MMSI = 710000111


def _tagged(line: str, t: int) -> str:
    return timestamped(line, t)


def crossing_lines() -> list[str]:
    """A boat at 8 kn passing 50 m north of P-66, west to east, a fix every 10 s."""
    start_lon, start_lat, _ = GEOD.fwd(P66[0], P66[1], 270, 2000)
    start_lon, start_lat, _ = GEOD.fwd(start_lon, start_lat, 0, 50)
    lines = []
    for k in range(100):
        lon, lat, _ = GEOD.fwd(start_lon, start_lat, 90, 8 * 1852 / 3600 * 10 * k)
        msg = {
            "type": 1,
            "mmsi": MMSI,
            "lon": lon,
            "lat": lat,
            "speed": 8.0,
            "course": 90.0,
            "status": 0,
            "heading": 90,
        }
        for sentence in encode_dict(msg, radio_channel="A", talker_id="AI"):
            lines.append(_tagged(sentence, T0 + 10 * k))
    return lines


def _wait(predicate, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


@pytest.fixture
def running(store_url: str, tmp_path: Path, fixtures: Path) -> Iterator[Api]:
    """The app with its worker replaying the pyais sample and a synthetic crossing."""
    synthetic = tmp_path / "crossing.nmea"
    synthetic.write_text("\n".join(crossing_lines()) + "\n")
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(
        worker=True,
        files=[str(fixtures / "pyais_nmea_data_sample.txt"), str(synthetic)],
        flush_interval_s=0.2,
    )
    for api in start(settings):
        worker = api.client.app.state.worker  # type: ignore[attr-defined]
        assert worker.wait_idle(60)
        yield api


def test_replayed_lines_reach_the_store_the_counters_and_the_metrics(running: Api) -> None:
    h = running.h("viewer")
    body = running.client.get("/ingest/counters", headers=h).json()
    counters = body["counters"]
    assert body["worker_running"] is True
    assert counters["lines"] == 898 + 100
    assert counters["decoded_lines"] == 770 + 100
    assert counters["undecodable"] == 100
    # the sample has no tag blocks: its lines are read in one block, yet each gets its own
    # receipt time, so every storable report is its own row (issue 9 case 4)
    ing = Ingestor()
    sample = FileSource(FIXTURES / "pyais_nmea_data_sample.txt").lines()
    want = sum(1 for r in ing.feed_many(sample) if isinstance(r, Position) and storable(r))
    assert counters["positions_stored"] == 100 + want

    ours = running.client.get(f"/vessels/{MMSI}/track", headers=h).json()["features"]
    assert ours[0]["geometry"]["type"] == "LineString" and len(ours) == 101
    greek = running.client.get("/vessels?bbox=20,36,24,38&limit=1000", headers=h).json()
    assert len({f["properties"]["mmsi"] for f in greek["features"]}) >= 10

    text = running.client.get("/metrics", headers=h).text
    assert 'vigia_sentences_total{result="decoded"} 870.0' in text
    # valid types no rule uses are apart from the errors (issue 9 case 9)
    assert 'vigia_sentences_total{result="not_used"}' in text
    assert 'vigia_decode_errors_total{reason="unsupported_type"}' not in text
    assert "vigia_worker_behind_seconds" in text and "vigia_ingest_queue_lines" in text
    assert 'vigia_decode_errors_total{reason="undecodable"} 100.0' in text
    assert 'vigia_leads_total{rule="SEC-PLATFORM"} 1.0' in text
    stored = next(x for x in text.splitlines() if x.startswith("vigia_positions_stored_total"))
    assert float(stored.split()[1]) == counters["positions_stored"]
    assert "vigia_ingest_lag_seconds" in text

    ready = running.client.get("/readyz", headers=h).json()
    assert ready["worker"] == "running" and ready["last_message_age_s"] is not None


def test_the_crossing_raises_one_platform_lead_with_its_evidence(running: Api) -> None:
    h = running.h("viewer")
    leads = running.client.get(f"/leads?mmsi={MMSI}", headers=h).json()["leads"]
    assert [x["rule"] for x in leads] == ["SEC-PLATFORM"]
    lead = leads[0]
    assert lead["zone_id"] == "plat-p66" and lead["min_distance_m"] < 60
    assert lead["started_at"] >= "2024-03-01T12:0"
    ev = running.client.get(f"/leads/{lead['id']}/evidence", headers=h).json()
    assert ev["features"][0]["geometry"]["type"] == "LineString"


def test_a_zone_edit_rebuilds_the_running_worker_s_index(running: Api) -> None:
    worker = running.client.app.state.worker  # type: ignore[attr-defined]
    assert worker.zone_count == len(BUNDLED)
    r = running.client.delete("/collections/zones/items/anch-santos", headers=running.h("admin"))
    assert r.status_code == 204
    _wait(lambda: worker.zone_count == len(BUNDLED) - 1)


def test_counters_survive_a_restart(store_url: str, tmp_path: Path, fixtures: Path) -> None:
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(worker=True, files=[str(fixtures / "pyais_mixed.txt")])
    for _ in range(2):
        for api in start(settings):
            assert api.client.app.state.worker.wait_idle(30)  # type: ignore[attr-defined]
    settings.ingest = IngestSettings(worker=False)
    for api in start(settings):
        counters = api.client.get("/ingest/counters", headers=api.h("viewer")).json()["counters"]
        assert counters["lines"] == 2 * len((fixtures / "pyais_mixed.txt").read_text().splitlines())
    json.dumps(counters)


def test_a_replay_larger_than_the_write_buffer_waits_for_the_store_and_loses_nothing(
    store_url: str, tmp_path: Path, fixtures: Path
) -> None:
    synthetic = tmp_path / "crossing.nmea"
    synthetic.write_text("\n".join(crossing_lines()) + "\n")
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(worker=True, files=[str(synthetic)] * 3, write_buffer=16)
    for api in start(settings):
        assert api.client.app.state.worker.wait_idle(60)  # type: ignore[attr-defined]
        counters = api.client.get("/ingest/counters", headers=api.h("viewer")).json()["counters"]
        assert counters["positions_dropped"] == 0
        # three replays of the same 100 tagged fixes: 300 accepted, 100 distinct rows
        assert counters["positions_stored"] == 100
        track = api.client.get(f"/vessels/{MMSI}/track", headers=api.h("viewer")).json()
        assert len(track["features"]) == 101


def test_tcp_feeds_and_udp_ports_from_settings_reach_the_store(
    store_url: str, tmp_path: Path, fixtures: Path
) -> None:
    lines = crossing_lines()
    server = socket.create_server(("127.0.0.1", 0))
    tcp_port = server.getsockname()[1]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        udp_port = probe.getsockname()[1]

    def feed_tcp() -> None:
        conn, _ = server.accept()
        with conn:
            conn.sendall(("\r\n".join(lines[:50]) + "\r\n").encode())
            time.sleep(0.5)

    feeder = threading.Thread(target=feed_tcp, daemon=True)
    feeder.start()
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(
        worker=True,
        tcp_feeds=[f"127.0.0.1:{tcp_port}"],
        udp_ports=[udp_port],
        udp_host="127.0.0.1",
        flush_interval_s=0.2,
        counters_interval_s=0.2,
        max_behind_s=None,  # these live feeds replay 2024 on purpose
    )
    try:
        for api in start(settings):
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                for line in lines[50:]:
                    udp.sendto((line + "\n").encode(), ("127.0.0.1", udp_port))

            def counted(api: Api = api) -> int:
                r = api.client.get("/ingest/counters", headers=api.h("viewer"))
                return int(r.json()["counters"].get("positions_stored", 0))

            _wait(lambda: counted() == 100)
            track = api.client.get(f"/vessels/{MMSI}/track", headers=api.h("viewer")).json()
            assert len(track["features"]) == 101
    finally:
        server.close()
        feeder.join(5)


def test_a_udp_message_from_2286_neither_stays_in_2286_nor_drives_the_clock(
    store_url: str, tmp_path: Path
) -> None:
    """Issue 15 item 2: one datagram whose tag block says c:9999999999."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        udp_port = probe.getsockname()[1]
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(
        worker=True, udp_ports=[udp_port], flush_interval_s=0.2, counters_interval_s=0.2
    )
    assert settings.ingest.udp_host == "127.0.0.1"
    now = int(time.time())
    lines = [line.rsplit("\\", 1)[-1] for line in crossing_lines()[:3]]
    for api in start(settings):
        worker = api.client.app.state.worker  # type: ignore[attr-defined]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(
                (_tagged(lines[0], 9_999_999_999) + "\r\n").encode(), ("127.0.0.1", udp_port)
            )
            time.sleep(0.3)
            # and then real reports of the same vessel, a few seconds later
            for k, line in enumerate(lines[1:], 1):
                udp.sendto((_tagged(line, now + k) + "\r\n").encode(), ("127.0.0.1", udp_port))

        def stored(api: Api = api) -> int:
            r = api.client.get("/ingest/counters", headers=api.h("viewer"))
            return int(r.json()["counters"].get("positions_stored", 0))

        _wait(lambda: stored() == 3)
        body = api.client.get("/ingest/counters", headers=api.h("viewer")).json()
        assert body["counters"]["time_ahead"] == 1
        assert set(body["backlog"]) == {"queued_lines", "behind_s"}
        assert body["backlog"]["behind_s"] < 5
        track = api.client.get(f"/vessels/{MMSI}/track", headers=api.h("viewer")).json()
        times = [
            f["properties"].get("t") for f in track["features"] if f["geometry"]["type"] == "Point"
        ]
        latest = api.client.get(f"/vessels/{MMSI}", headers=api.h("viewer")).json()
        assert "2286" not in json.dumps(track) and "2286" not in json.dumps(latest)
        # the stream clock never went to 2286: it is within minutes of now
        assert worker._stream_t < time.time() + 600, times


def test_posting_an_empty_collection_does_not_split_an_open_platform_breach(
    store_url: str, tmp_path: Path
) -> None:
    # the crossing cut while the boat is still inside P-66's 500 m: its lead stays open
    synthetic = tmp_path / "inside.nmea"
    synthetic.write_text("\n".join(crossing_lines()[:55]) + "\n")
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(worker=True, files=[str(synthetic)], flush_interval_s=0.2)
    for api in start(settings):
        h = api.h("viewer")
        worker = api.client.app.state.worker  # type: ignore[attr-defined]
        assert worker.wait_idle(60)
        before = api.client.get(f"/leads?mmsi={MMSI}", headers=h).json()["leads"]
        assert len(before) == 1 and before[0]["ended_at"] is None
        swaps = worker.zone_swaps
        empty = {"type": "FeatureCollection", "features": []}
        r = api.client.post("/collections/zones/items", json=empty, headers=api.h("admin"))
        assert r.status_code == 201
        _wait(lambda w=worker, n=swaps: w.zone_swaps > n)
        time.sleep(0.6)  # a few ticks: the worker writes whatever the swap handed over
        after = api.client.get(f"/leads?mmsi={MMSI}", headers=h).json()["leads"]
        assert len(after) == 1
        assert after[0]["id"] == before[0]["id"] and after[0]["ended_at"] is None
        assert "closed_by" not in after[0]["details"]


def test_under_a_backlog_a_lead_cites_the_zone_version_in_force_at_its_first_position(
    api: Api,
) -> None:
    """A live feed 10 minutes behind: P-66 is edited (version 2) at wall time E while the
    crossing sent before E still waits in the queue. Those positions were sent under
    version 1, so their lead cites version 1; the edit applies from E on."""
    from vigia.ingest.records import RawLine
    from vigia.service.db.protocol import LeadQuery
    from vigia.service.runtime.worker import IngestWorker
    from vigia.zones.catalogue import parse_feature_collection

    lines = crossing_lines()
    edit_at = float(T0 + 10 * 80)  # after the crossing's pass through the 500 m
    zones = api.repo.list_zones(None, None, 100)[0]
    v1 = next(z for z in zones if z.id == "plat-p66")
    worker = IngestWorker(
        api.repo, IngestSettings(worker=True), zones, sources=[], clock=lambda: edit_at
    )
    edited = {**BUNDLED[0], "properties": {**BUNDLED[0]["properties"], "distance_m": 450.0}}
    stored = api.repo.put_zones(
        parse_feature_collection({"type": "FeatureCollection", "features": [edited]})
    )
    assert v1.version == 1 and stored[0].version == 2
    worker.reload_zones(api.repo.list_zones(None, None, 100)[0])
    # the backlog arrives in one batch, each line received 2 s after it was sent (live)
    batch = [RawLine(x, T0 + 10 * k + 2.0, "udp") for k, x in enumerate(lines)]
    worker._process(batch)
    worker._writer_leads(worker._pipeline.finish())
    worker._writer.close()
    assert worker.zone_swaps == 1
    leads = api.repo.list_leads(LeadQuery(mmsi=MMSI), 10, scope=EVERY_AUTHORITY)[0]
    assert [(x.zone_id, x.zone_version) for x in leads] == [("plat-p66", 1)]
