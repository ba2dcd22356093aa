"""Backtests of draft zones over a month of simulated national traffic (issue 36).

Usage: python -m benchmarks.backtest [--quick] [--days 30] [--per-day 5000000]
       [--coast-days N] [--archive DIR] [--repeat 3]

Builds a GeoParquet archive (the archive's own writer: sorted by MMSI then time, 131,072
rows a row group, bbox covering, a cell index beside each file) of ``--days`` days of
simulated traffic along the Brazilian coast, ``--per-day`` positions a day (a report a
minute per vessel; 2 % of the vessels work the Campos basin, six loop past the draft
platform), with an empty hot store holding the bundled zones.
Then backtests, through ``vigia backtest``'s own function:

- a platform-sized draft (a new platform in the Campos basin, 500 m);
- a coast-long draft (a special area 11 km either side of 900 km of coast, Santos to
  Vitória);

and prints for each the positions read from the archive against the positions archived,
the vessels replayed, the leads and the seconds (finding the vessels, their tracks, the
replay). The platform draft runs ``--repeat`` times each way, alternated: with every
day read as one archived before the cell index (``scan``) and with the index
(``index``); medians, and their ratio. ``--archive DIR`` keeps the archive for another
run (of other code, say) on the same files. The baseline, measured in the same run:
reading the window's archive whole (``mmsi`` and the ``bbox`` covering of every row, as
a reader with no statistics to skip by would) just to find the vessels near the
platform. Goal: the platform-sized draft in under 10 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from vigia.service.db.archive_format import STORE_TYPES, table_from_arrow, write_part
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository
from vigia.service.runtime.backtest import backtest
from vigia.zones.catalogue import bundled_zones_dir, load_zones, parse_feature_collection
from vigia.zones.model import Zone

DAY = 86_400
T0 = 1_761_955_200.0  # 2025-11-01T00:00:00Z
M_PER_DEG = 111_320.0
KN = 1852.0 / 3600.0
# the coast, south to north (lon, lat), roughly: where the traffic is
COAST = np.array([
    (-53.0, -33.7), (-51.0, -31.5), (-50.0, -29.5), (-48.6, -27.5), (-48.5, -26.0),
    (-47.5, -25.2), (-46.3, -24.1), (-45.0, -23.6), (-44.0, -23.1), (-43.2, -23.0),
    (-42.0, -22.9), (-41.0, -22.0), (-40.2, -20.3), (-39.7, -19.0), (-39.0, -17.0),
    (-39.0, -14.8), (-38.5, -13.0), (-37.5, -11.5), (-36.0, -10.0), (-35.0, -8.0),
    (-35.2, -5.5), (-37.0, -4.7), (-38.5, -3.7), (-40.5, -2.8), (-42.0, -2.7),
    (-44.3, -2.5), (-46.5, -1.0), (-48.5, -0.8), (-50.0, 1.0), (-51.0, 4.0),
])  # fmt: skip
CAMPOS = (-40.0, -22.4)
PLATFORM = (-40.02, -22.41)
PER_VESSEL = 1440  # a report a minute


def _vessels(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each vessel's loop: centre, radius (m), speed (kn), phase."""
    seg = np.diff(COAST, axis=0)
    length = np.hypot(seg[:, 0], seg[:, 1])
    at = rng.uniform(0, length.sum(), n)
    k = np.minimum(np.searchsorted(np.cumsum(length), at), len(seg) - 1)
    frac = (at - (np.cumsum(length) - length)[k]) / length[k]
    cx = COAST[k, 0] + frac * seg[k, 0]
    cy = COAST[k, 1] + frac * seg[k, 1]
    # offshore, roughly east of the coast line, up to 150 km
    off = rng.uniform(2_000, 150_000, n) / M_PER_DEG
    ang = rng.uniform(-np.pi / 3, np.pi / 3, n)
    cx, cy = cx + off * np.cos(ang), cy + off * np.sin(ang)
    basin = rng.random(n) < 0.02
    cx[basin] = CAMPOS[0] + rng.uniform(-0.4, 0.4, basin.sum())
    cy[basin] = CAMPOS[1] + rng.uniform(-0.4, 0.4, basin.sum())
    r = rng.uniform(2_000, 40_000, n)
    # six supply boats whose loops pass within 300 m of the draft platform
    k = min(6, n)
    th = rng.uniform(0, 2 * np.pi, k)
    reach = r[:k] + rng.uniform(-300, 300, k)
    cx[:k] = PLATFORM[0] + reach * np.cos(th) / (M_PER_DEG * np.cos(np.radians(PLATFORM[1])))
    cy[:k] = PLATFORM[1] + reach * np.sin(th) / M_PER_DEG
    return {
        "cx": cx, "cy": cy, "r": r,
        "kn": rng.uniform(6, 14, n), "phase": rng.uniform(0, 2 * np.pi, n),
    }  # fmt: skip


