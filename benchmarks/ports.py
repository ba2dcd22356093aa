"""Cost of port-visit tracking (issue 33): the same records through the pipeline with
visits tracked and without (the baseline, measured in the same run).

Usage: python -m benchmarks.ports [--ships 100] [--runs 3] [--quick]

Half the ships call at the bundled tanker anchorage (in from 6 km at 12 kn, 6 h at
anchor, out), half steam at sea off Campos far from every port: the second half costs
one dictionary lookup a fix, the first a distance to each port zone within reach.
Figures are medians of the runs, in microseconds a record.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from pyproj import Geod

from scripts import aisgen
from vigia.alerts.pipeline import LeadPipeline
from vigia.alerts.ports.visits import PortVisitConfig
from vigia.ingest.records import Position
from vigia.ingest.registry import VesselRegistry
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex

T0 = 1_767_261_600.0
APEX = (-41.4363774, -23.5012806)  # the anchorage's northernmost vertex
GEOD = Geod(ellps="WGS84")


def _north(d: float) -> tuple[float, float]:
    lon, lat, _ = GEOD.fwd(APEX[0], APEX[1], 0.0, d)
    return float(lon), float(lat)


def _pos(mmsi: int, t: float, at: tuple[float, float], sog: float, status: int) -> Position:
    return Position(mmsi, t, 1, at[0], at[1], sog, 0.0, 0, status, True, "bench", ())


def _caller(mmsi: int, t0: float) -> list[Position]:
    out = [_pos(mmsi, t0 + 30 * k, _north(6_000 - 185.2 * k), 12.0, 0) for k in range(30)]
    out += [_pos(mmsi, t0 + 900 + 180 * i, _north(500), 0.0, 1) for i in range(121)]
    out += [_pos(mmsi, t0 + 22_500 + 30 * j, _north(500 + 185.2 * j), 12.0, 0) for j in range(41)]
    return out


def _at_sea(mmsi: int, t0: float, lon: float, n: int) -> list[Position]:
    fixes = aisgen.run(lon, -21.5, course=180.0, sog_kn=10.0, t0=t0, dt_s=10.0, n=n)
    return [_pos(mmsi, f.t, (f.lon, f.lat), f.sog, 0) for f in fixes]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ships", type=int, default=100, help="ships calling (as many at sea)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="a few ships, one run: a smoke test")
    args = ap.parse_args()
    ships, runs = (4, 1) if args.quick else (args.ships, args.runs)
    recs: list[Position] = []
    for k in range(ships):
        recs += [dataclasses.replace(p, t=p.t + 7 * k) for p in _caller(720_000_000 + k, T0)]
        recs += _at_sea(730_000_000 + k, T0 + 7 * k, -39.7 + 0.01 * k, 2_000)
    recs.sort(key=lambda r: r.t)
    index = ZoneIndex(load_zones([bundled_zones_dir()]))

    def run(enabled: bool) -> tuple[float, int]:
        pipe = LeadPipeline(index, VesselRegistry())
        pipe.port_config = PortVisitConfig(enabled=enabled)
        start = time.perf_counter()
        for i in range(0, len(recs), 5_000):
            pipe.process(recs[i : i + 5_000])
            pipe.expire(pipe.stream_time)
        pipe.finish()
        return time.perf_counter() - start, len(pipe.take_port_visits())

    run(True)  # warm-up: the basemap, H3 and the port frames load once
    took: dict[bool, list[float]] = {False: [], True: []}
    visits = 0
    for _ in range(runs):
        for enabled in (False, True):
            dt, n = run(enabled)
            took[enabled].append(dt)
            visits = max(visits, n)
    off, on = (statistics.median(took[e]) / len(recs) * 1e6 for e in (False, True))
    print(f"records                         {len(recs)}")
    print(f"port visits found               {visits} (of {ships} calls)")
    print(f"without visits (baseline)       {off:8.2f} us/record")
    print(f"with visits                     {on:8.2f} us/record")
    print(f"port visits cost                {on - off:8.2f} us/record ({on / off:.2f}x baseline)")


if __name__ == "__main__":
    main()
