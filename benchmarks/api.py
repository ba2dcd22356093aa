"""Latency of ``GET /vessels?bbox=`` over HTTP on PostGIS with 100,000 vessels loaded.

Usage: python -m benchmarks.api [--vessels 100000] [--requests 300] [--reps 3]
                                [--size-deg 1.0] [--limit 1000] [--quick]

Creates (and drops) a database on the machine's PostgreSQL (``VIGIA_TEST_DATABASE_URL``'s
server), loads one latest position for each of ``--vessels`` vessels spread over Brazilian
waters, then runs ``vigia serve`` as a real process and times sequential requests for
random ``--size-deg`` viewports from this process over a keep-alive connection:

- baseline: the API alone (``--no-worker``), nothing else running;
- under ingest: the API and the worker in one process, the worker replaying the
  100,000-message corpus over and over into the same store while the requests run;
- the same with a 1 ms thread switch interval (``VIGIA_API_SWITCH_INTERVAL_S``), which
  trades ingest rate for API latency;
- a live feed: the worker in the API's process reading a TCP feed paced at
  ``--feed-rate`` lines/s (a national AIS feed is in the low thousands);
- split: the same ingest in a ``--worker-only`` process beside a ``--no-worker`` API.

Prints the median over ``--reps`` runs of p50 and p99 (milliseconds), the ratio against
the baseline, the features per response, and the ingest rate during the measurement.
``--quick`` (a smoke run): 2,000 vessels, 20 requests, one rep, every phase, the
repository's real sample as the traffic.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

import httpx  # noqa: E402
import numpy as np  # noqa: E402
import psycopg  # noqa: E402

from benchmarks._data import corpus  # noqa: E402
from vigia.ingest.records import Position  # noqa: E402
from vigia.service.db.store import open_repository  # noqa: E402
from vigia.service.http.app import new_api_key  # noqa: E402
from vigia.service.http.deps import hash_key  # noqa: E402

BRAZIL = (-48.0, -28.0, -34.0, -2.0)  # the coast out to about 200 nm
ADMIN_URL = os.environ.get(
    "VIGIA_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/vigia_test"
)


def temp_database() -> tuple[str, str]:
    """A new empty database with PostGIS: its SQLAlchemy URL and its name."""
    name = f"vigia_bench_{uuid.uuid4().hex[:10]}"
    admin = ADMIN_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = f"{ADMIN_URL.rpartition('/')[0]}/{name}"
    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS postgis")
    return url, name


def drop_database(name: str) -> None:
    """Drop the benchmark's database."""
    admin = ADMIN_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def load(url: str, n: int) -> str:
    """Migrate, load ``n`` vessels' latest positions, and return a viewer key."""
    repo = open_repository(url)
    try:
        repo.migrate()
        rng = np.random.default_rng(7)
        lon = rng.uniform(BRAZIL[0], BRAZIL[2], n)
        lat = rng.uniform(BRAZIL[1], BRAZIL[3], n)
        t0 = time.time() - 3600
        batch = [
            Position(300_000_000 + i, t0 + i * 0.01, 1, float(lon[i]), float(lat[i]), 5.0)
            for i in range(n)
        ]
        for i in range(0, n, 10_000):
            repo.add_positions(batch[i : i + 10_000])
        key = new_api_key()
        repo.add_api_key("bench", "viewer", hash_key(key))
    finally:
        repo.close()
    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute("ANALYZE")
    return key


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(
    url: str,
    port: int,
    files: list[str] | None,
    mode: str | None = None,
    switch: float | None = None,
    feed: str | None = None,
) -> subprocess.Popen[bytes]:
    """``vigia serve`` on ``port`` (``mode``: ``--no-worker`` or ``--worker-only``), the
    worker replaying ``files``; waits until the API answers (unless worker-only)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
    env |= {"DATABASE_URL": url, "VIGIA_INGEST_COUNTERS_INTERVAL_S": "1"}
    if switch is not None:
        env["VIGIA_API_SWITCH_INTERVAL_S"] = str(switch)
    args = [sys.executable, "-m", "vigia.service.cli", "serve", "--port", str(port)]
    args += ["--log-level", "warning"]
    if files:
        env["VIGIA_INGEST_FILES"] = ",".join(files)
    if feed:
        env["VIGIA_INGEST_TCP_FEEDS"] = feed
    if mode:
        args.append(mode)
    proc = subprocess.Popen(args, cwd=ROOT, env=env)
    if mode == "--worker-only":
        return proc
    # as generous as the tests' Service: a loaded machine takes long to import the app
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"vigia serve exited with status {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("vigia serve did not come up")


def measure(
    client: httpx.Client, n: int, size: float, limit: int, seed: int
) -> tuple[list[float], float]:
    """Milliseconds of ``n`` bbox requests, and the mean number of features returned."""
    rng = np.random.default_rng(seed)
    out, features = [], 0
    for _ in range(n):
        x = float(rng.uniform(BRAZIL[0], BRAZIL[2] - size))
        y = float(rng.uniform(BRAZIL[1], BRAZIL[3] - size))
        t = time.perf_counter()
        r = client.get(
            "/vessels", params={"bbox": f"{x},{y},{x + size},{y + size}", "limit": limit}
        )
        out.append((time.perf_counter() - t) * 1000)
        r.raise_for_status()
        features += len(r.json()["features"])
    return out, features / n


def pct(xs: list[float], q: float) -> float:
    """The q-th percentile."""
    return float(np.percentile(np.asarray(xs), q))


def lines_read(client: httpx.Client) -> int:
    """Lines the worker has processed so far (persisted every second by a separate one)."""
    counters: dict[str, Any] = client.get("/ingest/counters").json()["counters"]
    return int(counters.get("lines_processed", 0))


class PacedFeed:
    """A TCP feed on 127.0.0.1 sending the corpus over and over at ``rate`` lines/s, the
    way a live AIS network feed arrives."""

    def __init__(self, rate: int, traffic: Path) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.server.getsockname()[1]}"
        self.rate = rate
        self.stop = threading.Event()
        self.lines = traffic.read_bytes().splitlines(keepends=True)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        conn, _ = self.server.accept()
        per_tick, i, t = max(1, self.rate // 100), 0, time.perf_counter()
        with conn:
            while not self.stop.is_set():
                chunk = [self.lines[(i + k) % len(self.lines)] for k in range(per_tick)]
                i += per_tick
                try:
                    conn.sendall(b"".join(chunk))
                except OSError:
                    return
                t += 0.01
                time.sleep(max(0.0, t - time.perf_counter()))

    def close(self) -> None:
        """Stop sending and close the listening socket."""
        self.stop.set()
        self.server.close()


def run_phase(
    url: str,
    key: str,
    args: argparse.Namespace,
    files: list[str] | None,
    split: bool = False,
    switch: float | None = None,
    feed_rate: int | None = None,
) -> tuple[list[tuple[float, float]], float, float]:
    """(p50, p99) per rep, mean features per response, and ingest lines/s while measuring;
    ``split`` runs the worker as its own process beside an API-only one; ``feed_rate``
    feeds the in-process worker from a paced TCP feed instead of files."""
    port = free_port()
    procs = []
    feed = PacedFeed(feed_rate, args.corpus) if feed_rate else None
    if split:
        procs.append(serve(url, free_port(), files, "--worker-only"))
        time.sleep(3)  # let the worker get going
    in_process = files if files and not split else None
    mode = None if in_process or feed else "--no-worker"
    procs.append(serve(url, port, in_process, mode, switch, feed.address if feed else None))
    files = files or ([] if feed is None else ["feed"])
    results, feats, rates = [], 0.0, []
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={"X-API-Key": key}, timeout=30
        ) as client:
            measure(client, args.warmup, args.size_deg, args.limit, 0)
            for rep in range(args.reps):
                before, t0 = lines_read(client) if files else 0, time.perf_counter()
                ms, feats = measure(client, args.requests, args.size_deg, args.limit, rep + 1)
                if files:
                    rates.append((lines_read(client) - before) / (time.perf_counter() - t0))
                results.append((pct(ms, 50), pct(ms, 99)))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)
        if feed is not None:
            feed.close()
    return results, feats, statistics.median(rates) if rates else 0.0


def main() -> int:
    """Run both phases and print the figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vessels", type=int, default=100_000)
    p.add_argument("--requests", type=int, default=300)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--size-deg", type=float, default=1.0)
    p.add_argument("--limit", type=int, default=1000)
    p.add_argument("--replays", type=int, default=20, help="times the corpus is replayed")
    p.add_argument("--feed-rate", type=int, default=2_000, help="live feed lines/s")
    p.add_argument("--quick", action="store_true", help="small sizes, every phase: a smoke run")
    args = p.parse_args()
    args.warmup = 20
    if args.quick:
        args.vessels, args.requests, args.reps, args.replays = 2_000, 20, 1, 2
        args.feed_rate, args.warmup = 500, 3
    args.corpus = corpus(args.quick)
    url, name = temp_database()
    try:
        t = time.perf_counter()
        key = load(url, args.vessels)
        print(f"loaded {args.vessels} vessels' latest positions in {time.perf_counter() - t:.1f} s")
        base, feats, _ = run_phase(url, key, args, None)
        replay = [str(args.corpus)] * args.replays
        phases = [
            (
                "API and worker in one process, replaying at full speed",
                run_phase(url, key, args, replay),
            ),
            (
                "same, VIGIA_API_SWITCH_INTERVAL_S=0.001",
                run_phase(url, key, args, replay, switch=0.001),
            ),
            (
                f"one process, a live TCP feed paced at {args.feed_rate:,} lines/s",
                run_phase(url, key, args, None, feed_rate=args.feed_rate),
            ),
            (
                "worker in its own process (--worker-only beside --no-worker)",
                run_phase(url, key, args, replay, True),
            ),
        ]
    finally:
        drop_database(name)
    b50 = statistics.median(r[0] for r in base)
    b99 = statistics.median(r[1] for r in base)
    print(
        f"GET /vessels?bbox= ({args.size_deg} deg viewport, ~{feats:.0f} vessels per answer, "
        f"{args.requests} requests x {args.reps} reps, medians)"
    )
    print(f"  API alone (--no-worker): p50 {b50:6.1f} ms  p99 {b99:6.1f} ms  (the baseline)")
    for label, (results, _, rate) in phases:
        p50 = statistics.median(r[0] for r in results)
        p99 = statistics.median(r[1] for r in results)
        print(f"  {label}, {rate:,.0f} lines/s ingested:")
        print(
            f"      p50 {p50:6.1f} ms  p99 {p99:6.1f} ms   "
            f"ratio to baseline p50 {p50 / b50:.2f}  p99 {p99 / b99:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
