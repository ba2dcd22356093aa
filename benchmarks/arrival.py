"""The cost of judging each vessel in event time (issue 31): CPU per record and memory
per vessel with the lateness bound on, against the same pipeline judging in arrival
order (``lateness_s=0``: no timeline, no duplicate check) in the same run.

Three deliveries of one load (the demo capture's fleet copied ``--copies`` times,
MMSI + 1000 k, 7 minutes apart): time-sorted, time-sorted with every record twice (a
rerun), and satellite-like (scripts/satfeed.py: passes late by 0-90 minutes, interleaved,
3 % twice). Each is run ``--runs`` times; medians are printed.

    .venv/bin/python -m benchmarks.arrival --copies 200 --runs 5

``--quick`` (a smoke run): 10 copies, 1 run.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import tracemalloc
from collections.abc import Sequence

from scripts.satfeed import deliver
from tests.support.bus_rig import demo_records
from tests.support.orders import staggered_fleets
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Record
from vigia.ingest.registry import VesselRegistry
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex

BATCH = 500


def run(index: ZoneIndex, records: Sequence[Record], lateness_s: float) -> tuple[float, int]:
    """Seconds of CPU for the whole delivery, and leads given out."""
    pipe = LeadPipeline(index, VesselRegistry(), EpisodeConfig(lateness_s=lateness_s))
    n = 0
    gc.collect()
    t0 = time.process_time()
    for i in range(0, len(records), BATCH):
        n += len(pipe.process(records[i : i + BATCH]))
        n += len(pipe.expire(pipe.stream_time))
    n += len(pipe.finish())
    return time.process_time() - t0, n


def memory_per_vessel(index: ZoneIndex, records: Sequence[Record], lateness_s: float) -> float:
    """Bytes held by the pipeline per vessel after the whole load (nothing settled by
    ``finish``: the state a live service holds)."""
    gc.collect()
    tracemalloc.start()
    pipe = LeadPipeline(index, VesselRegistry(), EpisodeConfig(lateness_s=lateness_s))
    before = tracemalloc.get_traced_memory()[0]
    for i in range(0, len(records), BATCH):
        pipe.process(records[i : i + BATCH])
        pipe.expire(pipe.stream_time)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return held / max(1, pipe.vessel_count)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--copies", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    args = ap.parse_args()
    if args.quick:
        args.copies, args.runs = 10, 1
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    records = staggered_fleets(demo_records(), args.copies)
    deliveries = {
        "time-sorted": records,
        "rerun (every record twice)": records + records,
        "satellite-like": deliver(records, key=lambda r: r.mmsi, time=lambda r: r.t, seed=1),
    }
    print(f"load: {len(records):,} records, {args.copies} fleets, {args.runs} runs each")
    bound = EpisodeConfig().lateness_s
    for name, recs in deliveries.items():
        base = [run(index, recs, 0.0) for _ in range(args.runs)]
        late = [run(index, recs, bound) for _ in range(args.runs)]
        b = statistics.median(x[0] for x in base) / len(recs) * 1e6
        w = statistics.median(x[0] for x in late) / len(recs) * 1e6
        print(
            f"{name}: baseline (arrival order) {b:.2f} us/record, {base[0][1]} leads; "
            f"event time {w:.2f} us/record, {late[0][1]} leads; "
            f"ratio {w / b:.2f}, cost {w - b:+.2f} us/record"
        )
    mb = memory_per_vessel(index, records, 0.0)
    mw = memory_per_vessel(index, records, bound)
    print(
        f"memory per vessel: baseline (arrival order) {mb / 1024:.1f} KiB; "
        f"event time {mw / 1024:.1f} KiB; ratio {mw / mb:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
