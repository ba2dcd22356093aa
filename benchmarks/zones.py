"""Zone evaluation throughput: 5,000+ zones of mixed kinds, 1,000,000 positions, one core.

Usage: python -m benchmarks.zones [--zones 5000] [--positions 1000000] [--runs 5] [--quick]

Zones: the bundled catalogue plus synthetic ones strewn along the Brazilian coast from
Chuí to Amapá (platforms, military points and footprints, beach baselines, and area
polygons of every area kind). Positions: a mix of traffic near zones (within a few km)
and open-sea traffic over the whole coastal box, as a national feed would carry. Prints
the median positions/s of ``ZoneIndex.evaluate`` and the ratio against a baseline in the
same run: the same evaluation without the grid prefilter (every position goes through
the STRtree). Goal: 1,000,000 positions/s or more. ``--quick`` (a smoke run): 500 zones,
50,000 positions, one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from shapely.geometry import MultiPoint, mapping

# this file is named zones.py: keep its folder off the path so `zones` is the package
ROOT = Path(__file__).resolve().parents[1]

from vigia.zones.catalogue import bundled_zones_dir, load_zones, parse_feature_collection  # noqa: E402
from vigia.zones.evaluate import ZoneIndex  # noqa: E402
from vigia.zones.model import Zone  # noqa: E402

#: Rough course of the Brazilian coast, lon/lat, south to north.
COAST = np.array(
    [
        (-53.4, -33.7),
        (-50.8, -30.9),
        (-48.6, -28.3),
        (-48.5, -26.0),
        (-46.3, -24.0),
        (-43.2, -23.0),
        (-41.0, -22.0),
        (-39.7, -19.5),
        (-39.0, -17.0),
        (-38.5, -13.0),
        (-35.2, -9.0),
        (-34.8, -7.0),
        (-35.2, -5.5),
        (-38.5, -3.7),
        (-44.0, -2.5),
        (-48.5, -1.3),
        (-50.0, 0.5),
        (-51.2, 4.0),
    ]
)
AREA_KINDS = ["anchorage", "access_channel", "port_facility", "power_plant", "launch_area"]


def _along_coast(rng: np.random.Generator, n: int, spread_deg: float) -> np.ndarray:
    seg = rng.integers(0, len(COAST) - 1, n)
    t = rng.uniform(0, 1, n)[:, None]
    pts = COAST[seg] * (1 - t) + COAST[seg + 1] * t
    return pts + rng.normal(0, spread_deg, (n, 2))


def synthetic_zones(rng: np.random.Generator, n: int) -> list[Zone]:
    """n zones of mixed kinds along the coast."""
    centres = _along_coast(rng, n, 0.15)
    feats: list[dict[str, Any]] = []
    for i, (lon, lat) in enumerate(centres.tolist()):
        r = rng.uniform()
        props: dict[str, Any] = {"id": f"syn-{i}"}
        if r < 0.35:
            props["kind"] = "platform"
            geom: dict[str, Any] = {"type": "Point", "coordinates": [lon, lat]}
        elif r < 0.45:
            props["kind"] = "military"
            geom = {"type": "Point", "coordinates": [lon, lat]}
        elif r < 0.70:
            props["kind"] = "bather_beach"
            k = int(rng.integers(5, 15))
            xs = lon + np.linspace(0, rng.uniform(0.01, 0.04), k)
            ys = lat + np.cumsum(rng.normal(0, 0.0015, k))
            geom = {"type": "LineString", "coordinates": np.column_stack([xs, ys]).tolist()}
        else:
            kind = AREA_KINDS[int(rng.integers(0, len(AREA_KINDS)))] if r < 0.95 else "military"
            props["kind"] = kind
            k = int(rng.integers(8, 20))
            ang = np.sort(rng.uniform(0, 2 * np.pi, k))
            rad = rng.uniform(0.005, 0.025) * rng.uniform(0.7, 1.0, k)
            ring = np.column_stack([lon + rad * np.cos(ang), lat + rad * np.sin(ang)])
            geom = mapping(MultiPoint(ring).convex_hull)
        feats.append({"type": "Feature", "properties": props, "geometry": geom})
    return parse_feature_collection({"type": "FeatureCollection", "features": feats})


def positions(rng: np.random.Generator, zones: list[Zone], n: int, near: float) -> np.ndarray:
    """n positions: a fraction ``near`` within a few km of a zone, the rest open sea."""
    n_near = int(n * near)
    centres = np.array([z.geometry.centroid.coords[0] for z in zones])
    pick = centres[rng.integers(0, len(centres), n_near)]
    close = pick + rng.normal(0, 0.015, (n_near, 2))
    far = _along_coast(rng, n - n_near, 1.5)
    out = np.vstack([close, far])
    return out[rng.permutation(n)]


def _time(fn: Any, runs: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> int:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zones", type=int, default=5000)
    ap.add_argument("--positions", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--near", type=float, default=0.2, help="fraction of positions near zones")
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    args = ap.parse_args()
    if args.quick:
        args.zones, args.positions, args.runs = 500, 50_000, 1
    rng = np.random.default_rng(2026)
    zones = load_zones([bundled_zones_dir()]) + synthetic_zones(rng, args.zones)
    t0 = time.perf_counter()
    index = ZoneIndex(zones)
    build = time.perf_counter() - t0
    xy = positions(rng, zones, args.positions, args.near)
    lon, lat = np.ascontiguousarray(xy[:, 0]), np.ascontiguousarray(xy[:, 1])
    index.evaluate(lon[:1000], lat[:1000])  # build the grid and tree outside the timing
    t_fast, hits = _time(lambda: index.evaluate(lon, lat), args.runs)
    t_base, base = _time(lambda: index.evaluate(lon, lat, prefilter=False), max(1, args.runs // 2))
    assert np.array_equal(hits.pos, base.pos) and np.array_equal(hits.zone, base.zone)
    rate, base_rate = args.positions / t_fast, args.positions / t_base
    kinds = {}
    for z in zones:
        kinds[z.kind.value] = kinds.get(z.kind.value, 0) + 1
    print(f"cpu cores visible: {os.cpu_count()} (all stages single-threaded)")
    print(f"zones: {len(zones)} {dict(sorted(kinds.items()))}; index build {build:.2f} s")
    print(f"positions: {args.positions:,} ({args.near:.0%} within a few km of a zone)")
    print(f"hits: {len(hits):,} pairs on {len(np.unique(hits.pos)):,} positions")
    print(
        f"evaluate (grid + STRtree + exact), median of {args.runs}: {t_fast * 1e3:.0f} ms "
        f"= {rate:,.0f} positions/s"
    )
    print(
        f"baseline (STRtree on every position): {t_base * 1e3:.0f} ms "
        f"= {base_rate:,.0f} positions/s"
    )
    print(
        f"ratio evaluate / baseline: {rate / base_rate:.1f}x; goal 1,000,000/s: "
        f"{'met' if rate >= 1_000_000 else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
