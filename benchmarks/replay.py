"""Replay throughput and memory: `vigia replay` against bare pyais decoding, same file.

Traffic is generated around the real bundled zones (Rio beaches and Guanabara Bay, the
Campos basin platforms): thousands of vessels reporting every 10 s, some idling, some
crossing zones, written once to a temporary NMEA file with tag blocks.

Figures (medians over --runs runs, all in this one process run, in process CPU time so
that other load on a shared machine disturbs them less):
  * bare pyais: FileReaderStream over the file, ``decode()`` every message;
  * vigia: as `vigia replay` does, FileSource text blocks -> BatchIngestor -> LeadPipeline
    (batches of 5,000), leads counted;
  * ratio vigia / pyais (goal >= 1.5), also as the median of the paired runs;
  * peak RSS of a fresh process replaying growing inputs (goal: flat);
  * peak RSS with 100,000 distinct vessels against a few thousand (goal: well under 1 GB).

Run: ``python -m benchmarks.replay`` (``--quick`` for a smaller, faster pass).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

from scripts import aisgen

ROOT = Path(__file__).resolve().parents[1]

T0 = 1_767_261_600.0
M_PER_DEG = 111_320.0


def _homes() -> list[tuple[float, float, float]]:
    """(lon, lat, spread_m) around which traffic is generated: every bundled zone."""
    from vigia.zones.catalogue import bundled_zones_dir, load_zones

    out = []
    for z in load_zones([bundled_zones_dir()]):
        c = z.geometry.centroid
        out.append((float(c.x), float(c.y), 4000.0))
    return out


def write_traffic(path: Path, vessels: int, steps: int, seed: int = 1) -> int:
    """Write ``vessels`` x ``steps`` type 1 reports (10 s apart); returns the count."""
    rng = random.Random(seed)
    homes = _homes()
    state = []
    for k in range(vessels):
        hlon, hlat, spread = homes[k % len(homes)]
        r, a = spread * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
        lat = hlat + r * math.cos(a) / M_PER_DEG
        lon = hlon + r * math.sin(a) / (M_PER_DEG * math.cos(math.radians(hlat)))
        idle = rng.random() < 0.3
        sog = 0.0 if idle else rng.uniform(2, 16)
        state.append([lon, lat, sog, rng.uniform(0, 360), hlon, hlat, 1 if idle else 0])
    n = 0
    with open(path, "w") as f:
        for s in range(steps):
            t = T0 + 10 * s
            lines = []
            for k, v in enumerate(state):
                lon, lat, sog, cog, hlon, hlat, nav = v
                lines.append(aisgen.fast_type1(710_000_000 + k, t, lon, lat, sog, cog, nav))
                if sog > 0:
                    d = sog * aisgen.KN * 10
                    lat += d * math.cos(math.radians(cog)) / M_PER_DEG
                    lon += (
                        d * math.sin(math.radians(cog)) / (M_PER_DEG * math.cos(math.radians(lat)))
                    )
                    cog = (cog + rng.uniform(-5, 5)) % 360
                    if math.hypot(lon - hlon, lat - hlat) * M_PER_DEG > 8000:
                        cog = math.degrees(math.atan2(hlon - lon, hlat - lat)) % 360
                v[0], v[1], v[3] = lon, lat, cog
            f.write("\n".join(lines) + "\n")
            n += len(lines)
    return n


def bare_pyais(path: Path) -> int:
    """Decode every message with pyais alone; returns the message count."""
    from pyais.stream import FileReaderStream

    n = 0
    for msg in FileReaderStream(str(path)):
        msg.decode()
        n += 1
    return n


def ingest_only(path: Path) -> int:
    """Ingestion alone (FileSource -> BatchIngestor), to split the replay's cost."""
    from vigia.ingest.batch import BatchIngestor
    from vigia.ingest.sources import REPLAY_HINT, FileSource

    src = FileSource(path)
    blocks = src.text_blocks(REPLAY_HINT)
    return sum(1 for _ in BatchIngestor().feed_texts(blocks, src.name))


def vigia_replay(path: Path) -> tuple[int, int]:
    """Replay in-process as `vigia replay` does; returns (records, leads)."""
    from vigia.alerts.pipeline import LeadPipeline
    from vigia.ingest.batch import BatchIngestor
    from vigia.ingest.sources import REPLAY_HINT, FileSource
    from vigia.service.cli.replay import tune_gc
    from vigia.zones.catalogue import bundled_zones_dir, load_zones
    from vigia.zones.evaluate import ZoneIndex

    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    thresholds = gc.get_threshold()
    tune_gc()  # as the command does
    try:
        ingestor = BatchIngestor()
        pipe = LeadPipeline(index, ingestor.registry)
        src = FileSource(path)
        it = ingestor.feed_texts(src.text_blocks(REPLAY_HINT), src.name)
        records = leads = 0
        while batch := list(islice(it, 5000)):
            records += len(batch)
            leads += len(pipe.process(batch))
            leads += len(pipe.expire(pipe.stream_time))
        leads += len(pipe.finish())
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    return records, leads