def _day(v: dict[str, np.ndarray], day: int, rng: np.random.Generator) -> pa.Table:
    """One day of every vessel's reports, in MMSI then time order."""
    n = len(v["cx"])
    t = T0 + day * DAY + np.arange(PER_VESSEL) * 60.0
    tt = np.tile(t, n) + rng.uniform(0, 59, n * PER_VESSEL).round(0)
    w = np.repeat(v["kn"] * KN / v["r"], PER_VESSEL)
    a = np.repeat(v["phase"], PER_VESSEL) + w * (tt - T0)
    r = np.repeat(v["r"], PER_VESSEL) / M_PER_DEG
    cy = np.repeat(v["cy"], PER_VESSEL)
    lat = np.round((cy + r * np.sin(a)) * 600_000) / 600_000
    lon = np.repeat(v["cx"], PER_VESSEL) + r * np.cos(a) / np.cos(np.radians(cy))
    lon = np.round(lon * 600_000) / 600_000
    cols: dict[str, Any] = {
        "mmsi": np.repeat(710_000_000 + np.arange(n), PER_VESSEL),
        "t": tt, "msg_type": np.ones(n * PER_VESSEL, np.int8), "lon": lon, "lat": lat,
        "sog": np.repeat(v["kn"].round(1), PER_VESSEL),
        "cog": np.round(np.degrees(a + np.pi / 2) % 360, 1),
        "heading": np.full(n * PER_VESSEL, 511, np.int16),
        "nav_status": np.zeros(n * PER_VESSEL, np.int8),
        "accuracy": np.ones(n * PER_VESSEL, bool),
        "source": pa.array(["sim"] * (n * PER_VESSEL)),
    }  # fmt: skip
    return table_from_arrow(pa.table({k: pa.array(cols[k], STORE_TYPES[k]) for k in STORE_TYPES}))


