"""Scenario kit for the lead tests: geodesic tracks, independent geodesic truth, pipelines."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pyproj import Geod
from shapely.geometry import LineString, MultiLineString, Point, Polygon, shape
from shapely.geometry.base import BaseGeometry

from scripts import aisgen
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Position, Record, StaticData
from vigia.ingest.registry import VesselRegistry
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import Zone

ROOT = Path(__file__).resolve().parents[2]

GEOD = Geod(ellps="WGS84")
T0 = 1_767_261_600.0  # 2026-01-01T10:00:00Z, a summer morning on the beach


def bundled_index() -> ZoneIndex:
    """The real bundled zones, compiled."""
    return ZoneIndex(load_zones([bundled_zones_dir()]))


def find_zone(index: ZoneIndex, kind: str, name_part: str = "") -> tuple[int, Zone]:
    """First bundled zone of a kind whose id or name contains ``name_part``."""
    for i, z in enumerate(index.zones):
        label = f"{z.id} {z.name or ''}".lower()
        if z.kind == kind and name_part.lower() in label:
            return i, z
    raise LookupError(f"no bundled {kind} zone matching {name_part!r}")


def index_from(features: Sequence[dict[str, Any]], tmp_path: Path) -> ZoneIndex:
    """A ZoneIndex from test-defined GeoJSON features, through the real catalogue."""
    path = tmp_path / f"zones_{len(list(tmp_path.iterdir()))}.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": list(features)}))
    return ZoneIndex(load_zones([path]))


def feature(geom: BaseGeometry, **props: Any) -> dict[str, Any]:
    """A GeoJSON feature from a shapely geometry and properties."""
    return {"type": "Feature", "properties": props, "geometry": geom.__geo_interface__}


def square(lon: float, lat: float, half_m: float) -> Polygon:
    """A square of half-side ``half_m`` metres centred on (lon, lat)."""
    n = aisgen.fwd(lon, lat, 0, half_m)[1]
    s = aisgen.fwd(lon, lat, 180, half_m)[1]
    e = aisgen.fwd(lon, lat, 90, half_m)[0]
    w = aisgen.fwd(lon, lat, 270, half_m)[0]
    return Polygon([(w, s), (e, s), (e, n), (w, n)])


def _densify(coords: Sequence[tuple[float, float]], step_m: float = 0.5) -> np.ndarray:
    pts: list[tuple[float, float]] = []
    for (x1, y1), (x2, y2) in itertools.pairwise(coords):
        _, _, d = GEOD.inv(x1, y1, x2, y2)
        n = int(d / step_m)
        pts.append((x1, y1))
        pts.extend(GEOD.npts(x1, y1, x2, y2, n) if n > 0 else [])
    pts.append(coords[-1])
    return np.asarray(pts)


def geodesic_truth(geom: BaseGeometry, lon: float, lat: float) -> float:
    """Independent geodesic distance (m) from a point to a zone's reference geometry:
    ellipsoidal distances to the geometry densified every half metre (0 inside areas)."""
    if isinstance(geom, Point):
        return float(GEOD.inv(lon, lat, geom.x, geom.y)[2])
    if isinstance(geom, Polygon) and geom.contains(Point(lon, lat)):
        return 0.0
    if isinstance(geom, LineString):
        lines = [list(geom.coords)]
    elif isinstance(geom, MultiLineString):
        lines = [list(g.coords) for g in geom.geoms]
    elif isinstance(geom, Polygon):
        lines = [list(geom.exterior.coords)]
    else:
        lines = [list(g.exterior.coords) for g in getattr(geom, "geoms", [])]
    best = float("inf")
    for coords in lines:
        pts = _densify(coords)
        _, _, d = GEOD.inv(np.full(len(pts), lon), np.full(len(pts), lat), pts[:, 0], pts[:, 1])
        best = min(best, float(np.min(d)))
    return best


def beach_frame(zone: Zone) -> tuple[float, float, float, float]:
    """(lon, lat, along, seaward) at the middle of the longest segment of a south-facing
    beach baseline: a foot point, the baseline's azimuth and the seaward normal."""
    geom = zone.geometry
    parts = [geom] if isinstance(geom, LineString) else list(geom.geoms)  # type: ignore[attr-defined]
    best: tuple[float, tuple[float, float], tuple[float, float]] | None = None
    for part in parts:
        c = list(part.coords)
        for a, b in itertools.pairwise(c):
            d = GEOD.inv(a[0], a[1], b[0], b[1])[2]
            if best is None or d > best[0]:
                best = (d, a, b)
    assert best is not None
    _, a, b = best
    along = aisgen.azimuth(a[0], a[1], b[0], b[1])
    lon, lat, _ = GEOD.fwd(a[0], a[1], along, best[0] / 2)
    seaward = (along + 90) % 360
    if not 90 < seaward < 270:  # the Rio beaches face south: the sea is the southern side
        seaward = (along - 90) % 360
    return float(lon), float(lat), along, seaward


def to_positions(mmsi: int, fixes: Iterable[aisgen.Fix], msg_type: int = 1) -> list[Position]:
    """In-memory position records of a synthetic track."""
    return [
        Position(
            mmsi,
            f.t,
            msg_type,
            f.lon,
            f.lat,
            f.sog,
            f.cog,
            f.heading if f.heading is not None else round(f.cog) % 360,
            f.nav_status if msg_type == 1 else None,
            True,
            "test",
            (f"synthetic {mmsi} {f.t}",),
        )
        for f in fixes
    ]


def static(mmsi: int, ship_type: int, name: str = "SYNTH", t: float = T0 - 60) -> StaticData:
    """A static-data record (as a type 5 would give)."""
    return StaticData(mmsi, t, 5, name=name, ship_type=ship_type, length_m=12.0)


def run_pipeline(
    index: ZoneIndex,
    records: Sequence[Record],
    *,
    config: EpisodeConfig | None = None,
    batch: int = 37,
) -> list[Lead]:
    """Every lead (closed, then open at the end) of feeding the records in batches."""
    records = sorted(records, key=lambda r: r.t)
    pipe = LeadPipeline(index, VesselRegistry(), config)
    leads: list[Lead] = []
    for i in range(0, len(records), batch):
        leads += pipe.process(records[i : i + batch])
        leads += pipe.expire(pipe.stream_time)
    leads += pipe.finish()
    return leads


def load_geojson_shape(obj: dict[str, Any]) -> BaseGeometry:
    """Shapely geometry of a GeoJSON geometry object."""
    return shape(obj)


def beach_run(
    index: ZoneIndex, off_m: float, sog: float, *, t0: float = T0, n: int = 9
) -> list[aisgen.Fix]:
    """A run parallel to the middle of Copacabana, ``off_m`` off the baseline, a fix
    every 10 s."""
    _, beach = find_zone(index, "bather_beach", "copacabana")
    lon, lat, along, sea = beach_frame(beach)
    step = sog * aisgen.KN * 10
    out = []
    for i in range(n):
        foot = aisgen.fwd(lon, lat, along, (i - n // 2) * step)
        out.append(aisgen.Fix(t0 + 10 * i, *aisgen.fwd(*foot, sea, off_m), sog, along))
    return out
