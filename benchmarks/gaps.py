"""Going dark (issue 33): how well ``AIS-GAP`` finds planted silences, against Global
Fishing Watch's "suspected disabling" rule on the same data, and what gap and coverage
tracking cost per record and per vessel, against the same pipeline without them.

Traffic is generated around the bundled Campos basin platforms (the real charted
points): each vessel steams 4 h at 8-12 kn with a fix every 10 s, passing 0.8-1.6 km
from a platform (outside its 500 m, so no SEC-PLATFORM), heard by one of four coast
receivers; each platform passed has a standby vessel moored 600 m off (every 3 min, the
same receiver, half of them by satellite too); background vessels steam through the same
waters, some heard by a satellite feed. Planted cases, one per vessel, 45 min each
(none in the control vessels):

- ``dark``: the vessel's own reports deleted around its closest approach: a suspect
  next to a closed area (truth: a lead);
- ``outage``: the vessel's coast receiver down (every message it delivered deleted),
  while a satellite may still hear others there: a coverage gap (truth: no lead);
- ``far``: the vessel's reports deleted 25+ km before the platform: a silence near no
  closed area (truth: no lead);
- ``gfw``: a vessel 80+ nm offshore, silent 13 h, heard every 10 s before: GFW's
  suspected disabling (truth for GFW's rule; no closed area near it, so no AIS-GAP).

    .venv/bin/python -m benchmarks.gaps --vessels 200 --runs 3

``--quick``: 24 vessels, 1 run.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import itertools
import random
import statistics
import time
import tracemalloc
from typing import Any

from scripts import aisgen
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.gaps.detect import GapConfig
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Position, Record
from vigia.ingest.registry import VesselRegistry
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import ZoneKind

T0 = 1_767_261_600.0
SILENCE_S = 2_700.0
CASES = ("dark", "outage", "far", "gfw", "control")


def _track(mmsi: int, start: tuple[float, float], course: float, sog: float, t0: float,
           n: int, source: str) -> list[Position]:  # fmt: skip
    out = []
    for f in aisgen.run(*start, course=course, sog_kn=sog, t0=t0, dt_s=10.0, n=n):
        out.append(Position(mmsi, f.t, 1, f.lon, f.lat, f.sog, f.cog, None, 0, True, source))
    return out


def scenario(index: ZoneIndex, vessels: int, seed: int) -> tuple[list[Record], dict[int, str]]:
    """The traffic with its planted cases, time-sorted, and each vessel's case."""
    rng = random.Random(seed)
    plats = [z.geometry for z in index.zones if z.kind is ZoneKind.PLATFORM]
    recs: list[Position] = []
    truth: dict[int, str] = {}
    outages: list[tuple[float, float, float, float, str]] = []  # t0, t1, lon, lat, rx
    for k in range(vessels):
        mmsi = 710_100_000 + k
        case = CASES[k % len(CASES)]
        truth[mmsi] = case
        p = rng.choice(plats)
        course = rng.uniform(0, 360)
        sog = rng.uniform(8, 12)
        side = aisgen.fwd(p.x, p.y, course + 90, rng.uniform(800, 1_600))
        half = sog * aisgen.KN * 7_200
        if case == "gfw":  # far offshore, 30 h at 10 s
            start = aisgen.fwd(p.x, p.y, 110, 200_000)
            track = _track(mmsi, start, 110.0, 6.0, T0, 10_800, "sat")
            t_mid = T0 + 8 * 3_600
            cut = (t_mid, t_mid + 13 * 3_600)
        else:
            start = aisgen.fwd(*side, course + 180, half)
            # the outage cases share one receiver that goes down; nobody else uses it
            src = "rx-down" if case == "outage" else f"rx-{k % 4}"
            track = _track(mmsi, start, course, sog, T0 + rng.uniform(0, 3_600), 1_440, src)
            mid = track[len(track) // 2].t
            # far: 20-31 km before the platform, beyond what 45 min at 12 kn can reach
            at = mid - 5_000 if case == "far" else mid
            cut = (at - SILENCE_S / 2, at + SILENCE_S / 2)
            if case == "outage":
                q = track[len(track) // 2]
                assert q.lon is not None and q.lat is not None
                outages.append((cut[0], cut[1], q.lon, q.lat, src))
        if case != "control":
            track = [r for r in track if not cut[0] <= r.t <= cut[1]]
        recs += track
        if case != "gfw":  # the platform's standby vessel, moored 600 m off, heard by the
            # same coast receiver and (every other one) by satellite too
            standby = aisgen.fwd(p.x, p.y, rng.uniform(0, 360), 600)
            for i, r in enumerate(_track(730_100_000 + k, standby, 0.0, 0.0, T0, 1_000,
                                         src)):  # fmt: skip
                if i % 18 == 0:  # every 3 min, as a moored class A reports
                    recs.append(dataclasses.replace(r, nav_status=5))
                    if k % 2:
                        recs.append(dataclasses.replace(r, nav_status=5, source="sat"))
    for k in range(vessels // 2):  # background traffic, a third of it by satellite
        p = rng.choice(plats)
        start = aisgen.fwd(p.x, p.y, rng.uniform(0, 360), 12_000)
        recs += _track(720_100_000 + k, start, rng.uniform(0, 360), 9.0, T0, 1_800,
                       "sat" if k % 3 == 0 else f"rx-{k % 4}")  # fmt: skip
    for t0, t1, _, _, rx in outages:  # the receiver down: nothing it hears arrives
        recs = [r for r in recs if not (t0 <= r.t <= t1 and r.source == rx)]
    recs.sort(key=lambda r: r.t)
    return list(recs), truth


def _near(r: Position, lon: float, lat: float, m: float) -> bool:
    assert r.lon is not None and r.lat is not None
    return abs(r.lon - lon) < m / 100_000 and abs(r.lat - lat) < m / 110_000


def run(index: ZoneIndex, recs: list[Record], gaps: GapConfig) -> tuple[float, list[Any], Any]:
    pipe = LeadPipeline(index, VesselRegistry(), EpisodeConfig(), gaps=gaps)
    gc.collect()
    t0 = time.process_time()
    leads = []
    for i in range(0, len(recs), 1_000):
        leads += pipe.process(recs[i : i + 1_000]) + pipe.expire(pipe.stream_time)
    leads += pipe.finish()
    return time.process_time() - t0, leads, pipe


def gfw_rule(recs: list[Record], truth: dict[int, str]) -> dict[int, bool]:
    """GFW's suspected disabling on the same data: a silence of 12 h or more, both ends
    more than 50 nm from shore, at least 14 positions in the 12 h before."""
    from vigia.zones.ballast import get_assessor

    by: dict[int, list[Position]] = {}
    for r in recs:
        if type(r) is Position and r.mmsi in truth:
            by.setdefault(r.mmsi, []).append(r)
    out = {}
    for mmsi, track in by.items():
        flagged = False
        for a, b in itertools.pairwise(track):
            if b.t - a.t < 12 * 3_600:
                continue
            before = sum(1 for r in track if a.t - 12 * 3_600 <= r.t <= a.t)
            d = get_assessor().distance_nm([a.lon, b.lon], [a.lat, b.lat])
            flagged = flagged or (before >= 14 and float(min(d)) > 50.0)
        out[mmsi] = flagged
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--vessels", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    a = ap.parse_args()
    if a.quick:
        a.vessels, a.runs = 24, 1
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    recs, truth = scenario(index, a.vessels, seed=1)
    print(f"traffic: {len(recs):,} records, {len(truth)} planted vessels, {a.runs} runs")
    on, off = GapConfig(), dataclasses.replace(GapConfig(), enabled=False)
    from vigia.zones.ballast import get_assessor

    t_load = time.perf_counter()
    get_assessor().distance_nm([-40.0], [-22.0])  # the shore distances' basemap, once
    print(f"basemap for shore distances loaded once: {time.perf_counter() - t_load:.2f} s")
    base = [run(index, recs, off) for _ in range(a.runs)]
    with_gaps = [run(index, recs, on) for _ in range(a.runs)]
    b = statistics.median(x[0] for x in base) / len(recs) * 1e6
    w = statistics.median(x[0] for x in with_gaps) / len(recs) * 1e6
    print(f"CPU per record: baseline (gaps off) {b:.2f} us; gaps and coverage {w:.2f} us; "
          f"cost {w - b:+.2f} us ({w / b:.2f}x)")  # fmt: skip
    leads = with_gaps[0][1]
    flagged = {x.mmsi for x in leads if x.rule == "AIS-GAP"}
    gfw = gfw_rule(recs, truth)
    for case in CASES:
        ms = [m for m, c in truth.items() if c == case]
        got = sum(1 for m in ms if m in flagged)
        g = sum(1 for m in ms if gfw.get(m))
        print(f"case {case}: {len(ms)} vessels; AIS-GAP leads {got}; GFW rule flags {g}")
    tp = sum(1 for m in flagged if truth.get(m) == "dark")
    fp = len(flagged) - tp
    dark = sum(1 for c in truth.values() if c == "dark")
    prec = tp / len(flagged) if flagged else 1.0
    print(f"AIS-GAP against the truth: precision {prec:.2f}, recall {tp / max(1, dark):.2f} "
          f"({tp} of {dark} dark vessels, {fp} false leads)")  # fmt: skip
    gtp = sum(1 for m, c in truth.items() if c == "gfw" and gfw.get(m))
    print(
        f"GFW rule on its own cases: {gtp} of {sum(1 for c in truth.values() if c == 'gfw')}"
        f"; on the 45-min dark cases next to platforms: "
        f"{sum(1 for m, c in truth.items() if c == 'dark' and gfw.get(m))} (baseline rule)"
    )
    counters = with_gaps[0][2].counters
    print(
        "verdicts: " + ", ".join(f"{k}={v}" for k, v in counters.items() if k.startswith("gaps_"))
    )
    tracemalloc.start()
    _, _, pipe = run(index, recs, on)
    cov = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    tracemalloc.start()
    _, _, pipe0 = run(index, recs, off)
    cov0 = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    vessels = max(1, len({r.mmsi for r in recs}))
    print(f"memory per vessel: baseline (gaps off) {cov0 / vessels / 1024:.1f} KiB; "
          f"with gaps {cov / vessels / 1024:.1f} KiB")  # fmt: skip
    del pipe, pipe0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
