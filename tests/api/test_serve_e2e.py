"""`vigia serve` as a real process on a real port, replaying real NMEA into SQLite."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from vigia.service.db.store import open_repository

pytestmark = pytest.mark.slow


def _vigia() -> list[str]:
    exe = shutil.which("vigia")
    return [exe] if exe else [sys.executable, "-m", "vigia.service.cli"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, key: str | None) -> tuple[int, Any]:
    req = urllib.request.Request(url, headers={"X-API-Key": key} if key else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_serve_replays_a_file_and_answers_over_a_socket(tmp_path: Path, fixtures: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
    env.pop("DATABASE_URL", None)
    created = subprocess.run(
        [*_vigia(), "apikey", "create", "--role", "viewer", "--name", "e2e"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    key = created.stdout.strip()
    assert len(key) >= 40 and key not in (tmp_path / "vigia.sqlite").read_bytes().decode("latin-1")

    port = _free_port()
    env["VIGIA_INGEST_FILES"] = str(fixtures / "pyais_nmea_data_sample.txt")
    proc = subprocess.Popen(
        [*_vigia(), "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        counters: dict[str, Any] = {}
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            try:
                status, body = _get(f"{base}/ingest/counters", key)
            except (ConnectionError, urllib.error.URLError):
                time.sleep(0.2)
                continue
            counters = body["counters"]
            if counters.get("lines") == 898 and counters.get("positions_stored", 0) > 0:
                break
            time.sleep(0.2)
        assert counters.get("lines") == 898, counters
        assert counters["decoded_lines"] == 770

        assert _get(f"{base}/healthz", None) == (200, {"status": "ok"})
        status, problem = _get(f"{base}/vessels", None)
        assert status == 401 and problem["status"] == 401
        status, body = _get(f"{base}/vessels?bbox=20,36,24,38&limit=1000", key)
        assert status == 200 and body["type"] == "FeatureCollection"
        mmsis = {f["properties"]["mmsi"] for f in body["features"]}
        assert 237836700 in mmsis and len(mmsis) >= 10
        status, zones = _get(f"{base}/collections/zones/items?limit=1", key)
        assert status == 200 and zones["numberMatched"] > 0  # the bundled zones were loaded
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    # uvicorn shuts down gracefully, then re-raises SIGTERM so the exit status tells why
    assert proc.returncode in (0, -signal.SIGTERM), out
    repo = open_repository(None, sqlite_path=str(tmp_path / "vigia.sqlite"))
    try:  # the lifespan stopped the worker, which persisted its counters
        assert repo.load_counters()["lines"] == 898
    finally:
        repo.close()


def test_worker_only_ingests_without_serving_and_stops_cleanly(
    tmp_path: Path, fixtures: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
    env.pop("DATABASE_URL", None)
    env |= {
        "VIGIA_INGEST_FILES": str(fixtures / "pyais_nmea_data_sample.txt"),
        "VIGIA_INGEST_COUNTERS_INTERVAL_S": "0.2",
        "VIGIA_LOAD_BUNDLED": "false",
        "VIGIA_HEARTBEAT_FILE": str(tmp_path / "alive"),
    }
    port = _free_port()
    health_cmd = [*_vigia(), "healthcheck", "--port", str(port)]
    # nothing running: the container's health check must say so
    assert subprocess.run(health_cmd, env=env, cwd=tmp_path, timeout=60).returncode == 1
    proc = subprocess.Popen(
        [*_vigia(), "serve", "--worker-only", "--port", str(port), "--log-level", "warning"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        lines = 0
        while time.monotonic() < deadline and lines < 898:
            assert proc.poll() is None
            time.sleep(0.3)
            if (tmp_path / "vigia.sqlite").exists():
                repo = open_repository(None, sqlite_path=str(tmp_path / "vigia.sqlite"))
                try:
                    lines = repo.load_counters().get("lines", 0)
                except Exception:  # the schema may still be migrating
                    lines = 0
                finally:
                    repo.close()
        assert lines == 898
        # no API in this mode, but the worker's own probe: healthy, and its metrics show
        # what it stored (an API process beside it would say 0)
        status, health = _get(f"http://127.0.0.1:{port}/healthz", None)
        assert status == 200 and health["worker_running"] is True
        # the counters are saved as lines are decoded, the positions by the writer a
        # moment later: under load the first scrape may precede the first commit
        stored: list[str] = []
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
                metrics = r.read().decode()
            assert "vigia_worker_running 1.0" in metrics
            stored = [ln for ln in metrics.splitlines() if ln.startswith("vigia_positions_stored")]
            if stored and float(stored[0].split()[-1]) > 0:
                break
            time.sleep(0.3)
        assert stored and float(stored[0].split()[-1]) > 0, stored
        with pytest.raises(urllib.error.HTTPError) as err:  # and no API routes
            urllib.request.urlopen(f"http://127.0.0.1:{port}/leads", timeout=10)
        assert err.value.code == 404
        # ... and the container health check sees the worker alive (probe or heartbeat)
        assert subprocess.run(health_cmd, env=env, cwd=tmp_path, timeout=60).returncode == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
