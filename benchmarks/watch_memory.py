"""What the interference and circle watches hold over the lateness window (issue 34), on
a synthetic national fleet, against the way they held it before, measured in one run.

Both watches see every vessel and keep what arrived in the last two hours (the lateness
bound) until it settles, so their memory grows with the feed's rate. The fleet reports as
ITU-R M.1371 has ships report: of every 20 vessels 8 at anchor or moored (every 3 min),
7 class A under way at up to 14 kn (10 s), 2 faster (6 s), 1 above 23 kn (2 s) and 2
class B (30 s): about 0.08 positions a second a vessel, so 2,000 a second (a national
feed) is about 24,000 vessels. Each sails a straight course, as most do.

Figures: traced memory of the watch (tracemalloc) after ``--hours`` of traffic fed in
time order, 10 s a batch, the clock moving with it; the fixes fed in the last two hours;
bytes per fix of that window and the extrapolation to 2,000 positions a second; CPU time
per position (a second run, untraced; the baseline's is the heap alone, no jump found).
Baseline: every fix of the window as the heap of (t, mmsi, lon, lat) tuples the watch
held until this change (stop 45), measured the same way.

    .venv/bin/python -m benchmarks.watch_memory [--vessels 3000] [--hours 2.5] [--quick]
"""

from __future__ import annotations

import argparse
import gc
import heapq
import math
import random
import time
import tracemalloc
from collections.abc import Iterator

from vigia.alerts.identity.interference import InterferenceWatch
from vigia.ingest.records import Position

T0 = 1_767_261_600.0
LATENESS_S = 7_200.0
#: (share of the fleet out of 20, reporting interval s, speed kn)
MIX = ((8, 180.0, 0.0), (7, 10.0, 10.0), (2, 6.0, 18.0), (1, 2.0, 25.0), (2, 30.0, 8.0))
KN = 1_852.0 / 3_600.0


def fleet(n: int, seed: int) -> list[tuple[int, float, float, float, float, float, float]]:
    """(mmsi, interval, phase, lon, lat, east m/s, north m/s) per vessel, off the coast."""
    rng = random.Random(seed)
    kinds = [k for share, *k in MIX for _ in range(share)]
    out = []
    for i in range(n):
        dt, kn = kinds[i % len(kinds)]
        heading = rng.uniform(0, 360)
        h = math.radians(heading)
        ve, vn = kn * KN * math.sin(h), kn * KN * math.cos(h)
        out.append((710_000_000 + i, dt, rng.uniform(0, dt), rng.uniform(-45.0, -35.0),
                    rng.uniform(-28.0, -5.0), ve, vn))  # fmt: skip
    return out


def batches(ships: list[tuple[int, float, float, float, float, float, float]], hours: float,
            step: float = 10.0) -> Iterator[tuple[float, list[Position]]]:  # fmt: skip
    """The fleet's positions, ``step`` s at a time, in time order."""
    end = T0 + hours * 3_600.0
    nxt = [T0 + s[2] for s in ships]
    t = T0
    while t < end:
        t += step
        out: list[Position] = []
        for i, (mmsi, dt, _, lon, lat, ve, vn) in enumerate(ships):
            while nxt[i] < t:
                e = nxt[i] - T0
                out.append(Position(mmsi, nxt[i], 1, lon + ve * e / 111_320.0 / 0.95,
                                    lat + vn * e / 110_574.0, 10.0, 0.0, 0, 0))  # fmt: skip
                nxt[i] += dt
        yield t, out


def measure(ships: list[tuple[int, float, float, float, float, float, float]], hours: float,
            *, baseline: bool, traced: bool) -> tuple[int, int, float]:  # fmt: skip
    """(traced bytes held at the end, fixes of the last lateness window, CPU s a fix);
    untraced, the bytes are 0 and the CPU time is the watch's own."""
    gc.collect()
    if traced:
        tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    w = InterferenceWatch(LATENESS_S)
    heap: list[tuple[float, int, float, float]] = []
    window = n = 0
    cpu = 0.0
    end = T0 + hours * 3_600.0
    for now, recs in batches(ships, hours):
        n += len(recs)
        window += sum(1 for r in recs if r.t >= end - LATENESS_S)
        c0 = time.process_time()
        if baseline:  # the old feed: a tuple a fix on one heap, popped once settled
            for r in recs:
                heapq.heappush(heap, (r.t, r.mmsi, r.lon, r.lat))  # type: ignore[misc]
            while heap and heap[0][0] < now - LATENESS_S:
                heapq.heappop(heap)
        else:
            w.feed(recs)
            w.expire(now)
        cpu += time.process_time() - c0
        del recs
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    if traced:
        tracemalloc.stop()
    return held, window, cpu / max(n, 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vessels", type=int, default=3_000)
    ap.add_argument("--hours", type=float, default=2.5)
    ap.add_argument("--quick", action="store_true", help="300 vessels, 2.2 h")
    args = ap.parse_args(argv)
    n, hours = (300, 2.2) if args.quick else (args.vessels, args.hours)
    ships = fleet(n, 34)
    print(f"{n} vessels, {hours} h of traffic, lateness window {LATENESS_S:.0f} s")
    rows = []
    for label, base in (("watch (packed, first/last a 30 s)", False),
                        ("baseline: heap of tuples, every fix", True)):  # fmt: skip
        held, window, _ = measure(ships, hours, baseline=base, traced=True)
        cpu = measure(ships, hours, baseline=base, traced=False)[2]
        per_fix = held / max(window, 1)
        rows.append(held)
        print(f"{label:38s} held {held / 1e6:8.1f} MB  {window:>9,} fixes in window  "
              f"{per_fix:6.1f} B/fix  {held / n / 1e3:6.1f} kB/vessel  "
              f"at 2,000 pos/s: {per_fix * 2_000 * LATENESS_S / 1e9:5.2f} GB  "
              f"{cpu * 1e6:5.1f} us/position")  # fmt: skip
    print(f"ratio baseline / watch: {rows[1] / max(rows[0], 1):.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
