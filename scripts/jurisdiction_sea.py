"""Each office's sea, from the coast of the municipalities its NPCP lists (issue 32).

Used by ``scripts/build_jurisdictions.py``. Every distance here is measured in metres in
one projected frame (:class:`Frame`), never in degrees: an equidistance drawn in degrees
would lean towards the pole by the cosine of the latitude. Only overlays of the mesh's
own edges (land minus land) are made in lon/lat, where those edges are exact.

An office's sea is the water nearer its coastal municipalities than any other coast: the
coast of municipalities no office built here lists (their offices keep the nearest-seat
approximation there) and the coast of land outside the mesh (a neighbouring country:
equidistance, the line UNCLOS art. 15 draws where no treaty does). The coast is sampled
every ``spacing_m`` and the sea split by the Voronoi cells of the samples, so the line
between two offices is the equidistance line to within half the spacing. The sea is cut
at 200 NM from the built offices' coast: Brazil's EEZ (Lei 8.617/1993 art. 6) simplified
as a buffer of the mesh's coastline, not the baselines of Decreto 8.400/2015.

Which edge of the mesh is coast and which a land border the mesh cannot say (it holds
Brazil alone), so a land basemap decides: the mesh's outline within ``tolerance_m`` of the
basemap's coastline is coast; the rest (Bolivia's border, say) seeds no sea.

An Agência answers for the waters of a few municipalities (the register's
``AGENCY_REACH_NM`` says the same of its approximation): its sea reaches ``reach_m``
from its own coast, and beyond that its cell goes to the Capitania above it when that
Capitania is built too, else to no zone (the bundled rules route it).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from numpy.typing import NDArray
from pyproj import CRS, Transformer
from shapely.geometry.base import BaseGeometry

#: the label of a coast no office built here owns
OTHER = ""


@dataclass(frozen=True)
class Frame:
    """A projected frame in metres and the way there and back from lon/lat."""

    crs: str
    to_m: Transformer
    to_deg: Transformer

    @classmethod
    def of(cls, crs: str) -> Frame:
        target = CRS.from_user_input(crs)
        if not target.is_projected:
            raise ValueError(f"{crs!r} is not a projected frame in metres")
        return cls(
            crs,
            Transformer.from_crs("EPSG:4326", target, always_xy=True),
            Transformer.from_crs(target, "EPSG:4326", always_xy=True),
        )

    @classmethod
    def centred(cls, lon: float, lat: float) -> Frame:
        """The azimuthal equidistant frame about (lon, lat): distances from the centre are
        exact and the others within 1% up to 1,600 km from it (a region's offices; a
        whole-Brazil build may prefer EPSG:5880 with ``--crs``)."""
        return cls.of(f"+proj=aeqd +lat_0={lat:.2f} +lon_0={lon:.2f} +datum=WGS84 +units=m")

    def metres(self, geom: BaseGeometry) -> BaseGeometry:
        return reproject(geom, self.to_m)

    def degrees(self, geom: BaseGeometry, step_m: float = 1000.0) -> BaseGeometry:
        """Back to lon/lat, every edge first cut into steps of ``step_m``: an edge straight
        in metres is not straight in degrees, and its ends alone would cut corners."""
        return reproject(shapely.segmentize(geom, step_m), self.to_deg)


def reproject(geom: BaseGeometry, tr: Transformer) -> BaseGeometry:
    """The geometry's vertices through the transformer (x, y order)."""

    def move(xy: NDArray[np.float64]) -> NDArray[np.float64]:
        x, y = tr.transform(xy[:, 0], xy[:, 1])
        return np.column_stack([x, y])

    out: BaseGeometry = shapely.transform(geom, move)
    return out


@dataclass
class Seas:
    """What :func:`seas` found: each office's sea, and what went where."""

    sea: dict[str, BaseGeometry]
    #: (an office of limited reach, the Capitania that took its sea beyond, or None)
    beyond_reach: list[tuple[str, str | None]] = field(default_factory=list)
    sites: int = 0


def polygons(geom: BaseGeometry) -> BaseGeometry:
    """The polygons of an overlay's result (it may add lines and points where shapes touch)."""
    parts = [p for p in shapely.get_parts(geom) if p.geom_type in ("Polygon", "MultiPolygon")]
    if not parts:
        return shapely.MultiPolygon()
    out: BaseGeometry = shapely.union_all(parts)
    return out


