"""What each stage of the lead pipeline costs per record: the full pipeline against it
without port visits, without the encounter watch, and without both (the baseline), on
the going-dark benchmark's traffic (benchmarks/gaps.py: vessels passing the Campos
platforms, standby vessels, background traffic; gaps off in every variant, so only the
stages differ). CPU time (process_time), medians of ``--runs``; a stage's cost is its
variant's difference from the full run.

    .venv/bin/python -m benchmarks.stages --vessels 60 --runs 3

``--quick``: 12 vessels, 1 run.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import statistics
import time

from benchmarks.gaps import scenario
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.gaps.detect import GapConfig
from vigia.alerts.pipeline import LeadPipeline
from vigia.alerts.ports.visits import PortVisitConfig
from vigia.ingest.records import Record
from vigia.ingest.registry import VesselRegistry
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex

VARIANTS = ("full", "no port visits", "no encounter watch", "baseline (neither)")


def run(index: ZoneIndex, recs: list[Record], variant: str) -> float:
    """CPU microseconds per record of one pass of the pipeline over ``recs``."""
    gaps_off = dataclasses.replace(GapConfig(), enabled=False)
    pipe = LeadPipeline(index, VesselRegistry(), EpisodeConfig(), gaps=gaps_off)
    if variant in ("no port visits", "baseline (neither)"):
        pipe.port_config = PortVisitConfig(enabled=False)
    if variant in ("no encounter watch", "baseline (neither)"):
        pipe.__dict__["encounters"] = None  # the watch's own switch (alerts/encounters)
    gc.collect()
    t0 = time.process_time()
    for i in range(0, len(recs), 1_000):
        pipe.process(recs[i : i + 1_000])
        pipe.expire(pipe.stream_time)
    return (time.process_time() - t0) / len(recs) * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--vessels", type=int, default=60)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="12 vessels, 1 run: a smoke run")
    a = ap.parse_args()
    if a.quick:
        a.vessels, a.runs = 12, 1
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    recs, _ = scenario(index, a.vessels, seed=1)
    print(f"traffic: {len(recs):,} records, {a.runs} runs, interleaved")
    got: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for _ in range(a.runs):
        for v in VARIANTS:  # interleaved, so load on the machine falls on all alike
            got[v].append(run(index, recs, v))
    med = {v: statistics.median(xs) for v, xs in got.items()}
    base = med["baseline (neither)"]
    for v in VARIANTS:
        print(f"{v:>20}: {med[v]:5.2f} us/record ({med[v] / base:4.2f}x the baseline)")
    ports, watch = med["full"] - med["no port visits"], med["full"] - med["no encounter watch"]
    print(f"port visits cost {ports:.2f} us/record; the encounter watch {watch:.2f} us/record")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
