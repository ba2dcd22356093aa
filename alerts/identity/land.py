"""Fixes deep inside land: ``ID-ON-LAND`` (issue 34).

A ship cannot sail on land; a transponder fed a false position (GNSS spoofing, a
simulator, a position typed in) or one left switched on in a warehouse or on a truck
can report one. The land is ``zones/basemaps/land_core.npz``, built by
``scripts/build_land_core.py``: the points more than :data:`MARGIN_M` inside both
Natural Earth 1:10m's land (with the Navy chart's around Rio) and GSHHG's shoreline,
more than :data:`WATER_M` from every river and lake GSHHG carries (WDBII rivers; lakes
include the Amazon's and the Negro's "river-lakes") and every lake of Natural Earth
1:10m (the reservoirs), and more than :data:`PORT_M` from every port of the World Port
Index's Brazilian list. The bands are that wide because
the sources are coarse: Natural Earth's coast runs up to 300 m off the chart's, WDBII's
river lines up to 6 km off the Tietê and the Paranaíba, docks stand on reclaimed ground.
Metres are SIRGAS 2000 / Brazil Polyconic (EPSG:5880; a few per mille of scale error).

A **run**: a vessel's consecutive fixes inside that land, in its time order (as the
interference watch settles them), no two more than :data:`MAX_GAP_S` apart. A run of at
least :data:`MIN_FIXES` fixes over at least :data:`MIN_SPAN_S` is one lead (one bad fix
is a glitch, not a ship), given out when the run ends (a fix off that land, a gap, the
settled bound :data:`MAX_GAP_S` past its last fix, the end of input) or once it has
lasted :data:`REPORT_S`, whichever is first: a transponder left on shore for weeks is
one lead, given the hour it qualifies, not weeks later. The fixes after that, in the
same run, are counted, not reported again.

A ship put on land by GNSS interference with others is the interference event's
victim: the link is read with the lead (``victims.py``), as for a zone lead.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray
from pyproj import Transformer
from shapely.geometry import box
from shapely.geometry.base import BaseGeometry

from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.zones.basemap import BASEMAP_DIR, BasemapError, bundled_land

RULE = "ID-ON-LAND"
CORE_FILE = BASEMAP_DIR / "land_core.npz"
#: the bands of the bundled core (scripts/build_land_core.py writes them into the file)
MARGIN_M = 2_000.0
WATER_M = 8_000.0
PORT_M = 10_000.0
MIN_FIXES = 5
MIN_SPAN_S = 600.0
MAX_GAP_S = 3_600.0
REPORT_S = 3_600.0
EVIDENCE_CAP = 50
#: Brazil and its neighbours' coasts, where the polyconic projection holds its scale
WINDOW = (-75.0, -35.0, -28.0, 7.0)
_CRS = "EPSG:5880"
RULE_TEXT = (
    f"{MIN_FIXES}+ fixes over {MIN_SPAN_S:.0f}+ s (none {MAX_GAP_S:.0f} s after the last) "
    f"more than {MARGIN_M:.0f} m inside land by two coastlines (Natural Earth, GSHHG), "
    f"{WATER_M:.0f} m from any river or lake and {PORT_M:.0f} m from any port"
)


@cache
def _to_metres() -> Transformer:
    return Transformer.from_crs("EPSG:4326", _CRS, always_xy=True)


@cache
def core() -> BaseGeometry:
    """The bundled land no vessel can be on, in projected metres (module docstring)."""
    if not CORE_FILE.exists():
        raise BasemapError(f"land core missing: {CORE_FILE} (run scripts/build_land_core.py)")
    with np.load(CORE_FILE, allow_pickle=False) as f:
        geom: BaseGeometry = shapely.from_wkb(f["wkb"].tobytes())
        meta = json.loads(str(f["meta"]))
    if (meta["margin_m"], meta["water_m"], meta["port_m"]) != (MARGIN_M, WATER_M, PORT_M):
        raise BasemapError(f"{CORE_FILE} was built with other bands: {meta}")
    shapely.prepare(geom)
    return geom


@cache
def _core_edge() -> BaseGeometry:
    """The core's boundary, for how far past the bands a lead's first fix lies."""
    edge: BaseGeometry = core().boundary
    shapely.prepare(edge)
    return edge


@cache
def _plain(margin_m: float) -> BaseGeometry:
    """Natural Earth's land less a band of ``margin_m`` along its coast, in metres."""
    land = shapely.intersection(bundled_land().polygons, box(*WINDOW))
    proj = shapely.transform(land, lambda xy: np.column_stack(_to_metres().transform(*xy.T)))
    out = shapely.buffer(proj, -margin_m)
    shapely.prepare(out)
    return out


def _inside(
    geom: BaseGeometry, lons: NDArray[np.float64], lats: NDArray[np.float64]
) -> NDArray[np.bool_]:
    lons = np.asarray(lons, dtype=np.float64)
    lats = np.asarray(lats, dtype=np.float64)
    x0, y0, x1, y1 = WINDOW
    out = np.zeros(lons.shape, dtype=bool)
    near = (lons >= x0) & (lons <= x1) & (lats >= y0) & (lats <= y1)
    if near.any():
        x, y = _to_metres().transform(lons[near], lats[near])
        out[near] = shapely.contains_xy(geom, x, y)
    return out


