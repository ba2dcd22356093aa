"""A hand-built capture of static data that changes under one MMSI (issue 34), and the
identity history it must leave in the store, written down by hand from the capture.

- A renames ALFA -> BRAVO at T0 + 1200, then at T0 + 1800 its IMO goes from 9074729
  (check digit right: 9*7+0*6+7*5+4*4+7*3+2*2 = 139) to 9074728 (fails it): two rows.
- B is re-typed 70 -> 80 and lengthened 90 -> 120 m in one report at T0 + 3000.
- C renames itself every 30 s for an hour (CX, CY, CX, ...): 119 changes in one UTC
  day, of which the first 50 are kept and all 119 counted.
- D renames itself a minute before and a minute after UTC midnight: one change on each
  day.

A and B also report their position each minute, so a late static report is put in its
place among fixes (alerts/rejudge.py). The whole capture spans 95 minutes, less than
the lateness bound (2 h): delivered in any order, every record can still take its place.
"""

from __future__ import annotations

from typing import Any

from scripts import aisgen
from vigia.alerts.identity.history import DAY_CAP, utc_day
from vigia.ingest.records import Position, Record, StaticData

T0 = 1_767_306_600.0  # 2026-01-01T22:30:00Z
MIDNIGHT = 1_767_312_000.0  # 2026-01-02T00:00:00Z, T0 + 90 min
A, B, C, D = 710_000_701, 710_000_702, 710_000_703, 710_000_704
SOURCE = "capture"

#: (mmsi, time, name, call sign, IMO (0: none), ship type, length in metres)
REPORTS: list[tuple[int, float, str, str, int, int, int]] = [
    (A, T0 + 600, "ALFA", "PPAA", 9074729, 70, 90),
    (A, T0 + 1200, "BRAVO", "PPAA", 9074729, 70, 90),
    (A, T0 + 1800, "BRAVO", "PPAA", 9074728, 70, 90),
    (B, T0 + 600, "CHARLIE", "PPCC", 0, 70, 90),
    (B, T0 + 3000, "CHARLIE", "PPCC", 0, 80, 120),
    *((C, T0 + 30.0 * k, "CX" if k % 2 == 0 else "CY", "PPXX", 0, 30, 20) for k in range(120)),
    (D, T0 + 600, "DELTA", "PPDD", 0, 70, 40),
    (D, MIDNIGHT - 60, "DELTA II", "PPDD", 0, 70, 40),
    (D, MIDNIGHT + 60, "DELTA III", "PPDD", 0, 70, 40),
]

#: the stored history by vessel, oldest first: (time, field, before, after)
EXPECTED: dict[int, list[tuple[float, str, Any, Any]]] = {
    A: [
        (T0 + 1200, "name", "ALFA", "BRAVO"),
        (T0 + 1800, "imo", 9074729, 9074728),
        (T0 + 1800, "imo_check", None, 9074728),
    ],
    B: [(T0 + 3000, "ship_type", 70, 80), (T0 + 3000, "length_m", 90.0, 120.0)],
    C: [
        (T0 + 30.0 * k, "name", "CX" if k % 2 else "CY", "CY" if k % 2 else "CX")
        for k in range(1, DAY_CAP + 1)
    ],
    D: [
        (MIDNIGHT - 60, "name", "DELTA", "DELTA II"),
        (MIDNIGHT + 60, "name", "DELTA II", "DELTA III"),
    ],
}
#: changes counted per (vessel, UTC day)
EXPECTED_DAYS = {
    (A, utc_day(T0)): 3,
    (B, utc_day(T0)): 2,
    (C, utc_day(T0)): 119,
    (D, utc_day(T0)): 1,
    (D, utc_day(MIDNIGHT)): 1,
}


def statics() -> list[StaticData]:
    """The static reports as the decoder gives them (beam 4 m: aisgen's 2 + 2)."""
    return [
        StaticData(m, t, 5, name=n, callsign=cs, imo=imo or None, ship_type=ty,
                   length_m=float(ln), beam_m=4.0, source=SOURCE)
        for m, t, n, cs, imo, ty, ln in REPORTS
    ]  # fmt: skip


def _fixes(mmsi: int, lon: float) -> list[aisgen.Fix]:
    return aisgen.run(lon, -30.0, course=0, sog_kn=10, t0=T0, dt_s=60, n=95)


def records() -> list[Record]:
    """The whole capture as records, in time order."""
    fixes: list[Record] = [
        Position(m, f.t, 1, f.lon, f.lat, f.sog, f.cog, None, 0, None, SOURCE)
        for m, lon in ((A, -38.0), (B, -37.5))
        for f in _fixes(m, lon)
    ]
    return sorted([*statics(), *fixes], key=lambda r: r.t)


def nmea_lines() -> list[str]:
    """The whole capture as tagged NMEA (type 5 and type 1), in time order."""
    out: list[tuple[float, str]] = []
    for m, t, n, cs, imo, ty, ln in REPORTS:
        out += [(t, s) for s in aisgen.static_lines(m, t, name=n, ship_type=ty, length_m=ln,
                                                    callsign=cs, imo=imo)]  # fmt: skip
    for m, lon in ((A, -38.0), (B, -37.5)):
        out += list(aisgen.lines_for(m, _fixes(m, lon)))
    return [s for _, s in sorted(out, key=lambda x: x[0])]