def build(root: Path, days: int, per_day: int) -> int:
    """The archive; returns the positions written."""
    rng = np.random.default_rng(36)
    v = _vessels(max(1, per_day // PER_VESSEL), rng)
    total = 0
    for day in range(days):
        _, n = write_part(root, int(T0 // DAY) + day, f"bench-{day}", [_day(v, day, rng)], "native")
        total += n
    return total


def drafts() -> dict[str, list[Zone]]:
    """The platform-sized draft and the coast-long one."""
    import shapely

    line = shapely.LineString(COAST[6:13])  # Santos to Vitória
    strip = shapely.buffer(line, 0.1)
    area = {"type": "Feature", "geometry": shapely.geometry.mapping(strip),
            "properties": {"id": "area-coast", "kind": "special_area", "name": "coast",
                           "valid_from": "2025-01-01T00:00:00Z",
                           "valid_to": "2027-01-01T00:00:00Z"}}  # fmt: skip
    plat = {"type": "Feature", "geometry": {"type": "Point", "coordinates": list(PLATFORM)},
            "properties": {"id": "plat-draft", "kind": "platform", "name": "P-DRAFT"}}  # fmt: skip
    return {
        "platform": parse_feature_collection({"type": "FeatureCollection", "features": [plat]}),
        "coast": parse_feature_collection({"type": "FeatureCollection", "features": [area]}),
    }


def baseline(root: Path, box: tuple[float, float, float, float]) -> tuple[float, int, int]:
    """Every row of the archive read, then filtered: (seconds, rows, vessels found)."""
    began = time.perf_counter()
    rows, found = 0, set()
    for path in sorted(root.glob("day=*/*.parquet")):
        tab = pq.read_table(path, columns=["mmsi", "bbox"])
        rows += tab.num_rows
        b = tab.column("bbox")
        keep = pc.and_(
            pc.and_(pc.greater_equal(pc.struct_field(b, "xmax"), box[0]),
                    pc.less_equal(pc.struct_field(b, "xmin"), box[2])),
            pc.and_(pc.greater_equal(pc.struct_field(b, "ymax"), box[1]),
                    pc.less_equal(pc.struct_field(b, "ymin"), box[3])),
        )  # fmt: skip
        found |= set(pc.unique(tab.column("mmsi").filter(keep)).to_pylist())
    return time.perf_counter() - began, rows, len(found)


def _built(root: Path, days: int, per_day: int) -> tuple[int, float] | None:
    """(positions, seconds) of the archive under ``root``: built now, or None when it
    was built before with the same figures (``--archive``) and is reused."""
    marker = root / "bench.json"
    want = {"days": days, "per_day": per_day}
    if marker.exists():
        had = json.loads(marker.read_text())
        if {k: had.get(k) for k in want} != want:
            raise SystemExit(f"{root} holds another archive ({had}): pick another folder")
        return None
    if root.exists() and any(root.iterdir()):
        raise SystemExit(f"{root} is not empty and was not built by this benchmark")
    began = time.perf_counter()
    archived = build(root, days, per_day)
    marker.write_text(json.dumps({**want, "positions": archived}))
    return archived, time.perf_counter() - began


def _timed(repo: SqlRepository, zones: list[Zone], start: float, until: float,
           index: bool) -> tuple[dict[str, Any], dict[str, float]]:  # fmt: skip
    """One backtest: its report, and the seconds of its stages (finding the vessels,
    reading their tracks, the replay with the comparison and the report)."""
    at: dict[str, float] = {}
    t0 = time.perf_counter()

    def note(stage: str, _: float) -> None:
        at.setdefault(stage, time.perf_counter() - t0)

    out = backtest(repo, zones, start, until, index=index, progress=note)
    total = time.perf_counter() - t0
    stages = {"vessels": at["tracks"] - at["candidates"], "tracks": at["draft"] - at["tracks"],
              "replay": total - at["draft"], "total": total}  # fmt: skip
    return out.report, stages


def _row(label: str, how: str, report: dict[str, Any], secs: dict[str, float], n: int,
         archived: int) -> str:  # fmt: skip
    rd = report["read"]
    scan = rd["positions_scanned_for_vessels"]
    tracks = rd["positions_read_archive"] - scan
    return (f"{label:<9} {how:<5} {n:>3} {scan:>12,} {rd['index_rows_read']:>10,} "
            f"{tracks:>12,} {tracks / max(1, archived):>6.1%} {rd['vessels']:>7,} "
            f"{rd['positions_replayed']:>10,} {report['leads']:>6,} {secs['vessels']:>8.2f} "
            f"{secs['tracks']:>7.2f} {secs['replay']:>7.2f} {secs['total']:>8.2f}")  # fmt: skip


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2 days of 20,000 positions")
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--per-day", type=int, default=5_000_000)
    ap.add_argument(
        "--coast-days", type=int, default=0,
        help="backtest the coast-long draft over the last N days only (0: the whole window)",
    )  # fmt: skip
    ap.add_argument(
        "--archive", type=Path, default=None,
        help="build the archive in this folder and keep it; a folder this benchmark "
        "built before with the same --days and --per-day is reused as it is",
    )  # fmt: skip
    ap.add_argument(
        "--repeat", type=int, default=3,
        help="runs of the platform draft each way (medians printed); the coast one runs once",
    )  # fmt: skip
    args = ap.parse_args()
    days, per_day = (2, 20_000) if args.quick else (args.days, args.per_day)
    repeat = 1 if args.quick else max(1, args.repeat)
    with tempfile.TemporaryDirectory(prefix="vigia-bench-backtest-") as tmp:
        root = args.archive or Path(tmp) / "vigia-archive"
        got = _built(root, days, per_day)
        parts = list(root.glob("day=*/part-*.parquet"))
        archived = sum(pq.read_metadata(p).num_rows for p in parts)
        mb = sum(p.stat().st_size for p in parts) / 1e6
        index_mb = sum(p.stat().st_size for p in root.glob("day=*/_part-*.cells")) / 1e6
        how = f"built in {got[1]:.0f} s" if got else f"reused from {root}"
        print(f"archive: {archived:,} positions, {days} days, {mb:,.0f} MB "
              f"(cell indexes {index_mb:,.1f} MB), {how}")  # fmt: skip
        repo = open_repository(f"sqlite:///{tmp}/bench.sqlite", archive_dir=root)
        assert isinstance(repo, SqlRepository)
        repo.migrate()
        repo.put_zones(load_zones([bundled_zones_dir()]))
        since, until = T0 + DAY, T0 + days * DAY
        from vigia.alerts.backtest.engine import reach_box
        from vigia.alerts.episodes import EpisodeConfig

        plat = drafts()["platform"][0]
        secs, rows, found = baseline(root, reach_box(plat, EpisodeConfig()))
        print(f"baseline  read whole archive for the platform's vessels: {rows:,} rows, "
              f"{found} vessels, {secs:.2f} s")  # fmt: skip
        print("scan: every day's mmsi/bbox row groups read for the vessels (days archived "
              "before the cell index); index: the cell index read instead; seconds are "
              "medians of the runs")  # fmt: skip
        print(f"{'draft':<9} {'read':<5} {'n':>3} {'scanned':>12} {'index rows':>10} "
              f"{'tracks read':>12} {'share':>6} {'vessels':>7} {'replayed':>10} {'leads':>6} "
              f"{'vessels':>8} {'tracks':>7} {'replay':>7} {'seconds':>8}")  # fmt: skip
        zones = drafts()
        runs: dict[bool, list[dict[str, float]]] = {False: [], True: []}
        reports: dict[bool, dict[str, Any]] = {}
        for _ in range(repeat):  # alternated, so that both ways meet the same load
            for index in (False, True):
                reports[index], stage = _timed(repo, zones["platform"], since, until, index)
                runs[index].append(stage)
        for index in (False, True):
            print(_row("platform", "index" if index else "scan", reports[index],
                       _median(runs[index]), repeat, archived))  # fmt: skip
        same = {k: v for k, v in reports[True].items() if k not in ("read", "seconds")} == {
            k: v for k, v in reports[False].items() if k not in ("read", "seconds")
        }
        before, after = _median(runs[False]), _median(runs[True])
        print(f"platform: index against scan, median {before['total']:.2f} s -> "
              f"{after['total']:.2f} s ({before['total'] / after['total']:.1f}x); finding "
              f"the vessels {before['vessels']:.2f} s -> {after['vessels']:.2f} s "
              f"({before['vessels'] / max(after['vessels'], 1e-3):.0f}x); same report "
              f"but for what was read: {same}")  # fmt: skip
        start = since
        if args.coast_days:
            start = max(since, until - args.coast_days * DAY)
        report, stage = _timed(repo, zones["coast"], start, until, True)
        label = "coast" if start == since else f"coast/{(until - start) / DAY:.0f}d"
        print(_row(label, "index", report, stage, 1, archived))
        repo.close()


if __name__ == "__main__":
    main()
