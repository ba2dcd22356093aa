"""Meetings at sea (issue 37): how well ``STS-ENCOUNTER`` and ``LOITER`` find the planted
scenarios, how many they raise on the shared real corpus, and what pairing costs per
record against the same pipeline without it, measured in the same run.

Scenarios (scripts/encounter_scenarios.py, ``--copies`` of each, 8 h apart): two ships
drifting together 3 h about 30 km off the coast (truth: one encounter); the same with one
ship silent 40 min in the middle (one encounter: under GFW's 1 h it is interpolated
across); two ships passing 400 m apart at 12 kn (none); a supply vessel 150 m off its
FPSO for 4 h (none); a ship drifting 5 h far offshore where another came alongside and
went silent (one LOITER naming the dark partner); two ships together for 80 min (none).

    .venv/bin/python -m benchmarks.encounters --copies 20 --runs 3

``--quick``: 2 copies, 1 run, the repository's real sample instead of the corpus.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Sequence

from benchmarks._data import corpus
from scripts import encounter_scenarios as es
from vigia.alerts.encounters.watch import EncounterWatch
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import Position, RawLine, Record, StaticData
from vigia.ingest.registry import VesselRegistry
from vigia.ingest.sources import FileSource
from vigia.zones.ballast import get_assessor
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex

RULES = ("STS-ENCOUNTER", "LOITER")
BATCH = 2_000


def decode(lines: Sequence[str]) -> list[Record]:
    ing = Ingestor()
    out: list[Record] = []
    for line in lines:
        out += ing.feed(RawLine(line, 4_000_000_000.0, "bench"))
    out += ing.flush()
    return [r for r in out if type(r) in (Position, StaticData)]


def run(index: ZoneIndex, recs: list[Record], *, pairing: bool) -> tuple[float, list[Lead]]:
    """CPU seconds of the whole pipeline over ``recs`` in batches, and its leads."""
    pipe = LeadPipeline(index, VesselRegistry())
    if not pairing:
        pipe.encounters = None  # the baseline: the same pipeline without the watch
    gc.collect()
    t0 = time.process_time()
    leads: list[Lead] = []
    for i in range(0, len(recs), BATCH):
        leads += pipe.process(recs[i : i + BATCH]) + pipe.expire(pipe.stream_time)
        pipe.open_leads()  # as the live worker asks between batches
    leads += pipe.finish()
    return time.process_time() - t0, leads


def watch_alone(index: ZoneIndex, recs: list[Record]) -> float:
    w = EncounterWatch(index)
    gc.collect()
    t0 = time.process_time()
    for i in range(0, len(recs), BATCH):
        w.feed(recs[i : i + BATCH])
        w.expire(w.stream_time)
        w.open_leads()
    w.expire(w.stream_time, final=True)
    return time.process_time() - t0


def score(scs: list[es.Scenario], leads: list[Lead]) -> dict[str, tuple[int, int, int]]:
    """Per rule: (true, false, missed) against each scenario's truth."""
    out = {}
    for rule in RULES:
        tp = fp = fn = 0
        for sc in scs:
            got = sum(1 for x in leads if x.rule == rule and x.mmsi in sc.mmsis)
            want = sc.truth.get(rule, 0)
            tp += min(got, want)
            fp += max(0, got - want)
            fn += max(0, want - got)
        out[rule] = (tp, fp, fn)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    copies, runs = (2, 1) if a.quick else (a.copies, a.runs)
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    t = time.perf_counter()
    get_assessor()  # the shore basemap, loaded once at the first drifting judged
    print(f"basemap for shore distances loaded once: {time.perf_counter() - t:.2f} s")
    scs = es.build(copies)
    recs = decode(es.lines(scs))
    print(f"scenarios: {len(scs)} ({copies} of each of {len(es.KINDS)}), {len(recs):,} records")
    base, with_, alone = [], [], []
    leads: list[Lead] = []
    for _ in range(runs):
        base.append(run(index, recs, pairing=False)[0])
        s, leads = run(index, recs, pairing=True)
        with_.append(s)
        alone.append(watch_alone(index, recs))
    for kind in es.KINDS:
        mine = [sc for sc in scs if sc.name == kind]
        got = {r: sum(1 for x in leads if x.rule == r and any(x.mmsi in sc.mmsis for sc in mine))
               for r in RULES}  # fmt: skip
        print(f"  {kind:12s} x{len(mine)}: STS-ENCOUNTER {got['STS-ENCOUNTER']}, "
              f"LOITER {got['LOITER']}")  # fmt: skip
    for rule, (tp, fp, fn) in score(scs, leads).items():
        p = tp / max(1, tp + fp)
        r = tp / max(1, tp + fn)
        print(f"{rule}: precision {p:.2f}, recall {r:.2f} ({tp} found, {fp} false, {fn} missed)")
    us = [1e6 * x / len(recs) for x in (statistics.median(base), statistics.median(with_),
                                        statistics.median(alone))]  # fmt: skip
    print(f"CPU per record (median of {runs}): baseline, the pipeline without pairing, "
          f"{us[0]:.2f} us; with it {us[1]:.2f} us (+{us[1] - us[0]:.2f} us, "
          f"{us[1] / us[0]:.2f}x); the watch alone {us[2]:.2f} us")  # fmt: skip
    path = corpus(a.quick)
    ing = Ingestor()
    real = [r for r in ing.feed_many(FileSource(path).lines()) if type(r) in (Position, StaticData)]
    real += [r for r in ing.flush() if type(r) in (Position, StaticData)]
    s0, _ = run(index, real, pairing=False)
    s1, real_leads = run(index, real, pairing=True)
    found = [x for x in real_leads if x.rule in RULES]
    span = max(r.t for r in real) - min(r.t for r in real)
    print(f"real corpus {path.name}: {len(real):,} records over {span / 3600:.2f} h, "
          f"{len({r.mmsi for r in real}):,} vessels; STS-ENCOUNTER/LOITER leads: {len(found)}; "
          f"CPU per record {1e6 * s0 / len(real):.2f} us without pairing (baseline), "
          f"{1e6 * s1 / len(real):.2f} us with it")  # fmt: skip
    for x in found:
        print(f"  {x.rule} {x.mmsi} {x.details.get('partner_mmsi')} {x.closest_lat:.4f} "
              f"{x.closest_lon:.4f} {x.details.get('duration_s')}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
