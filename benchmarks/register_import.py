"""``/healthz`` latency while a large authorised-vessel CSV is imported.

Usage: python -m benchmarks.register_import [--rows 100000] [--db URL] [--quick]

Starts ``vigia serve`` (a fresh SQLite file unless ``--db`` names a database), then
polls ``/healthz`` every 20 ms from another thread in two phases of the same run:

- during an import of ``--rows`` rows through ``POST /authorised-vessels/import``;
- baseline: afterwards, for as long as the import took, with nothing else going on.

Prints median, p99 and max latency of each phase and how long the import took.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

import httpx

from benchmarks._served import KEY, serve, summary


def _poll(base: str, stop: threading.Event, out: list[float]) -> None:
    with httpx.Client(base_url=base, timeout=120) as client:
        while not stop.is_set():
            t0 = time.perf_counter()
            client.get("/healthz").raise_for_status()
            out.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.02)


def _phase(base: str, work: float | None, rows: int) -> tuple[list[float], float]:
    """Poll during ``work`` seconds of idling (``work`` given) or during the import."""
    stop, ms = threading.Event(), []
    poller = threading.Thread(target=_poll, args=(base, stop, ms), daemon=True)
    poller.start()
    t0 = time.perf_counter()
    if work is not None:
        time.sleep(work)
    else:
        body = "mmsi,zone_id\n" + "".join(f"{710_000_000 + i},plat-p66\n" for i in range(rows))
        r = httpx.post(
            f"{base}/authorised-vessels/import",
            content=body.encode(),
            headers={"X-API-Key": KEY, "Content-Type": "text/csv"},
            timeout=600,
        )
        if r.status_code != 201 or len(r.json()["entries"]) != rows:
            raise SystemExit(f"import failed: {r.status_code} {r.text[:300]}")
    took = time.perf_counter() - t0
    stop.set()
    poller.join(120)
    return ms, took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    ap.add_argument("--quick", action="store_true", help="10,000 rows, for a smoke run")
    args = ap.parse_args()
    rows = 10_000 if args.quick else args.rows
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{Path(tmp) / 'v.sqlite'}"
        with serve(url, Path(tmp)) as base:
            during, took = _phase(base, None, rows)
            idle, _ = _phase(base, took, rows)
    print(f"store: {url.split(':')[0]}; import of {rows:,} rows took {took:.1f} s")
    print(f"baseline /healthz (no import): {summary(idle)}")
    print(f"/healthz during the import:    {summary(during)}")


if __name__ == "__main__":
    main()