def dissolve(geoms: Sequence[BaseGeometry]) -> BaseGeometry:
    """The union of polygons that tile without overlapping (a municipal mesh, Voronoi
    cells): the coverage union keeps their vertices as they are, so limits shared with
    other zones stay the same coordinates; a mesh that does not tile cleanly (or a shapely
    too old to check) falls back to the general union."""
    arr = np.asarray(geoms, dtype=object)
    if arr.size == 0:
        return shapely.MultiPolygon()
    check = getattr(shapely, "coverage_is_valid", None)
    if check is not None and bool(check(shapely.GeometryCollection(list(arr)))):
        out: BaseGeometry = shapely.coverage_union_all(arr)
    else:
        out = shapely.union_all(arr)
    return polygons(out)


def sample(lines: BaseGeometry, spacing_m: float) -> NDArray[np.float64]:
    """Points along each line, the middles of equal steps of at most ``spacing_m``: never a
    line's end, where it meets a neighbour's coast, so every sample has one owner."""
    out = [np.empty((0, 2))]
    for line in shapely.get_parts(shapely.line_merge(lines)):
        if line.geom_type != "LineString" or line.length == 0.0:
            continue
        n = max(1, math.ceil(line.length / spacing_m))
        at = (np.arange(n) + 0.5) / n
        out.append(shapely.get_coordinates(shapely.line_interpolate_point(line, at, True)))
    return np.concatenate(out)


def _lines(geom: BaseGeometry) -> BaseGeometry:
    parts = [p for p in shapely.get_parts(geom) if p.geom_type in ("LineString", "MultiLineString")]
    return shapely.line_merge(shapely.union_all(parts)) if parts else shapely.MultiLineString()


def seas(
    mesh: Sequence[BaseGeometry],
    owner: Sequence[str],
    coastline: BaseGeometry,
    *,
    eez_m: float,
    reach_m: Mapping[str, float],
    parent: Mapping[str, str | None],
    spacing_m: float,
    tolerance_m: float,
) -> Seas:
    """Each office's sea, in metres and over any land: the caller takes the land away in
    lon/lat, where its edges are the mesh's own (an edge cut here would bend on its way
    back). ``owner[i]`` is the office whose sea ``mesh[i]``'s coast seeds (:data:`OTHER`
    for none), ``coastline`` the land basemap's; ``reach_m`` the farthest an office's sea
    reaches from its own coast (an Agência's), ``parent`` the Capitania that takes the rest."""
    sites, label, coast_of = _sites(mesh, owner, coastline, spacing_m, tolerance_m)
    result = Seas({}, sites=len(sites))
    if not coast_of:
        return result
    # simplified by 50 m before the 370 km buffer, where it changes nothing that matters
    built = shapely.simplify(shapely.union_all(list(coast_of.values())), 50.0)
    cut = shapely.buffer(built, eez_m, quad_segs=32)
    cells = _cells(sites, cut)
    out: dict[str, list[BaseGeometry]] = defaultdict(list)
    for office in sorted(coast_of):
        sea = polygons(shapely.intersection(dissolve(list(cells[label == office])), cut))
        reach = reach_m.get(office, eez_m)
        if reach < eez_m:
            within = shapely.buffer(coast_of[office], reach, quad_segs=32)
            heir = parent.get(office)
            heir = heir if heir in coast_of else None
            if heir is not None:
                out[heir].append(polygons(shapely.difference(sea, within)))
            sea = polygons(shapely.intersection(sea, within))
            result.beyond_reach.append((office, heir))
        out[office].append(sea)
    result.sea = {o: polygons(shapely.union_all(parts)) for o, parts in out.items()}
    return result


