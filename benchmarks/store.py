"""Store throughput and query latency on PostGIS, with the ingest rate beside them.

Usage: python -m benchmarks.store [--reps 3] [--positions 200000] [--vessels 100000] [--quick]

Connects to ``VIGIA_BENCH_DATABASE_URL`` or creates (and drops) a temporary database on
the machine's PostgreSQL (``VIGIA_TEST_DATABASE_URL``'s server). Prints medians of:

- ingest: NMEA lines of the corpus decoded to positions by ``ingest.decoder.Ingestor``;
- store: positions per second into PostGIS, straight through ``add_positions`` in batches
  and end to end through ``BufferedWriter`` (the worker's path), and the ratio store/ingest
  (above 1: the store keeps up with decoding on one core);
- ``latest_positions(bbox)`` p50/p99 with 100,000 vessels' latest positions loaded, idle
  and while a writer ingests at the same time.

``--quick`` (a smoke run): one repetition of 5,000 positions, 5,000 vessels, 30 queries,
the repository's real sample decoded.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import psycopg

ROOT = Path(__file__).resolve().parents[1]

from benchmarks._data import corpus as real_nmea  # noqa: E402
from vigia.ingest.decoder import Ingestor  # noqa: E402
from vigia.ingest.records import Position  # noqa: E402
from vigia.ingest.sources import FileSource  # noqa: E402
from vigia.service.db.repository import SqlRepository  # noqa: E402
from vigia.service.db.store import open_repository  # noqa: E402
from vigia.service.runtime.writer import BufferedWriter  # noqa: E402

ADMIN = os.environ.get(
    "VIGIA_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/vigia_test"
)
T0 = 1_764_000_000.0
BRAZIL = (-53.0, -34.0, -32.0, 5.0)


def decode(path: Path) -> tuple[list[Position], float]:
    """Decode the corpus; returns its positions and the time it took."""
    t = time.perf_counter()
    ing = Ingestor()
    out = [
        r
        for r in ing.feed_many(FileSource(path).lines())
        if isinstance(r, Position) and r.lon is not None and r.lat is not None
    ]
    ing.flush()
    return out, time.perf_counter() - t


def workload(corpus: list[Position], n: int, offset: float) -> list[Position]:
    """``n`` positions cycled from the corpus with unique (mmsi, t) (no dedupe shortcut)."""
    return [
        dataclasses.replace(corpus[i % len(corpus)], t=T0 + offset + i * 0.001, raw=())
        for i in range(n)
    ]


def temp_database() -> tuple[str, str | None]:
    """The benchmark URL, and the name of a database to drop afterwards (if we made it)."""
    url = os.environ.get("VIGIA_BENCH_DATABASE_URL")
    if url:
        return url, None
    name = f"vigia_bench_{uuid.uuid4().hex[:8]}"
    admin = ADMIN.replace("+psycopg", "")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = ADMIN.rpartition("/")[0]
    with psycopg.connect(f"{base}/{name}".replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS postgis")
    return f"{base}/{name}", name


def drop_database(name: str) -> None:
    """Drop the temporary database."""
    with psycopg.connect(ADMIN.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def direct_rate(repo: SqlRepository, batch: list[Position], size: int) -> float:
    """Positions per second through ``add_positions`` in batches of ``size``."""
    t = time.perf_counter()
    stored = sum(repo.add_positions(batch[i : i + size]) for i in range(0, len(batch), size))
    dt = time.perf_counter() - t
    assert stored == len(batch), (stored, len(batch))
    return len(batch) / dt


def baseline_rate(repo: SqlRepository, batch: list[Position], size: int) -> float:
    """The obvious alternative, same work: SQLAlchemy Core executemany of INSERT ... ON
    CONFLICT into positions and an upsert of the newest per vessel, per batch."""
    from sqlalchemy.dialects.postgresql import insert

    from vigia.service.db.codec import POSITION_COLUMNS, position_row
    from vigia.service.db.models import PositionRow, VesselLatest

    ins = insert(VesselLatest)
    upsert = ins.on_conflict_do_update(
        index_elements=["mmsi"],
        set_={c: ins.excluded[c] for c in POSITION_COLUMNS if c != "mmsi"},
        where=VesselLatest.t < ins.excluded.t,
    )
    t = time.perf_counter()
    for i in range(0, len(batch), size):
        rows = [position_row(p) for p in batch[i : i + size]]
        newest: dict[int, dict[str, object]] = {}
        for r in rows:
            if r["mmsi"] not in newest or r["t"] > newest[r["mmsi"]]["t"]:  # type: ignore[operator]
                newest[r["mmsi"]] = r
        with repo.engine.begin() as conn:
            conn.execute(insert(PositionRow).on_conflict_do_nothing(), rows)
            conn.execute(upsert, list(newest.values()))
    return len(batch) / (time.perf_counter() - t)


def writer_rate(repo: SqlRepository, batch: list[Position]) -> float:
    """Positions per second end to end through the BufferedWriter (submit in 500s)."""
    w = BufferedWriter(repo, batch_size=5000)
    t = time.perf_counter()
    for i in range(0, len(batch), 500):
        w.submit_positions(batch[i : i + 500])
    assert w.flush(600)
    dt = time.perf_counter() - t
    assert w.stats()["written"] == len(batch)
    w.close()
    return len(batch) / dt


def load_vessels(repo: SqlRepository, n: int) -> None:
    """``n`` vessels spread over Brazilian waters, one latest position each."""
    rng = np.random.default_rng(1)
    lon = rng.uniform(BRAZIL[0], BRAZIL[2], n)
    lat = rng.uniform(BRAZIL[1], BRAZIL[3], n)
    ps = [
        Position(300_000_000 + i, T0 - 86_400 + i * 0.01, 1, float(lon[i]), float(lat[i]), 5.0)
        for i in range(n)
    ]
    for i in range(0, n, 10_000):
        repo.add_positions(ps[i : i + 10_000])
    with repo.engine.begin() as conn:
        conn.exec_driver_sql("ANALYZE vessel_latest")
        conn.exec_driver_sql("ANALYZE positions")


def latencies(repo: SqlRepository, n: int, size_deg: float, limit: int) -> list[float]:
    """Milliseconds of ``n`` latest_positions calls on random bboxes of ``size_deg``."""
    rng = np.random.default_rng(2)
    out = []
    for _ in range(n):
        x = float(rng.uniform(BRAZIL[0], BRAZIL[2] - size_deg))
        y = float(rng.uniform(BRAZIL[1], BRAZIL[3] - size_deg))
        t = time.perf_counter()
        repo.latest_positions((x, y, x + size_deg, y + size_deg), limit)
        out.append((time.perf_counter() - t) * 1000)
    return out


def pct(xs: list[float], q: float) -> float:
    """The ``q`` percentile."""
    return float(np.percentile(np.array(xs), q))


def spread(ms: list[float]) -> str:
    """p50 and p99 of latencies in milliseconds."""
    return f"p50 {pct(ms, 50):6.2f}  p99 {pct(ms, 99):6.2f}"


def main() -> int:
    """Run everything and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--positions", type=int, default=200_000)
    ap.add_argument("--vessels", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    args = ap.parse_args()
    if args.quick:
        args.reps, args.positions, args.vessels, args.queries = 1, 5_000, 5_000, 30
    nmea = real_nmea(args.quick)

    decode_rates, corpus = [], []
    for _ in range(args.reps):
        corpus, dt = decode(nmea)
        decode_rates.append(len(corpus) / dt)
    ingest = statistics.median(decode_rates)

    url, made = temp_database()
    repo = open_repository(url)
    assert isinstance(repo, SqlRepository)
    try:
        repo.migrate()
        direct, via_writer, base = [], [], []
        for rep in range(args.reps):
            direct.append(
                direct_rate(repo, workload(corpus, args.positions, rep * 7 * 86_400), 5000)
            )
            batch = workload(corpus, args.positions, rep * 7 * 86_400 + 3 * 86_400)
            via_writer.append(writer_rate(repo, batch))
            small = workload(corpus, args.positions // 4, rep * 7 * 86_400 + 5 * 86_400)
            base.append(baseline_rate(repo, small, 5000))
        load_vessels(repo, args.vessels)
        idle_port = latencies(repo, args.queries, 1.0, 1000)
        idle_wide = latencies(repo, args.queries // 3, 10.0, 1000)

        # the same queries while a writer stores positions as fast as it can
        stop = threading.Event()
        live = BufferedWriter(repo, batch_size=5000)
        busy_rate: list[float] = []

        def feed() -> None:
            i, t = 0, time.perf_counter()
            while not stop.is_set():
                chunk = workload(corpus, 5000, 60 * 86_400 + i * 5.0)
                live.submit_positions(chunk)
                i += 1
                live.flush(60)
            busy_rate.append(live.stats()["written"] / (time.perf_counter() - t))

        feeder = threading.Thread(target=feed)
        feeder.start()
        time.sleep(0.5)
        busy_port = latencies(repo, args.queries, 1.0, 1000)
        stop.set()
        feeder.join()
        live.close()
        with repo.engine.connect() as conn:
            parts = conn.exec_driver_sql(
                "SELECT count(*) FROM pg_inherits WHERE inhparent = 'positions'::regclass"
            ).scalar()
    finally:
        repo.close()
        if made:
            drop_database(made)

    d, w, b = statistics.median(direct), statistics.median(via_writer), statistics.median(base)
    print(f"PostGIS store, {args.reps} repetitions, medians; {args.positions:,} positions each")
    print(f"ingest (decode corpus -> positions): {ingest:>10,.0f} positions/s")
    print(f"store add_positions (batches 5000):  {d:>10,.0f} positions/s  (x{d / ingest:.2f})")
    print(f"store via BufferedWriter:            {w:>10,.0f} positions/s  (x{w / ingest:.2f})")
    print(f"baseline SQLAlchemy executemany:     {b:>10,.0f} positions/s  (x{b / ingest:.2f})")
    print(f"COPY path / baseline: {d / b:.2f}")
    print("goal >= 20,000 positions/s; (xN) = store rate / ingest rate")
    print(f"latest_positions with {args.vessels:,} vessels (ms), {parts} partitions:")
    print(f"  1x1 deg bbox, idle:        {spread(idle_port)}")
    print(f"  10x10 deg bbox (lim 1000): {spread(idle_wide)}")
    print(
        f"  1x1 deg bbox, ingesting:   {spread(busy_port)}"
        f"  (writer at {busy_rate[0]:,.0f} positions/s meanwhile)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
