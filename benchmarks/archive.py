"""The hot window and the GeoParquet archive on PostGIS: bytes, speed, track latency, soak.

Usage: python -m benchmarks.archive [--quick] [--soak] [--vessels 60] [--days 2]

Connects to ``VIGIA_BENCH_DATABASE_URL`` or creates (and drops) a temporary database on
the machine's PostgreSQL. Synthetic traffic: vessels on random-walk courses, a report
every 2 to 12 s each, coordinates on the AIS grid (1/10,000 minute), speed and course
to a tenth. Prints:

- bytes per position in the store (positions' partitions with their indexes: the
  baseline) and in the archive (goal: at most 25 B, a tenth of the store);
- positions archived per second (``vigia archive``'s path: read, write, check, drop);
- one vessel's day of track: p50 latency from the store, then from the archive;
- with ``--soak``: 1,500 positions a second of wall time into the store while data time
  runs ``--speed`` times faster, the daily pass run at each data midnight with a one-day
  window; per data day the store's and the archive's size, the process RSS, and the
  account sent = hot + archived.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from benchmarks.store import drop_database, temp_database
from vigia.ingest.records import Position
from vigia.service.db.archive import Archiver
from vigia.service.db.archive_read import ArchiveReader
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository

DAY = 86_400
T0 = 1_764_547_200.0  # 2025-12-01T00:00:00Z


def traffic(vessels: int, start: float, end: float, seed: int) -> list[Position]:
    """Every vessel's reports between two times, on AIS resolution."""
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    for v in range(vessels):
        n = int((end - start) / 7) + 1
        t = start + np.cumsum(rng.integers(2, 13, n)).astype(float)
        t = t[t < end]
        n = len(t)
        sog = np.round(np.clip(12 + np.cumsum(rng.normal(0, 0.2, n)), 0, 30), 1)
        cog = np.round((rng.uniform(0, 360) + np.cumsum(rng.normal(0, 1, n))) % 360, 1)
        dt = np.diff(t, prepend=t[0])
        step = sog * dt / 3600 / 60  # degrees, roughly
        lon0, lat0 = rng.uniform(-48, -36), rng.uniform(-28, -2)
        lon = np.round((lon0 + np.cumsum(step * np.sin(np.radians(cog)))) * 600_000) / 600_000
        lat = np.round((lat0 + np.cumsum(step * np.cos(np.radians(cog)))) * 600_000) / 600_000
        mmsi = 710_000_000 + v
        out.extend(
            Position(mmsi, float(t[i]), 1, float(lon[i]), float(lat[i]), float(sog[i]),
                     float(cog[i]), int(cog[i]) % 360, 0, False, "bench")
            for i in range(n)
        )  # fmt: skip
    return out


def hot_bytes(repo: SqlRepository) -> int:
    """Bytes of every partition of positions, with its indexes."""
    with repo.engine.connect() as conn:
        n = conn.exec_driver_sql(
            "SELECT coalesce(sum(pg_total_relation_size(relid)), 0) "
            "FROM pg_partition_tree('positions')"
        ).scalar()
    return int(n or 0)


def rss_mb() -> float:
    """This process's resident set size now."""
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def store(repo: SqlRepository, ps: list[Position]) -> None:
    for i in range(0, len(ps), 5000):
        repo.add_positions(ps[i : i + 5000])


def track_p50(
    repo: SqlRepository, mmsis: list[int], start: float, limit: int | None = None
) -> float:
    ms = []
    for m in mmsis:
        t = time.perf_counter()
        repo.track(m, start, start + DAY, limit=limit)
        ms.append((time.perf_counter() - t) * 1000)
    return statistics.median(ms)


