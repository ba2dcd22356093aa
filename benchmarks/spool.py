"""What the durable spool costs the writer's submit path.

Usage: python -m benchmarks.spool [--positions N] [--batch B] [--reps R] [--quick]

Submits N positions in batches of B (the worker hands the writer 2,000 at a time) to a
BufferedWriter whose database is unreachable (so its thread only retries and the figure is
the submit path alone), alternately without and with a spool in a temporary folder, R
times; prints the median microseconds per position of each, the ratio spool / no spool,
and, for scale, what decoding one line of real NMEA costs in this process. Then the whole
writer, submit to flushed, into a fresh SQLite file, with and without the spool.
``--quick`` (a smoke run): 10,000 positions, one run each, the repository's real sample.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks._data import corpus
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import Position
from vigia.ingest.sources import FileSource
from vigia.service.db.store import open_repository
from vigia.service.runtime.writer import BufferedWriter

DEAD = "postgresql+psycopg://postgres@127.0.0.1:9/nothing"


def batches(n: int, size: int) -> list[list[Position]]:
    """Realistic positions (each with its own raw sentence), in worker-sized batches."""
    out = [
        Position(
            mmsi=710_000_000 + k % 3000, t=1.7e9 + k, msg_type=1, lon=-43.0 + k * 1e-6,
            lat=-22.9, sog=8.5, cog=90.0, heading=91, nav_status=0, accuracy=True,
            source="tcp:10.0.0.1:5631",
            raw=(f"!AIVDM,1,1,,A,15M67FC000G?ufbE`Fe{k:06d},0*5C",),
        )
        for k in range(n)
    ]  # fmt: skip
    return [out[i : i + size] for i in range(0, n, size)]


def run(work: list[list[Position]], spool: Path | None) -> float:
    """Seconds spent in submit_positions for all of ``work``."""
    repo = open_repository(DEAD)
    w = BufferedWriter(repo, max_buffered=10_000_000, backoff_initial_s=1.0, spool_dir=spool)
    spent = 0.0
    for b in work:
        t0 = time.perf_counter()
        w.submit_positions(b)
        spent += time.perf_counter() - t0
    w.close(0)
    repo.close()
    return spent


def run_stored(work: list[list[Position]], with_spool: bool) -> float:
    """Seconds to submit ``work`` to a writer on a fresh SQLite file and flush it."""
    with tempfile.TemporaryDirectory(prefix="vigia-spool-bench-") as tmp:
        repo = open_repository(f"sqlite:///{Path(tmp) / 'v.sqlite'}")
        repo.migrate()
        spool = Path(tmp) / "spool" if with_spool else None
        t0 = time.perf_counter()
        w = BufferedWriter(repo, max_buffered=10_000_000, spool_dir=spool)
        for b in work:
            w.submit_positions(b)
        if not w.flush(300):
            raise RuntimeError("the writer did not flush")
        spent = time.perf_counter() - t0
        w.close(10)
        repo.close()
    return spent


def decode_us_per_line(nmea: Path, limit: int = 20_000) -> float:
    """Microseconds of CPU to decode one line of real NMEA (the first ``limit`` lines)."""
    lines = []
    for line in FileSource(str(nmea)).lines():
        lines.append(line)
        if len(lines) >= limit:
            break
    ing = Ingestor()
    t0 = time.process_time()
    for _ in ing.feed_many(lines):
        pass
    ing.flush()
    return (time.process_time() - t0) / len(lines) * 1e6


def main() -> int:
    """Alternate runs without and with the spool; print medians and the ratio."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200_000)
    ap.add_argument("--batch", type=int, default=2_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    args = ap.parse_args()
    if args.quick:
        args.positions, args.reps = 10_000, 1
    nmea = corpus(args.quick)
    logging.disable(logging.CRITICAL)  # the dead store's retries are expected
    work = batches(args.positions, args.batch)
    plain: list[float] = []
    spooled: list[float] = []
    ratios: list[float] = []
    for _ in range(args.reps):
        a = run(work, None)
        with tempfile.TemporaryDirectory(prefix="vigia-spool-bench-") as tmp:
            b = run(work, Path(tmp) / "spool")
            size = sum(p.stat().st_size for p in (Path(tmp) / "spool").glob("*.seg"))
        plain.append(a / args.positions * 1e6)
        spooled.append(b / args.positions * 1e6)
        ratios.append(b / a)
    p, s = statistics.median(plain), statistics.median(spooled)
    print(f"{args.positions} positions in batches of {args.batch}, {args.reps} runs each")
    print(f"submit without spool: {p:.3f} us/position (median; the baseline)")
    print(f"submit with spool:    {s:.3f} us/position (median); {size / args.positions:.0f} B each")
    print(
        f"ratio spool/none: {s / p:.2f} (median of per-run ratios {statistics.median(ratios):.2f})"
    )
    print(f"spool cost per position: {s - p:.3f} us")
    n_store = min(args.positions, 50_000)
    stored = batches(n_store, args.batch)
    sa: list[float] = []
    sb: list[float] = []
    for _ in range(args.reps):
        sa.append(run_stored(stored, False))
        sb.append(run_stored(stored, True))
    ma, mb = statistics.median(sa), statistics.median(sb)
    print(f"end to end into SQLite ({n_store} positions, submit + flush): "
          f"{n_store / ma:,.0f}/s without, {n_store / mb:,.0f}/s with spool, "
          f"ratio {mb / ma:.2f}")  # fmt: skip
    dec = decode_us_per_line(nmea)
    print(f"for scale, decoding one NMEA line: {dec:.1f} us CPU; the spool adds "
          f"{(s - p) / dec * 100:.1f}% of that")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
