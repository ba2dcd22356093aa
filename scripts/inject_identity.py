"""Plant identity spoofing into real traffic (issue 34), for benchmarks/identity.py.

Each case goes on one real vessel of the capture that has static data and 10+ fixes
(one case per vessel, chosen by a seed), changing only what the case needs:

- ``shared``: a second ship on its MMSI: its fixes again, 5 s later, 40 km away on a
  bearing drawn for the vessel (each borrowed MMSI's other ship is somewhere else)
  (truth: ``ID-MMSI-SHARED``);
- ``alternate``: static reports of another identity (name, call sign) between its own
  (truth: ``ID-STATIC-CHANGE``);
- ``imo``: from its middle on, its type 5 reports carry another valid IMO number
  (truth: ``ID-STATIC-CHANGE``);
- ``flag``: its static reports carry a Brazilian call sign under its foreign MID
  (truth: ``ID-MID-FLAG``);
- ``land``: 20 min of its fixes replaced by fixes a minute apart in Brasília, 900 km
  inland and 20 km from any river (truth: ``ID-ON-LAND``, alerts/identity/land.py);
- ``cluster``: GNSS interference, three vessels at a time (so ``--per-case`` events take
  three times as many vessels): at one instant each reports where it was 30 s before
  (its nearest fix, retimed), then, 20 s after the one before it, three fixes a minute
  apart at one spot at sea off Cabo Frio (one spot per event, 50 km apart), in place of
  its own fixes of those 5 minutes; then its own track again
  (truth: ``ID-INTERFERENCE`` naming it, alerts/identity/interference.py);
- ``circle``: 35 minutes of its fixes, from its middle on, replaced by fixes 10 s
  apart going 3.5 times round a circle of 800 m about where it was (a generated track)
  (truth: ``ID-CIRCLE``, alerts/identity/circles.py);
- ``bad_imo``: its IMO number given a wrong check digit, and ``rename``: renamed once:
  what one honest ship does (truth: no lead).

    .venv/bin/python -m scripts.inject_identity CAPTURE.nmea   # prints the plan
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
from collections.abc import Sequence

from vigia.alerts.identity.mid import BRAZIL_MID, mid_of
from vigia.alerts.identity.static import imo_valid
from vigia.ingest.records import Position, Record, StaticData

CASES = ("shared", "alternate", "imo", "flag", "land", "cluster", "circle", "bad_imo", "rename")
#: the rule each case must raise (None: no lead)
TRUTH: dict[str, str | None] = {
    "shared": "ID-MMSI-SHARED",
    "alternate": "ID-STATIC-CHANGE",
    "imo": "ID-STATIC-CHANGE",
    "flag": "ID-MID-FLAG",
    "land": "ID-ON-LAND",
    "cluster": "ID-INTERFERENCE",
    "circle": "ID-CIRCLE",
    "bad_imo": None,
    "rename": None,
}
BRASILIA = (-47.88, -15.79)
#: where the planted interference puts its ships (open sea off Cabo Frio)
SPOT = (-41.5, -23.5)
CLUSTER = 3
_TWIN_M = 40_000.0  # how far the borrowed MMSI's other ship is


def _bad_check_digit(imo: int) -> int:
    base = imo - imo % 10
    return base + (imo + 1) % 10 if imo_valid(imo) else imo


def _valid_imo(rng: random.Random) -> int:
    while True:
        imo = rng.randrange(9_000_000, 9_999_999)
        if imo_valid(imo):
            return imo


def candidates(records: Sequence[Record], min_fixes: int = 10) -> list[int]:
    """Ship-station MMSIs with static data and ``min_fixes``+ fixes, not Brazil's, in
    MMSI order."""
    fixes: dict[int, int] = {}
    static: set[int] = set()
    for r in records:
        if type(r) is Position and r.lon is not None:
            fixes[r.mmsi] = fixes.get(r.mmsi, 0) + 1
        elif type(r) is StaticData:
            static.add(r.mmsi)
    return sorted(
        m for m, n in fixes.items()
        if n >= min_fixes and m in static
        and 200_000_000 <= m < 800_000_000 and mid_of(m) != BRAZIL_MID
    )  # fmt: skip


def inject(
    records: Sequence[Record], per_case: int, seed: int = 0, min_fixes: int = 10
) -> tuple[list[Record], dict[int, str]]:
    """The capture with ``per_case`` vessels of each case planted (time-sorted), and
    the case of each planted MMSI."""
    rng = random.Random(seed)
    pool = candidates(records, min_fixes)
    rng.shuffle(pool)
    # the IMO cases need a vessel that sends a valid IMO number
    with_imo = {r.mmsi for r in records if type(r) is StaticData and r.imo and imo_valid(r.imo)}
    plan: dict[int, str] = {}
    for case in CASES:
        fits = [m for m in pool if m not in plan and (m in with_imo or "imo" not in case)]
        n = per_case * (CLUSTER if case == "cluster" else 1)
        plan.update(dict.fromkeys(fits[:n], case))
    by_vessel: dict[int, list[Record]] = {}
    for r in records:
        if r.mmsi in plan:
            by_vessel.setdefault(r.mmsi, []).append(r)
    out = [r for r in records if r.mmsi not in plan]
    groups = [m for m, c in plan.items() if c == "cluster"]
    mid = sorted(r.t for r in records)[len(records) // 2]
    for g in range(0, len(groups), CLUSTER):
        # events 30 min apart, each at its own spot 50 km east of the last
        t_g, spot = mid + 1_800.0 * g / CLUSTER, (SPOT[0] + 0.5 * g / CLUSTER, SPOT[1])
        for i, m in enumerate(groups[g : g + CLUSTER]):
            out += _spoof(sorted(by_vessel[m], key=lambda r: r.t), t_g + 20.0 * i, spot)
    for m, case in plan.items():
        if case != "cluster":
            out += _plant(case, sorted(by_vessel[m], key=lambda r: r.t), rng)
    out.sort(key=lambda r: r.t)
    return out, plan


def _spoof(recs: list[Record], t: float, spot: tuple[float, float]) -> list[Record]:
    """One ship of an interference event: where it was 30 s before ``t``, then three
    fixes a minute apart at ``spot`` from ``t`` on, in place of its own of that span."""
    pos = [r for r in recs if type(r) is Position and r.lon is not None]
    near = min(pos, key=lambda p: abs(p.t - t))
    kept = [r for r in recs if not (type(r) is Position and t - 30.0 <= r.t <= t + 300.0)]
    was = dataclasses.replace(near, t=t - 30.0)
    fake = [
        dataclasses.replace(near, t=t + 60.0 * k, lon=spot[0] + 0.001 * k, lat=spot[1])
        for k in range(3)
    ]
    return [*kept, was, *fake]


def _plant(case: str, recs: list[Record], rng: random.Random) -> list[Record]:
    pos = [r for r in recs if type(r) is Position and r.lon is not None]
    t_mid = pos[len(pos) // 2].t
    if case == "shared":
        b = math.radians(rng.uniform(0.0, 360.0))
        dlat = _TWIN_M * math.cos(b) / 111_320.0
        twin = [
            dataclasses.replace(
                p, t=p.t + 5.0, lat=p.lat + dlat,  # type: ignore[operator]
                lon=p.lon + _TWIN_M * math.sin(b) / (111_320.0 * math.cos(math.radians(p.lat))),  # type: ignore[arg-type,operator]
            )
            for p in pos
        ]  # fmt: skip
        return [*recs, *twin]
    if case == "circle":
        p0 = pos[len(pos) // 2]
        n = 212  # 3.5 laps of 6 degrees a fix, and the two ends
        kept = [r for r in recs if not (type(r) is Position and p0.t <= r.t <= p0.t + 10.0 * n)]
        k = 111_320.0 * math.cos(math.radians(p0.lat))  # type: ignore[arg-type]
        ring = [
            dataclasses.replace(
                p0, t=p0.t + 10.0 * i,
                lon=p0.lon + 800.0 * math.sin(math.radians(6.0 * i)) / k,  # type: ignore[operator]
                lat=p0.lat + 800.0 * math.cos(math.radians(6.0 * i)) / 111_320.0,  # type: ignore[operator]
            )
            for i in range(n)
        ]  # fmt: skip
        return [*kept, *ring]
    if case == "land":
        # 20 min of fixes a minute apart in the city, in place of its own then (a
        # spoofed receiver reports as often as a real one)
        t0, p0 = pos[len(pos) // 3].t, pos[len(pos) // 3]
        kept = [r for r in recs if not (type(r) is Position and t0 <= r.t <= t0 + 1_200.0)]
        spoof = [
            dataclasses.replace(p0, t=t0 + 60.0 * k, lon=BRASILIA[0] + 0.0005 * k, lat=BRASILIA[1])
            for k in range(21)
        ]
        return [*kept, *spoof]
    out: list[Record] = []
    other_imo = _valid_imo(rng)
    for k, r in enumerate(recs):
        if type(r) is not StaticData:
            out.append(r)
            continue
        if case == "alternate":
            # its own, another's 30 s later, its own again 30 s after that
            out.append(r)
            out.append(dataclasses.replace(r, t=r.t + 30.0, name=f"GHOST {k}", callsign="GH0ST"))
            out.append(dataclasses.replace(r, t=r.t + 60.0))
        elif case == "imo":
            out.append(dataclasses.replace(r, imo=other_imo) if r.t >= t_mid and r.imo else r)
        elif case == "flag":
            out.append(dataclasses.replace(r, callsign="PPZQ") if r.callsign else r)
        elif case == "bad_imo":
            out.append(dataclasses.replace(r, imo=_bad_check_digit(r.imo)) if r.imo else r)
        elif case == "rename":
            renamed = r.t >= t_mid and r.name is not None
            out.append(dataclasses.replace(r, name=f"{r.name} II") if renamed else r)
        else:
            out.append(r)
    if case in ("imo", "flag", "bad_imo") and not any(
        type(r) is StaticData and r.msg_type == 5 for r in recs
    ):
        # a vessel sending no type 5 (class B): one planted at its middle carries the case
        st = StaticData(recs[0].mmsi, t_mid, 5, name="PLANTED", callsign="AB12")
        out.append(
            dataclasses.replace(st, imo=other_imo if case == "imo" else 1_000_008,
                                callsign="PPZQ" if case == "flag" else "AB12")
        )  # fmt: skip
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from benchmarks.identity import read_capture

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("capture")
    ap.add_argument("--per-case", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    records = read_capture(args.capture)
    _, plan = inject(records, args.per_case, args.seed)
    for m, case in sorted(plan.items(), key=lambda x: (x[1], x[0])):
        print(f"{case:10s} {m}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