def figures(repo: SqlRepository, root: Path, vessels: int, days: int) -> None:
    ps = traffic(vessels, T0, T0 + days * DAY, 1)
    store(repo, ps)
    n = repo.count_positions()
    hot = hot_bytes(repo)
    sample = [710_000_000 + v for v in range(0, vessels, max(1, vessels // 40))]
    hot_ms = track_p50(repo, sample, T0 + DAY)
    hot_page = track_p50(repo, sample, T0 + DAY, 100)
    t = time.perf_counter()
    reports = Archiver(repo.engine, root).run(0.5, now=T0 + days * DAY)
    took = time.perf_counter() - t
    moved = sum(r.stored for r in reports)
    reader = ArchiveReader(root)
    cold_ms = track_p50(repo, sample, T0 + DAY)
    cold_page = track_p50(repo, sample, T0 + DAY, 100)
    per_day = n / vessels / days
    print(f"positions {n:,} of {vessels} vessels over {days} days")
    cold = reader.size_bytes() / moved
    print(f"bytes/position  store (baseline) {hot / n:7.1f}   archive {cold:6.1f}")
    print(f"archived        {moved:,} positions in {took:.1f} s: {moved / took:,.0f} positions/s")
    print(f"track of a vessel's day ({per_day:,.0f} points), p50:")
    print(f"  whole day     store {hot_ms:7.1f} ms   archive {cold_ms:7.1f} ms")
    print(f"  first 100     store {hot_page:7.1f} ms   archive {cold_page:7.1f} ms")
    assert repo.count_positions() + reader.count() == n, "a position was lost or doubled"


def soak(repo: SqlRepository, root: Path, rate: int, speed: float, days: int) -> None:
    """``rate`` positions a wall second, data time ``speed`` times faster, a daily pass
    with a one-day window at each data midnight."""
    vessels = 3000
    rng = np.random.default_rng(7)
    lon = rng.uniform(-48, -36, vessels)
    lat = rng.uniform(-28, -2, vessels)
    with repo.engine.begin() as conn:
        conn.exec_driver_sql("TRUNCATE positions")
    sent = 0
    t_soak = T0 + 100 * DAY
    data_t = t_soak
    reader = ArchiveReader(root)
    archiver = Archiver(repo.engine, root)
    passes: list[threading.Thread] = []
    print(f"soak: {rate} positions/s, data time x{speed:g}, one-day window, {days} days")
    print(" day   sent        hot     archived  store MB  archive MB  RSS MB")
    next_midnight = t_soak + DAY
    wall0 = time.perf_counter()
    while data_t < t_soak + days * DAY:
        tick = time.perf_counter()
        ts = data_t + np.sort(rng.uniform(0, speed, rate))
        idx = rng.integers(0, vessels, rate)
        lon[idx] += rng.normal(0, 1e-3, rate)
        lat[idx] += rng.normal(0, 1e-3, rate)
        batch = [
            Position(710_000_000 + int(i), float(t), 1, float(lon[i]), float(lat[i]), 10.0)
            for i, t in zip(idx, ts, strict=True)
        ]
        repo.add_positions(batch)
        sent += len({(p.mmsi, p.t) for p in batch})
        data_t += speed
        if data_t >= next_midnight:
            # the daily pass runs beside the writer, as in vigia serve
            day_now = next_midnight
            th = threading.Thread(target=archiver.run, args=(1.0,), kwargs={"now": day_now})
            th.start()
            passes.append(th)
            next_midnight += DAY
            day = int((day_now - t_soak) // DAY)
            hot, cold = repo.count_positions(), reader.count()
            print(
                f"{day:4d} {sent:8,} {hot:10,} {cold:10,} {hot_bytes(repo) / 2**20:9.1f} "
                f"{reader.size_bytes() / 2**20:11.1f} {rss_mb():7.1f}"
            )
        time.sleep(max(0.0, 1.0 - (time.perf_counter() - tick)))
    for th in passes:
        th.join()
    Archiver(repo.engine, root).run(1.0, now=data_t)
    hot, cold = repo.count_positions(), reader.count()
    wall = time.perf_counter() - wall0
    print(f"end  sent {sent:,} = hot {hot:,} + archived {cold:,}: {hot + cold == sent}")
    print(f"     {sent / wall:,.0f} positions/s of wall time held; RSS {rss_mb():.1f} MB")


def main() -> int:
    """Run the figures (and the soak) and print them."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, a short soak")
    ap.add_argument("--soak", action="store_true")
    ap.add_argument("--vessels", type=int, default=60)
    ap.add_argument("--days", type=int, default=2)
    ap.add_argument("--rate", type=int, default=1500)
    ap.add_argument("--speed", type=float, default=1440.0, help="data seconds per wall second")
    args = ap.parse_args()
    if args.quick:
        args.vessels, args.days = 15, 2
    url, made = temp_database()
    repo = open_repository(url)
    assert isinstance(repo, SqlRepository)
    try:
        repo.migrate()
        with tempfile.TemporaryDirectory() as tmp:
            figures(repo, Path(tmp) / "a", args.vessels, args.days)
            if args.soak:
                soak_days = 3 if args.quick else 6
                speed = args.speed * (4 if args.quick else 1)
                soak(repo, Path(tmp) / "soak", args.rate, speed, soak_days)
    finally:
        repo.close()
        if made:
            drop_database(made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