def _sites(
    mesh: Sequence[BaseGeometry],
    owner: Sequence[str],
    coastline: BaseGeometry,
    spacing_m: float,
    tolerance_m: float,
) -> tuple[NDArray[np.float64], NDArray[np.object_], dict[str, BaseGeometry]]:
    """The coast's samples (sorted, so the diagram never depends on the mesh's order),
    their offices, and each office's coast."""
    land = dissolve(mesh)
    near_coast = shapely.buffer(coastline, tolerance_m)
    coastal = _lines(shapely.intersection(shapely.boundary(land), near_coast))
    tree = shapely.STRtree(mesh)
    points: list[NDArray[np.float64]] = []
    labels: list[str] = []
    pieces: dict[str, list[BaseGeometry]] = defaultdict(list)
    for i in sorted(int(j) for j in tree.query(coastal, predicate="intersects")):
        x0, y0, x1, y1 = mesh[i].bounds  # the coast near it only: the whole is long
        near_i = shapely.clip_by_rect(coastal, x0 - 1.0, y0 - 1.0, x1 + 1.0, y1 + 1.0)
        piece = _lines(shapely.intersection(shapely.boundary(mesh[i]), near_i))
        found = sample(piece, spacing_m)
        points.append(found)
        labels.extend([owner[i]] * len(found))
        if owner[i] != OTHER and len(found):
            pieces[owner[i]].append(piece)
    # the coast of land outside the mesh: a neighbour's, which no office of ours answers for
    shore = sample(coastline, spacing_m)
    near = tree.query(shapely.points(shore), predicate="dwithin", distance=tolerance_m)[0]
    foreign = np.delete(shore, np.unique(near), axis=0)
    points.append(foreign)
    labels.extend([OTHER] * len(foreign))
    sites, first = np.unique(np.concatenate(points), axis=0, return_index=True)
    label = np.asarray(labels, dtype=object)[first]
    return sites, label, {o: shapely.union_all(p) for o, p in sorted(pieces.items())}


def foreign_land(
    land: BaseGeometry, mesh_land: BaseGeometry, frame: Frame, tolerance_m: float
) -> BaseGeometry:
    """The basemap's ``land`` off the mesh's (both lon/lat), a neighbour's: each piece
    that reaches farther than ``tolerance_m`` from the mesh, whole. The pieces that do not
    are slivers where the basemap's coastline runs a little seaward of the mesh's, and
    stay water."""
    near = shapely.buffer(shapely.simplify(frame.metres(mesh_land), 100.0), tolerance_m)
    shapely.prepare(near)
    off = [p for p in shapely.get_parts(shapely.difference(land, mesh_land))
           if p.geom_type == "Polygon" and not near.contains(frame.metres(p))]  # fmt: skip
    return polygons(shapely.MultiPolygon(off))


def _cells(sites: NDArray[np.float64], cut: BaseGeometry) -> NDArray[np.object_]:
    """The Voronoi cell of every site, in the sites' order (found by the site inside each
    cell, which any shapely 2 can do)."""
    cells = shapely.get_parts(shapely.voronoi_polygons(shapely.multipoints(sites), extend_to=cut))
    site_i, cell_i = shapely.STRtree(cells).query(shapely.points(sites), predicate="within")
    ordered = np.empty(len(sites), dtype=object)
    ordered[site_i] = cells[cell_i]
    missing = [i for i in range(len(sites)) if ordered[i] is None]
    if missing:
        raise RuntimeError(f"{len(missing)} coast samples have no Voronoi cell")
    return ordered


def finish(
    geoms: Sequence[BaseGeometry], frame: Frame, simplify_m: float, grid_deg: float
) -> tuple[list[BaseGeometry], list[str]]:
    """The zones (lon/lat) as one clean coverage on a ``grid_deg`` grid, and notes on
    what could not be done. Each zone was cut on its own, so two neighbours' limits may
    differ by centimetres: cleaning gives an overlap to the smaller zone (the routing's own
    overlap rule) and closes gaps under a metre. ``simplify_m`` simplifies shared limits
    once for both sides (about that many metres; in the metric frame)."""
    notes: list[str] = []
    clean = getattr(shapely, "coverage_clean", None)  # shapely 2.2
    out = list(geoms)
    if clean is not None:
        out = list(clean(out, gap_width=1e-5, merge_strategy="min_area"))
    else:
        notes.append("not cleaned (shapely < 2.2): limits may overlap or gap by centimetres")
    if simplify_m > 0:
        metric = [frame.metres(g) for g in out]
        if clean is not None:
            metric = list(shapely.coverage_simplify(metric, simplify_m))
        else:
            metric = [shapely.simplify(g, simplify_m, preserve_topology=True) for g in metric]
        out = [reproject(g, frame.to_deg) for g in metric]
    done = []
    for geom in out:
        grid = shapely.set_precision(geom, grid_deg)
        done.append(polygons(grid if shapely.is_valid(grid) else shapely.make_valid(grid)))
    return done, notes
