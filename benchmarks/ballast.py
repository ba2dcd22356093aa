"""Ballast assessment throughput and accuracy, measured in one run.

- classification (grid fast path + exact refinement + depth): points/s, goal >= 1,000,000
- exact geodesic distance to land: points/s, goal >= 100,000
- accuracy: max and p99 error (nm) of the exact method against the independent reference
  (geodesic distance from an azimuthal equidistant projection centred on each point,
  shapely on the same basemap), and fast-path disagreements with the exact method.
Baseline in the same run: the reference method's own rate.

    python -m benchmarks.ballast [--points 1000000] [--runs 5] [--sample 100] [--quick]

``--quick`` (a smoke run): 20,000 points, one run, a sample of 10.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

from vigia.zones.ballast import get_assessor  # noqa: E402

WINDOW = (-58.0, -36.0, -22.0, 8.0)  # the Brazilian margin, islands and open ocean


def _reference() -> Callable[..., float]:
    # the tests' independent oracle (tests.support imports no pytest)
    from tests.support.geodesy import reference_distance_nm

    return reference_distance_nm


def median_rate(fn: Callable[[], Any], n: int, runs: int) -> float:
    """Median points/s over ``runs`` timed calls."""
    rates = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        rates.append(n / (time.perf_counter() - t))
    return statistics.median(rates)


def main() -> int:
    """Run and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--exact-points", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    args = ap.parse_args()
    if args.quick:
        args.points, args.exact_points, args.runs, args.sample = 20_000, 5_000, 1, 10
    rng = np.random.default_rng(2024)
    a = get_assessor()
    x0, y0, x1, y1 = WINDOW
    lons = rng.uniform(x0, x1, args.points)
    lats = rng.uniform(y0, y1, args.points)
    a.classify(lons[:1000], lats[:1000])  # load the grid
    sea = ~a.basemap.land.contains(lons, lats)
    ex_lon, ex_lat = lons[sea][: args.exact_points], lats[sea][: args.exact_points]
    print(f"basemap: {a.basemap.names}")
    print(f"grid decides {a.grid.decided_fraction:.1%} of its cells alone")

    cls_rate = median_rate(lambda: a.classify(lons, lats), len(lons), args.runs)
    ex_rate = median_rate(lambda: a.distance_nm(ex_lon, ex_lat), len(ex_lon), args.runs)

    zone, m200, m50 = a.classify(lons, lats)
    exact = a.assess(lons, lats)
    bad = int(np.sum(zone != exact.zone) + np.sum(m200 != exact.meets_200))
    bad += int(np.sum(m50 != exact.meets_50))

    ref = _reference()
    idx = rng.choice(len(ex_lon), args.sample, replace=False)
    # half the sample near the coast, where segments and islands matter most
    near = np.flatnonzero(a.distance_nm(ex_lon[:20000], ex_lat[:20000]) < 30)
    idx = np.r_[idx[: args.sample // 2], near[: args.sample - args.sample // 2]]
    got = a.distance_nm(ex_lon[idx], ex_lat[idx])
    t = time.perf_counter()
    want = np.array(
        [ref(a.basemap.land, x, y) for x, y in zip(ex_lon[idx], ex_lat[idx], strict=True)]
    )
    ref_rate = len(idx) / (time.perf_counter() - t)
    err = np.abs(got - want)

    print(
        f"classification: {cls_rate:,.0f} points/s (median of {args.runs}, {len(lons):,} points)"
        f"  goal 1,000,000  -> {'met' if cls_rate >= 1e6 else 'MISSED'}"
    )
    print(f"  fast path vs exact on the same {len(lons):,} points: {bad} disagreements")
    print(
        f"exact distance: {ex_rate:,.0f} points/s (median of {args.runs}, "
        f"{len(ex_lon):,} sea points)"
        f"  goal 100,000  -> {'met' if ex_rate >= 1e5 else 'MISSED'}"
    )
    print(
        f"  accuracy vs AEQD reference on {len(idx)} points: max {err.max():.4f} nm, "
        f"p99 {np.percentile(err, 99):.4f} nm (goal < 0.1 nm)"
    )
    print(
        f"baseline (AEQD reference, per point): {ref_rate:,.1f} points/s; "
        f"exact method is {ex_rate / ref_rate:,.0f}x, classification {cls_rate / ref_rate:,.0f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
