"""Port visits in the pipeline: a mixin of :class:`~vigia.alerts.pipeline.LeadPipeline`.

Each fix the pipeline judges (in the vessel's own time order, again after a late record:
``alerts.rejudge`` calls the same ``_fix``) goes through :func:`watch_fix`, which looks
for silences (``alerts.gaps``) and steps the vessel's port visit. A visit its exit ended
is given out once the clock less the lateness bound has passed that exit
(:meth:`PortStage._settle_visits`), once only (its key in the timeline's ``done``), so the
same records give the same visits however they arrive.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely

from vigia.alerts.episodes import SEG_KEY
from vigia.alerts.gaps.detect import PORT_KINDS, GapConfig, note_silence
from vigia.alerts.ports.visits import PortVisit, PortVisitConfig, VisitState, step
from vigia.alerts.tracking import VesselState
from vigia.ingest.records import Position
from vigia.zones.evaluate import ZoneIndex

#: prefilter cells (degrees): a fix far from every port costs one dict lookup
_CELL = 0.1
_M_PER_DEG = 111_320.0
#: positions whose answer is remembered at most (a few MB)
_SEEN_MAX = 50_000
_DEFAULT_PORTS = PortVisitConfig()
#: point-edge pairs computed at once (8 MB a float64 array)
_PAIRS_MAX = 1_000_000
#: WGS84 semi-major axis (m) and first eccentricity squared
_A, _E2 = 6_378_137.0, 6.694_379_990_14e-3


class _Shape:
    """One port zone in local metres about its centroid: its rings' segments, in an
    equirectangular frame with the ellipsoid's radii at the centroid. Within the 4 km
    that matter its error is centimetres to a metre (GFW's anchorages are cells of
    0.5-1 km), and a distance costs microseconds, not a zone-index query."""

    __slots__ = ("ax", "ay", "dx", "dy", "inv_ll", "kx", "ky", "lat0", "lon0")

    def __init__(self, geom: Any) -> None:
        c = geom.centroid
        self.lon0, self.lat0 = float(c.x), float(c.y)
        phi = math.radians(self.lat0)
        w = math.sqrt(1.0 - _E2 * math.sin(phi) ** 2)
        self.kx = math.radians(1.0) * _A / w * math.cos(phi)  # prime vertical, per degree
        self.ky = math.radians(1.0) * _A * (1.0 - _E2) / w**3  # meridian, per degree
        local = shapely.transform(
            geom, lambda xy: np.column_stack(((xy[:, 0] - self.lon0) * self.kx,
                                              (xy[:, 1] - self.lat0) * self.ky))
        )  # fmt: skip
        ax, ay, dx, dy = [], [], [], []
        for ring in shapely.get_rings(shapely.get_parts(local)).tolist():
            xy = np.asarray(ring.coords)
            ax.append(xy[:-1, 0])
            ay.append(xy[:-1, 1])
            dx.append(np.diff(xy[:, 0]))
            dy.append(np.diff(xy[:, 1]))
        self.ax, self.ay = np.concatenate(ax), np.concatenate(ay)
        self.dx, self.dy = np.concatenate(dx), np.concatenate(dy)
        ll = self.dx * self.dx + self.dy * self.dy
        self.inv_ll = np.where(ll > 0, 1.0 / np.where(ll > 0, ll, 1.0), 0.0)

    def distance(self, lon: float, lat: float) -> float:
        """Metres to the zone (0 inside)."""
        return float(self.distances(np.array([lon]), np.array([lat]))[0])

    def distances(self, lon: Any, lat: Any) -> Any:
        """Metres from each point to the zone (0 inside), points as arrays; the one
        computation for one point and for a batch, so both give the same bits."""
        out = np.empty(len(lon))
        # bounded memory: points x edges at most about a million at a time
        step = max(1, _PAIRS_MAX // max(1, len(self.ax)))
        for i in range(0, len(lon), step):
            out[i : i + step] = self._distances(lon[i : i + step], lat[i : i + step])
        return out

    def _distances(self, lon: Any, lat: Any) -> Any:
        x = ((lon - self.lon0) * self.kx)[:, None]
        y = ((lat - self.lat0) * self.ky)[:, None]
        px, py = x - self.ax, y - self.ay
        dx, dy = self.dx, self.dy
        # inside: an odd number of edges crossed by the ray to +x (holes and parts
        # counted alike, as the even-odd rule does)
        crosses = (py > 0) != (py > dy)
        with np.errstate(divide="ignore", invalid="ignore"):
            xs = self.ax + dx * py / dy
        inside = np.count_nonzero(crosses & (xs > x), axis=1) % 2 == 1
        f = np.clip((px * dx + py * dy) * self.inv_ll, 0.0, 1.0)
        d = np.sqrt(np.min((px - f * dx) ** 2 + (py - f * dy) ** 2, axis=1))
        return np.where(inside, 0.0, d)


class PortFinder:
    """The port and anchorage zones of a zone index within ``reach_m`` of a point."""

    def __init__(self, index: ZoneIndex, reach_m: float) -> None:
        self.source = index  # rebuilt when the pipeline's index is another (a zone edit)
        self.reach_m = reach_m
        self._shapes: dict[int, _Shape] = {}
        cells: dict[tuple[int, int], list[int]] = {}
        for i, z in enumerate(index.zones):
            if z.kind not in PORT_KINDS:
                continue
            self._shapes[i] = _Shape(z.geometry)
            x0, y0, x1, y1 = z.geometry.bounds
            dy = reach_m / _M_PER_DEG + _CELL  # a cell's width beyond, for rounding
            coslat = max(0.05, math.cos(math.radians(max(abs(y0), abs(y1)) + dy)))
            dx = reach_m / (_M_PER_DEG * coslat) + _CELL
            for cx in range(math.floor((x0 - dx) / _CELL), math.floor((x1 + dx) / _CELL) + 1):
                for cy in range(math.floor((y0 - dy) / _CELL), math.floor((y1 + dy) / _CELL) + 1):
                    cells.setdefault((cx, cy), []).append(i)
        self._cells = cells
        self._seen: dict[tuple[float, float], dict[int, float]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_seen": {}}  # a checkpoint need not carry the memo

    def near(self, lon: float, lat: float) -> dict[int, float]:
        """Zone index (in the full index) -> distance (m), for those within reach."""
        cand = self._cells.get((math.floor(lon / _CELL), math.floor(lat / _CELL)))
        if not cand:
            return {}
        # a ship at anchor or moored repeats its position: the answer is a function of
        # the exact position, so remembering it changes nothing but the cost
        seen = self._seen
        got = seen.get((lon, lat))
        if got is None:
            if len(seen) >= _SEEN_MAX:
                seen.clear()
            got = seen[(lon, lat)] = self._near(cand, lon, lat)
        return got

    def prefetch(self, lon: Any, lat: Any) -> None:
        """Answer ``near`` for a batch of points at once (each zone's distances in one
        vectorised pass), into the memo ``near`` reads: the same answers, point by point,
        at a fraction of the cost of one numpy pass per point and zone."""
        seen = self._seen
        if len(seen) + len(lon) > _SEEN_MAX:
            seen.clear()
        cx = np.floor(lon / _CELL).astype(np.int64).tolist()
        cy = np.floor(lat / _CELL).astype(np.int64).tolist()
        todo: dict[tuple[float, float], list[int]] = {}
        for x, y, key in zip(cx, cy, zip(lon.tolist(), lat.tolist(), strict=True), strict=True):
            cand = self._cells.get((x, y))
            if cand and key not in seen and key not in todo:
                todo[key] = cand
        if not todo:
            return
        by_zone: dict[int, list[tuple[float, float]]] = {}
        for key, cand in todo.items():
            for z in cand:
                by_zone.setdefault(z, []).append(key)
        got: dict[tuple[int, tuple[float, float]], float] = {}
        for z, keys in by_zone.items():
            pts = np.array(keys)
            dist = self._shapes[z].distances(pts[:, 0], pts[:, 1]).tolist()
            got.update(((z, key), d) for key, d in zip(keys, dist, strict=True))
        reach = self.reach_m
        for key, cand in todo.items():  # in the candidates' order, as ``_near`` builds it
            seen[key] = {z: d for z in cand if (d := got[z, key]) <= reach}

    def _near(self, cand: list[int], lon: float, lat: float) -> dict[int, float]:
        out: dict[int, float] = {}
        for z in cand:
            d = self._shapes[z].distance(lon, lat)
            if d <= self.reach_m:
                out[z] = d
        return out


class PortStage:
    """Port visits of the pipeline's vessels (see module docstring)."""

    index: ZoneIndex
    gap_config: GapConfig
    _vessels: dict[int, VesselState]
    _gapping: set[int]
    counters: dict[str, int]

    @property
    def port_config(self) -> PortVisitConfig:
        cfg = self.__dict__.get("_port_config")
        return cfg if cfg is not None else _DEFAULT_PORTS

    @port_config.setter
    def port_config(self, cfg: PortVisitConfig) -> None:
        self.__dict__["_port_config"] = cfg
        self.__dict__.pop("_port_finder", None)

    def _ports(self) -> PortFinder:
        # built on first use, for the index in force
        finder: PortFinder | None = self.__dict__.get("_port_finder")
        if finder is None or finder.source is not self.index:
            finder = PortFinder(self.index, self.port_config.exit_m)
            self.__dict__["_port_finder"] = finder
        return finder

    def prefetch_ports(self, lon: Any, lat: Any) -> None:
        """The batch's port distances in one pass (:meth:`PortFinder.prefetch`)."""
        if self.port_config.enabled:
            self._ports().prefetch(lon, lat)

    def _visiting(self) -> set[int]:
        """Vessels with visits their fixes ended, waiting for the bound."""
        return self.__dict__.setdefault("_port_waiting", set())  # type: ignore[no-any-return]

    def watch_fix(self, vs: VesselState, pos: Position) -> None:
        """One fix, in the vessel's time order: its silence since the previous fix (a
        gap inside one port visit is marked so) and its port visit."""
        gap_cfg = self.gap_config
        pcfg = self.port_config
        seen = vs.seen
        before = vs.visit
        in_before = None if before is None or before.zone is None else before.arrival_t
        gap = None
        if gap_cfg.enabled:
            silent = seen is not None and pos.t - seen[0] >= gap_cfg.min_gap_s
            if silent and note_silence(vs, pos, seen, gap_cfg):  # type: ignore[arg-type]
                self._gapping.add(pos.mmsi)
                gap = vs.gaps[-1]  # type: ignore[index]
            vs.seen = (pos.t, pos.lon, pos.lat, pos.sog, pos.cog, pos.nav_status, pos.msg_type,
                       pos.source)  # fmt: skip
        if not pcfg.enabled:
            return
        assert pos.lon is not None and pos.lat is not None
        near = self._ports().near(pos.lon, pos.lat)
        st = vs.visit
        if st is None:
            if not near:
                if gap is not None:
                    gap.port = ""  # visits tracked: in none
                return
            st = vs.visit = VisitState()
        if step(st, pcfg, pos.mmsi % SEG_KEY, (pos.t, pos.lon, pos.lat, pos.sog), near,
                self.index.zones) is not None or st.done:  # fmt: skip
            self._visiting().add(pos.mmsi)  # (again after a late record restored it)
        if gap is not None:
            # both ends inside one visit: the one open before the silence still open
            same = in_before is not None and st.zone is not None and st.arrival_t == in_before
            gap.port = self.index.zones[st.zone].id if same and st.zone is not None else ""
        if st.idle:
            vs.visit = None

    def _settle_visits(self, now: float, bound: float, final: bool, clock: Any) -> None:
        """Give out every visit whose exit the clock less the bound has passed."""
        waiting = self._visiting()
        out: list[PortVisit] = self.__dict__.setdefault("_port_out", [])
        for key in list(waiting):
            vs = self._vessels.get(key)
            st = None if vs is None else vs.visit
            if vs is None or st is None or not st.done:
                waiting.discard(key)
                continue
            done = vs.tl.done if vs.tl is not None else None
            keep = []
            for zone, visit in st.done:
                w = math.inf if final else clock(visit.departure_t, now) - bound
                if w <= visit.departure_t:
                    keep.append((zone, visit))
                    continue
                mark = ("PORT-VISIT", zone, visit.arrival_t)
                if done is not None and mark in done:
                    continue  # given out before a late record made it be found again
                out.append(visit)
                # counted where the pipeline's counters go (vigia replay, /metrics)
                self.counters["port_visits"] = self.counters.get("port_visits", 0) + 1
                if done is not None:
                    done.add(mark)
            st.done = keep
            if not keep:
                waiting.discard(key)
                if st.idle:
                    vs.visit = None

    def take_port_visits(self) -> list[PortVisit]:
        """Visits settled since the last call (final: the bound has passed their exit)."""
        out: list[PortVisit] = self.__dict__.get("_port_out") or []
        self.__dict__["_port_out"] = []
        return out

    def in_port(self, mmsi: int) -> str | None:
        """The zone id of the visit the vessel is in now, if any."""
        vs = self._vessels.get(mmsi)
        st = None if vs is None else vs.visit
        return None if st is None or st.zone is None else self.index.zones[st.zone].id


def hand_over_visits(old: Any, nxt: Any, keep: dict[int, int]) -> None:
    """A zone edit: visits carry over to the new index where their zone is unchanged
    (``keep``: old index -> new); a visit in a changed or removed zone is dropped, as
    episodes of such zones are closed by the edit."""
    nxt.port_config = old.port_config
    waiting = nxt._visiting()
    for mmsi, vs in old._vessels.items():
        st = vs.visit
        if st is None:
            continue
        if st.zone is not None:
            st.zone = keep.get(st.zone)
            if st.zone is None:
                st.stops, st.stop_from = [], None
        st.done = [(keep[z], v) for z, v in st.done if z in keep]
        if st.done:
            waiting.add(mmsi)
        if st.idle:
            vs.visit = None
    nxt.__dict__["_port_out"] = old.take_port_visits()
