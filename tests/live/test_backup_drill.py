"""The disaster drill of issue 38, on both stores.

A real ``vigia serve`` ingests the demo over TCP and serves an SSE client and a webhook
receiver; a day of it is archived; ``vigia backup`` runs while more traffic arrives;
more work (a lead dismissed) follows; the service is killed with SIGKILL and its store,
archive and spool deleted; ``vigia restore`` puts the backup into new paths (a new
SQLite file, a new database) and a new service starts on them. Everything up to the
backup is back (the restore's fingerprint of every table, the archived tracks, the
events), no event id names two events, and the SSE client resuming with its last id
(issued after the backup by the lost store) gets a ``stream.reset`` and then the new
events, as the webhook receiver gets them under ids it has never seen.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.live.receiver import Receiver
from tests.live.service import Service, SseClient, _vigia
from tests.support.dashboard import FeedServer
from tests.support.nmea import timestamped
from tests.support.pg import database, url_of
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository

ROOT = Path(__file__).resolve().parents[2]
DEMO = [
    line
    for line in (ROOT / "data" / "demo" / "rio_demo.nmea").read_text().splitlines()
    if line and not line.startswith("#")
]
WEEK = 7 * 86_400
DEMO_SPAN = (1_768_050_000.0, 1_768_060_000.0)  # 2026-01-10, the demo's hour (archived)


def _shifted(line: str, by: float) -> str:
    """The demo line with its tag-block time moved by ``by`` seconds."""
    stamp, _, rest = line[1:].partition("\\")
    t = float(stamp.split("*")[0].removeprefix("c:"))
    return timestamped(rest, t + by)


def _env(workdir: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
    return env | {
        "DATABASE_URL": url,
        "VIGIA_INGEST_SPOOL_DIR": str(workdir / "spool"),
        "VIGIA_DATA_DIR": str(workdir / "data"),
    }


def _cli(workdir: Path, url: str, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [*_vigia(), *args], env=_env(workdir, url), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr + done.stdout
    out: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
    return out


def _service_env(feed: FeedServer) -> dict[str, str]:
    return {
        "VIGIA_INGEST_WORKER": "true",
        "VIGIA_LOAD_BUNDLED": "true",
        "VIGIA_INGEST_TCP_FEEDS": f"127.0.0.1:{feed.port}",
        "VIGIA_INGEST_MAX_BEHIND_S": str(10 * 365 * 86_400),
        "VIGIA_INGEST_FLUSH_INTERVAL_S": "0.2",
        "VIGIA_RETENTION_HOT_DAYS": "off",
    }


def _settled(svc: Service, timeout: float = 60.0) -> int:
    """Wait until the stored leads stop changing; their count."""
    last, since = -1, time.monotonic()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, body = svc.request("GET", "/leads?limit=1")
        n = int(body["numberMatched"]) if "numberMatched" in body else len(body["leads"])
        if n != last:
            last, since = n, time.monotonic()
        elif n > 0 and time.monotonic() - since > 3:
            return n
        time.sleep(0.3)
    raise TimeoutError("the leads never settled")


def _dismiss_one(svc: Service, taken: set[str]) -> str:
    _, body = svc.request("GET", "/leads?limit=100")
    items = body.get("leads") or body.get("features") or []
    for item in items:
        lead_id = item.get("id")
        if lead_id in taken:
            continue
        status, _ = svc.request("PATCH", f"/leads/{lead_id}", {"status": "dismissed",
                                                                "reason": "drill"})  # fmt: skip
        if status == 200:
            taken.add(lead_id)
            return str(lead_id)
    raise AssertionError(f"no lead could be dismissed among {len(items)}")


def _tracks(url: str, archive: Path, mmsis: list[int]) -> dict[int, list[Any]]:
    repo = open_repository(url, archive_dir=archive)
    try:
        return {m: repo.track(m, *DEMO_SPAN) for m in mmsis}
    finally:
        repo.close()


@pytest.fixture(params=["sqlite", "postgis"])
def places(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The lost store's URL and the new one restored into (which does not exist yet)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'a' / 'v.sqlite'}", f"sqlite:///{tmp_path / 'b' / 'r.sqlite'}"
        return
    with ExitStack() as stack:
        lost = stack.enter_context(database())
        name = f"vigia_t_{uuid.uuid4().hex[:12]}"
        yield lost, url_of(name)
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", name],
                       check=False, capture_output=True)  # fmt: skip


def test_drill(places: tuple[str, str], tmp_path: Path) -> None:
    url_a, url_b = places
    work_a, work_b, dest = tmp_path / "a", tmp_path / "b", tmp_path / "backup"
    work_a.mkdir(exist_ok=True)
    work_b.mkdir(exist_ok=True)
    rx = Receiver().start()
    feed = FeedServer()
    a = Service(work_a, url_a, env_extra=_service_env(feed)).start()
    sse: SseClient | None = None
    try:
        _, hook = a.request("POST", "/webhooks", {"url": rx.url, "allow_private": True})
        rx.secret = hook["secret"]
        sse = SseClient(f"{a.base}/leads/stream")
        assert sse.connected.wait(10)
        feed.send(DEMO)
        _settled(a)
        # January 2026 leaves the store for the archive
        _cli(work_a, url_a, "archive", "--older-than", "30")
        archive_a = next((work_a / "data").glob("*/vigia-archive"), work_a / "vigia-archive")
        assert list(archive_a.glob("day=*/*.parquet")), "nothing was archived"
        # the backup runs while a week later's traffic comes in
        stop = threading.Event()

        def traffic() -> None:
            later = [_shifted(line, WEEK) if line.startswith("\\c:") else line for line in DEMO]
            for i in range(0, len(later), 10):
                if stop.is_set():
                    return
                feed.send(later[i : i + 10])
                time.sleep(0.05)

        sender = threading.Thread(target=traffic, daemon=True)
        sender.start()
        time.sleep(0.3)
        took = time.monotonic()
        _cli(work_a, url_a, "backup", str(dest), "--fingerprint")
        took = time.monotonic() - took
        sender.join(60)
        verified = _cli(work_a, url_a, "backup", "--verify", str(dest))
        assert verified["ok"], verified
        manifest = json.loads((dest / "manifest.json").read_text())
        backup_head = int(manifest["store"]["events"]["last_event_id"])
        assert manifest["archive"]["days"] and manifest["store"]["archived_days"]
        # more work after the backup: the lost store issues ids the backup lacks
        _settled(a)
        dismissed: set[str] = set()
        _dismiss_one(a, dismissed)
        time.sleep(1.5)
        seen = sse.wait_for(1)
        assert int(seen[-1][0]) > backup_head
        before_hooks = {wid: ev for wid, ev in rx.received}
        mmsis = sorted({int(e[2]["mmsi"]) for e in seen if "mmsi" in e[2]})
        tracks_before = _tracks(url_a, archive_a, mmsis)
        assert sum(len(t) for t in tracks_before.values()) > 0
    finally:
        if sse is not None:
            sse.close()
        a.kill9()
    last_id = seen[-1][0]

    # the disaster: everything of the first service is gone
    shutil.rmtree(work_a)
    if url_a.startswith("postgresql"):
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--force",
                        url_a.rpartition("/")[2]], check=True)  # fmt: skip

    report = _cli(work_b, url_b, "restore", str(dest))
    assert report["fingerprint"] == "matches"
    assert report["archive_check"]["missing_days"] == []
    assert report["events"]["backup_last_id"] == backup_head
    new_from = int(report["events"]["new_ids_from"])
    assert new_from > int(last_id)
    archive_b = next((work_b / "data").glob("*/vigia-archive"), work_b / "vigia-archive")
    # everything up to the backup: the archived tracks, and every event as it was served
    assert _tracks(url_b, archive_b, mmsis) == tracks_before
    restored = open_repository(url_b)
    assert isinstance(restored, SqlRepository)
    try:
        stored = {e.id: e for e in restored.events_after(0, 100_000, scope=EVERY_AUTHORITY)}
    finally:
        restored.close()
    for event_id, kind, data in seen:
        if int(event_id) <= backup_head:
            assert stored[int(event_id)].type == kind
            assert stored[int(event_id)].data == data

    feed_b = FeedServer()
    b = Service(work_b, url_b, env_extra=_service_env(feed_b)).start()
    sse_b = SseClient(f"{b.base}/leads/stream", last_id=last_id)
    try:
        first = sse_b.wait_for(1)[0]
        assert first[1] == "stream.reset", first
        assert first[2]["reason"] == "not_in_this_store"
        assert first[2]["leads"], "the reset carries the current leads"
        new_lead = _dismiss_one(b, dismissed)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            got = [e for e in sse_b.events[1:] if e[2].get("id") == new_lead]
            hooked = [w for w, ev in rx.received if ev["subject"] == new_lead
                      and ev["type"] == "lead.status" and w not in before_hooks]  # fmt: skip
            if got and hooked:
                break
            time.sleep(0.2)
        assert got and hooked, (sse_b.events, rx.received[-3:])
        # the client gets the new events under new ids, each once
        ids = [int(e[0]) for e in sse_b.events[1:]]
        assert ids and min(ids) >= new_from and len(ids) == len(set(ids))
        # no webhook-id names two events: one seen before names the same event now
        for wid, ev in rx.received:
            if wid in before_hooks:
                assert ev == before_hooks[wid], wid
        status, ready = b.request("GET", "/readyz")
        assert status == 200 and ready["archive"]["missing_days"] == []
    finally:
        sse_b.close()
        b.stop()
        rx.stop()
    assert took < 120