def deep_on_land(lons: NDArray[np.float64], lats: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether each fix lies on the land no vessel can be on (vectorised)."""
    return _inside(core(), lons, lats)


def inside_coast(
    lons: NDArray[np.float64], lats: NDArray[np.float64], margin_m: float
) -> NDArray[np.bool_]:
    """Whether each fix lies more than ``margin_m`` inside Natural Earth's land alone (no
    rivers, lakes or ports taken out: the naive baseline and the margin's test)."""
    return _inside(_plain(margin_m), lons, lats)


def land_runs(
    t: Sequence[float], deep: Sequence[bool], min_fixes: int = MIN_FIXES
) -> list[tuple[int, int]]:
    """(first, last) indices of each run of consecutive deep fixes (one vessel's, in
    time order, none more than :data:`MAX_GAP_S` after the one before) of at least
    ``min_fixes`` fixes spanning at least :data:`MIN_SPAN_S`: an oracle of the watch."""
    runs = []
    i, n = 0, len(deep)
    while i < n:
        if not deep[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and deep[j + 1] and t[j + 1] - t[j] <= MAX_GAP_S:
            j += 1
        if j - i + 1 >= min_fixes and t[j] - t[i] >= MIN_SPAN_S:
            runs.append((i, j))
        i = j + 1
    return runs


class Run:
    """One vessel's fixes on land: the first ones kept for evidence (t, lon, lat packed),
    how many, the last fix's time, whether it was given out."""

    __slots__ = ("count", "fixes", "last_t", "reported")

    def __init__(self, t: float, lon: float, lat: float) -> None:
        self.fixes = array("d", (t, lon, lat))
        self.count = 1
        self.last_t = t
        self.reported = False

    # pickled as plain values: a partition state admits no array type (bus/state.py)
    def __getstate__(self) -> tuple[Any, ...]:
        return self.fixes.tobytes(), self.count, self.last_t, self.reported

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        fixes, self.count, self.last_t, self.reported = state
        self.fixes = array("d", bytes(fixes))

    @property
    def first_t(self) -> float:
        return self.fixes[0]

    def qualifies(self) -> bool:
        return self.count >= MIN_FIXES and self.last_t - self.first_t >= MIN_SPAN_S


class LandWatch:
    """Runs on land of every vessel it is given, in each vessel's time order (module
    docstring). Fixes wait in a batch until :meth:`close`, which judges them against the
    land in one vectorised call. Plain state: pickled with the interference watch."""

    def __init__(self) -> None:
        self._batch: list[tuple[int, float, float, float]] = []
        self._runs: dict[int, Run] = {}
        self._done: list[Lead] = []
        self.counters: dict[str, int] = {}

    def _count(self, key: str, n: int = 1) -> None:
        self.counters[key] = self.counters.get(key, 0) + n

    def take(self, mmsi: int, t: float, lon: float, lat: float) -> None:
        """A settled fix of ``mmsi``, after every earlier one of it."""
        self._batch.append((mmsi, t, lon, lat))

    def _judge(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        _, _, lons, lats = (np.fromiter(c, dtype=np.float64) for c in zip(*batch, strict=True))
        deep = deep_on_land(lons, lats).tolist()
        for (mmsi, t, lon, lat), d in zip(batch, deep, strict=True):
            run = self._runs.get(mmsi)
            if run is not None and (not d or t - run.last_t > MAX_GAP_S):
                self._end(mmsi, self._runs.pop(mmsi))
                run = None
            if not d:
                continue
            self._count("land_fixes")
            if run is None:
                self._runs[mmsi] = Run(t, lon, lat)
                continue
            run.count += 1
            run.last_t = t
            if len(run.fixes) < 3 * EVIDENCE_CAP:
                run.fixes.extend((t, lon, lat))
            if not run.reported and t - run.first_t >= REPORT_S and run.qualifies():
                self._end(mmsi, run)

    def close(self, bound: float) -> list[Lead]:
        """The leads given out so far, ending the runs no fix can extend any more (the
        settled ``bound`` more than :data:`MAX_GAP_S` past their last fix; all of them at
        a ``bound`` of ``math.inf``: the input is complete)."""
        self._judge()
        for mmsi in [m for m, r in self._runs.items() if bound - r.last_t > MAX_GAP_S]:
            self._end(mmsi, self._runs.pop(mmsi))
        out, self._done = self._done, []
        return out

    def _end(self, mmsi: int, run: Run) -> None:
        if run.reported or not run.qualifies():
            return
        run.reported = True
        self._done.append(self._lead(mmsi, run))

    def _lead(self, mmsi: int, run: Run) -> Lead:
        k = run.fixes
        fixes = [(k[i], k[i + 1], k[i + 2]) for i in range(0, len(k), 3)]
        t0, lon0, lat0 = fixes[0]
        x, y = _to_metres().transform(lon0, lat0)
        inside_m = float(shapely.distance(_core_edge(), shapely.Point(x, y)))
        details: dict[str, Any] = {
            "fixes": run.count,
            "span_s": round(run.last_t - t0, 1),
            "beyond_bands_m": round(inside_m, 1),
            "bands_m": {"coast": MARGIN_M, "water": WATER_M, "port": PORT_M},
            "land": "Natural Earth 1:10m and GSHHG 2.3.6; waters: WDBII rivers, GSHHG and "
            "Natural Earth lakes; ports: World Port Index",
            "rule": RULE_TEXT,
        }
        points = [EvidencePoint(t, lon, lat, None, None, None) for t, lon, lat in fixes]
        return build_lead(
            mmsi=mmsi, rule=RULE, zone=None, started_at=t0, ended_at=run.last_t,
            key_point=EvidencePoint(t0, lon0, lat0, None, None, None),
            points=points, cap=EVIDENCE_CAP, vessel=vessel_json(mmsi, None),
            max_sog_kn=None, details=details,
        )  # fmt: skip
