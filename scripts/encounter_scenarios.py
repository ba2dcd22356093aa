"""Meetings at sea for tests and the benchmark (issue 37): synthetic AIS, real NMEA.

Each scenario is a few vessels' tracks and the leads it should raise (its truth):

- ``meeting``: two ships drifting together (0.2-0.8 kn, 80-300 m apart) for 3 h about
  30 km off the coast, away from anchorages and platforms: one ``STS-ENCOUNTER``;
- ``meeting_gap``: the same, one ship silent for 40 min in the middle (under Global
  Fishing Watch's 1 h, so its track is interpolated across): one ``STS-ENCOUNTER``;
- ``passing``: two ships passing 400 m apart at 12 kn on opposite courses: none;
- ``supply``: an FPSO at its charted platform point and a supply vessel (AIS type 33)
  150 m off it for 4 h: no ``STS-ENCOUNTER`` (lawful supply at the platform);
- ``dark``: a ship drifting 5 h far offshore where another came alongside for 40 min and
  went silent for the rest: one ``LOITER`` naming the dark partner, no encounter;
- ``short``: two ships drifting together for 80 min: none (provisional at most).

Nothing here is real traffic.

    .venv/bin/python -m scripts.encounter_scenarios OUT.nmea [--copies N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from scripts import aisgen

T0 = 1_767_261_600.0  # 2026-01-01 10:00 UTC
#: about 30 km (28-31 km by the bundled basemap) south of the coast between Maricá and
#: Saquarema, with no anchorage, port or platform within 20 km
SEA = (-42.45, -23.21)
#: 58 nm offshore, south of the Campos basin, nothing charted within 20 km
FAR = (-40.9, -23.3)
#: the charted point of FPSO P-52 (bundled zones, platforms_campos.geojson)
P52 = (-39.735712, -21.906566)


@dataclass(slots=True)
class Scenario:
    """One case: its lines (time, sentence) and the leads it should raise, by rule."""

    name: str
    mmsis: tuple[int, ...]
    lines: list[tuple[float, str]] = field(default_factory=list)
    truth: dict[str, int] = field(default_factory=dict)


def _track(
    mmsi: int,
    start: tuple[float, float],
    t0: float,
    hours: float,
    rng: random.Random,
    *,
    drift_az: float,
    sog: float,
    dt_s: float = 30.0,
    silent: tuple[float, float] | None = None,
) -> Iterator[tuple[float, str]]:
    """A slow drift (with a few metres of GPS noise) from ``start``."""
    lon, lat = start
    n = int(hours * 3600 / dt_s)
    for i in range(n):
        t = t0 + i * dt_s
        if silent is None or not silent[0] <= t - t0 < silent[1]:
            jl, ja = aisgen.fwd(lon, lat, rng.uniform(0, 360), rng.uniform(0, 8))
            s = max(0.0, sog + rng.uniform(-0.15, 0.15))
            yield t, aisgen.fast_type1(mmsi, t, jl, ja, s, drift_az, 0)
        lon, lat = aisgen.fwd(lon, lat, drift_az, sog * aisgen.KN * dt_s)


def _static(mmsi: int, t: float, name: str, ship_type: int, length: int) -> list[tuple[float, str]]:
    return [(t, s) for s in aisgen.static_lines(mmsi, t, name=name, ship_type=ship_type,
                                                length_m=length)]  # fmt: skip


def _pair(
    name: str, a: int, b: int, where: tuple[float, float], t0: float, hours: float,
    rng: random.Random, silent: tuple[float, float] | None = None,
) -> Scenario:  # fmt: skip
    sc = Scenario(name, (a, b))
    az, sog = rng.uniform(0, 360), rng.uniform(0.2, 0.8)
    sep = rng.uniform(80, 300)
    lon, lat = aisgen.fwd(*where, rng.uniform(0, 360), rng.uniform(0, 3_000))
    other = aisgen.fwd(lon, lat, rng.uniform(0, 360), sep)
    sc.lines += _static(a, t0, "SYNTH TANKER A", 80, 180)
    sc.lines += _static(b, t0 + 1, "SYNTH TANKER B", 80, 120)
    sc.lines += _track(a, (lon, lat), t0, hours, rng, drift_az=az, sog=sog)
    sc.lines += _track(b, other, t0 + 7, hours, rng, drift_az=az, sog=sog, silent=silent)
    return sc


def meeting(a: int, b: int, t0: float, rng: random.Random) -> Scenario:
    sc = _pair("meeting", a, b, SEA, t0, 3.0, rng)
    sc.truth = {"STS-ENCOUNTER": 1}
    return sc


def meeting_gap(a: int, b: int, t0: float, rng: random.Random) -> Scenario:
    sc = _pair("meeting_gap", a, b, SEA, t0, 3.0, rng, silent=(4_200.0, 6_600.0))
    sc.truth = {"STS-ENCOUNTER": 1}
    return sc


def short(a: int, b: int, t0: float, rng: random.Random) -> Scenario:
    sc = _pair("short", a, b, SEA, t0, 80 / 60, rng)
    sc.truth = {}
    return sc


def passing(a: int, b: int, t0: float, rng: random.Random) -> Scenario:
    sc = Scenario("passing", (a, b))
    lon, lat = aisgen.fwd(*SEA, rng.uniform(0, 360), rng.uniform(0, 3_000))
    course = rng.uniform(0, 360)
    # each starts 6 km before the meeting point, on opposite courses 400 m apart
    sa = aisgen.fwd(lon, lat, course + 180, 6_000)
    mid_b = aisgen.fwd(lon, lat, course + 90, 400)
    sb = aisgen.fwd(*mid_b, course, 6_000)
    sc.lines += _static(a, t0, "SYNTH CARGO A", 70, 150)
    sc.lines += _static(b, t0 + 1, "SYNTH CARGO B", 70, 150)
    for m, start, c in ((a, sa, course), (b, sb, course + 180)):
        for f in aisgen.run(*start, course=c % 360, sog_kn=12.0, t0=t0, dt_s=10.0, n=360):
            sc.lines.append((f.t, aisgen.fast_type1(m, f.t, f.lon, f.lat, f.sog, f.cog)))
    sc.truth = {}
    return sc


def supply(a: int, b: int, t0: float, rng: random.Random) -> Scenario:
    """``a`` the FPSO (moored on its charted point), ``b`` a supply vessel beside it."""
    sc = Scenario("supply", (a, b))
    sc.lines += _static(a, t0, "SYNTH FPSO", 80, 300)
    sc.lines += _static(b, t0 + 1, "SYNTH SUPPLY", 33, 80)
    for f in aisgen.hold(*P52, t0=t0, dt_s=180.0, n=80, nav_status=5):
        sc.lines.append((f.t, aisgen.fast_type1(a, f.t, f.lon, f.lat, 0.0, 0.0, 5)))
    start = aisgen.fwd(*P52, rng.uniform(0, 360), 150)
    sc.lines += _track(b, start, t0 + 5, 4.0, rng, drift_az=rng.uniform(0, 360), sog=0.05)
    sc.truth = {}
    return sc


def dark(a: int, b: int, t0: float, rng: random.Random) -> Scenario:
    """``a`` drifts 5 h; ``b`` comes alongside at hour 1, stays 40 min, goes silent."""
    sc = Scenario("dark", (a, b))
    lon, lat = aisgen.fwd(*FAR, rng.uniform(0, 360), rng.uniform(0, 3_000))
    sc.lines += _static(a, t0, "SYNTH WAITING", 80, 200)
    sc.lines += _static(b, t0 + 1, "SYNTH DARK", 80, 150)
    sc.lines += _track(a, (lon, lat), t0, 5.0, rng, drift_az=90.0, sog=0.3)
    meet = aisgen.fwd(lon, lat, 90.0, 0.3 * aisgen.KN * 3_600)  # where a is at hour 1
    side = aisgen.fwd(*meet, 0.0, 200)
    sc.lines += _track(b, side, t0 + 3_600, 40 / 60, rng, drift_az=90.0, sog=0.3)
    sc.truth = {"LOITER": 1}
    return sc


KINDS = {"meeting": meeting, "meeting_gap": meeting_gap, "passing": passing,
         "supply": supply, "dark": dark, "short": short}  # fmt: skip


def build(copies: int = 1, seed: int = 37, kinds: tuple[str, ...] = tuple(KINDS)) -> list[Scenario]:
    """``copies`` of each kind, each pair its own MMSIs, 8 h apart in time per copy."""
    rng = random.Random(seed)
    out = []
    n = 0
    for c in range(copies):
        for kind in kinds:
            a, b = 710_370_000 + 2 * n, 710_370_001 + 2 * n
            out.append(KINDS[kind](a, b, T0 + c * 8 * 3_600.0 + rng.uniform(0, 600), rng))
            n += 1
    return out


def lines(scenarios: list[Scenario]) -> list[str]:
    """Every scenario's sentences merged by time (stable within a vessel)."""
    return aisgen.merge(*(sc.lines for sc in scenarios))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--seed", type=int, default=37)
    args = ap.parse_args(argv)
    scs = build(args.copies, args.seed)
    args.out.write_text("".join(x + "\n" for x in lines(scs)))
    truth = [{"name": s.name, "mmsis": list(s.mmsis), "truth": s.truth} for s in scs]
    args.out.with_suffix(".truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    print(f"{len(scs)} scenarios -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