def _child(path: str) -> None:
    t = time.perf_counter()
    records, leads = vigia_replay(Path(path))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    secs = time.perf_counter() - t
    print(json.dumps({"records": records, "leads": leads, "rss_mb": rss_mb, "s": secs}))


def _child_baseline() -> None:
    import vigia.alerts.pipeline
    import vigia.ingest.decoder  # noqa: F401
    from vigia.zones.catalogue import bundled_zones_dir, load_zones
    from vigia.zones.evaluate import ZoneIndex

    ZoneIndex(load_zones([bundled_zones_dir()]))
    print(json.dumps({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def _fresh(*args: str) -> dict[str, float]:
    # as a module from the repository, so that the child imports scripts.aisgen as the
    # parent does (run as a file path it could not)
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.replay", *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vessels", type=int, default=3000)
    ap.add_argument("--steps", type=int, default=100, help="reports per vessel (10 s apart)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--many", type=int, default=100_000, help="distinct vessels for memory")
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-baseline", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child)
        return 0
    if args.child_baseline:
        _child_baseline()
        return 0
    if args.quick:
        args.vessels, args.steps, args.runs, args.many = 500, 20, 1, 5000
    with tempfile.TemporaryDirectory() as tmp:
        main_file = Path(tmp) / "traffic.nmea"
        n = write_traffic(main_file, args.vessels, args.steps)
        size_mb = main_file.stat().st_size / 1e6
        print(
            f"traffic: {args.vessels} vessels x {args.steps} reports = {n} messages, "
            f"{size_mb:.1f} MB"
        )
        py_rates, ing_rates, vg_rates, leads = [], [], [], 0
        clock = time.process_time
        for _ in range(args.runs):
            gc.collect()
            t = clock()
            got = bare_pyais(main_file)
            py_rates.append(got / (clock() - t))
            gc.collect()
            t = clock()
            ingested = ingest_only(main_file)
            ing_rates.append(ingested / (clock() - t))
            gc.collect()
            t = clock()
            records, leads = vigia_replay(main_file)
            vg_rates.append(records / (clock() - t))
            if not got == ingested == records == n:
                raise SystemExit(f"message counts differ: {n} {got} {ingested} {records}")
        py, ing, vg = (statistics.median(x) for x in (py_rates, ing_rates, vg_rates))
        paired = statistics.median(v / p for v, p in zip(vg_rates, py_rates, strict=True))
        print(f"bare pyais decode : {py:10,.0f} msg/s (median of {args.runs}, CPU time; baseline)")
        print(f"vigia ingest only : {ing:10,.0f} msg/s  (ratio {ing / py:.2f})")
        print(f"vigia replay      : {vg:10,.0f} msg/s, {leads} leads")
        print(f"ratio vigia replay / bare pyais: {vg / py:.2f}  (goal >= 1.5)")
        print(f"ratio vigia replay / bare pyais, median of paired runs: {paired:.2f}")
        per_ing, per_all = 1e6 / ing, 1e6 / vg
        print(
            f"cost per message: ingest {per_ing:.1f} us, zones+rules+episodes "
            f"{per_all - per_ing:.1f} us"
        )

        base = _fresh("--child-baseline")["rss_mb"]
        print(f"peak RSS, imports + zones only: {base:.0f} MB")
        for factor in (1, 2, 4):
            f = Path(tmp) / f"grow{factor}.nmea"
            m = write_traffic(f, args.vessels, args.steps * factor // 2, seed=2)
            r = _fresh("--child", str(f))
            print(f"peak RSS replaying {r['records']:>9,.0f} messages: {r['rss_mb']:.0f} MB")
            f.unlink()

        many = Path(tmp) / "many.nmea"
        m = write_traffic(many, args.many, 3, seed=3)
        r = _fresh("--child", str(many))
        per = (r["rss_mb"] - base) * 1024 * 1024 / args.many
        print(
            f"peak RSS with {args.many:,} distinct vessels ({m:,} messages): "
            f"{r['rss_mb']:.0f} MB (~{per:.0f} bytes per vessel over the baseline; "
            "goal well under 1 GB)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
