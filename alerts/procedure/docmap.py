"""The evidence map drawn into the drafted documents: the track against the zone, the
closest point and its distance, a scale bar and north.

Drawn in metres on an azimuthal equidistant projection centred on the closest point, so
distances read true from the scale bar across the few kilometres a map shows.
"""

from __future__ import annotations

import math
from typing import Any

import shapely
from fpdf import FPDF
from pyproj import Transformer
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from vigia.alerts.lead import Lead
from vigia.zones.basemap import BasemapError, display_land
from vigia.zones.evaluate import rule_distance_m
from vigia.zones.model import Zone

TRACK = (0, 70, 160)
ZONE = (120, 120, 120)
CLOSEST = (200, 0, 0)
LAND = (236, 226, 198)  # chart buff: the shore side is plain at a glance


def _land_in(to_m: Transformer, clip: BaseGeometry) -> BaseGeometry | None:
    """The bundled land (chart land areas where the Navy's cells cover, Natural Earth
    elsewhere) inside the map frame, in the map's metres; None when none is there."""
    try:
        land = display_land()
    except BasemapError:
        return None  # a map without land is still evidence; the caption says land is drawn
    minx, miny, maxx, maxy = clip.bounds
    xs, ys = to_m.transform([minx, maxx, minx, maxx], [miny, miny, maxy, maxy], direction="INVERSE")
    lonlat_box = shapely.box(min(xs), min(ys), max(xs), max(ys)).buffer(0.01)
    near = shapely.intersection(land, lonlat_box)
    if near.is_empty:
        return None
    shown = shapely.intersection(shapely.transform(near, lambda c: _project(to_m, c)), clip)
    return None if shown.is_empty else shown


def _nice(length_m: float) -> float:
    """A round scale-bar length (1, 2 or 5 x 10^k metres) not above ``length_m``."""
    exp = float(10 ** math.floor(math.log10(max(length_m, 1.0))))
    return max(step * exp for step in (1, 2, 5) if step * exp <= length_m)


def _label(metres: float) -> str:
    return f"{metres / 1000:g} km" if metres >= 1000 else f"{metres:g} m"


class _Frame:
    """Metres on the map to millimetres on the page."""

    def __init__(self, bounds: tuple[float, float, float, float], box: tuple[float, ...]):
        x, y, w, h = box
        minx, miny, maxx, maxy = bounds
        self.scale = min(w / max(maxx - minx, 1.0), h / max(maxy - miny, 1.0))  # mm per m
        cx, cy = (minx + maxx) / 2, (miny + maxy) / 2
        self.x0, self.y0 = x + w / 2 - cx * self.scale, y + h / 2 + cy * self.scale

    def xy(self, mx: float, my: float) -> tuple[float, float]:
        return self.x0 + mx * self.scale, self.y0 - my * self.scale

    def visible(self, box: tuple[float, ...]) -> BaseGeometry:
        """The metres the page box shows (wider than the data where the aspects differ)."""
        x, y, w, h = box
        return shapely.box(
            (x - self.x0) / self.scale,
            (self.y0 - (y + h)) / self.scale,
            (x + w - self.x0) / self.scale,
            (self.y0 - y) / self.scale,
        )


def _draw_geometry(pdf: FPDF, frame: _Frame, geom: BaseGeometry, fill: bool) -> None:
    for part in getattr(geom, "geoms", [geom]):
        if part.is_empty:
            continue
        if part.geom_type == "Polygon":
            pts = [frame.xy(x, y) for x, y in part.exterior.coords]
            pdf.polygon(pts, style="DF" if fill else "D")
        elif part.geom_type in ("LineString", "LinearRing"):
            pdf.polyline([frame.xy(x, y) for x, y in part.coords])
        elif part.geom_type == "Point":
            px, py = frame.xy(part.x, part.y)
            pdf.ellipse(px - 1.2, py - 1.2, 2.4, 2.4, style="DF")
        elif hasattr(part, "geoms"):
            _draw_geometry(pdf, frame, part, fill)


def draw_evidence_map(
    pdf: FPDF, lead: Lead, zone: Zone | None, box: tuple[float, float, float, float]
) -> dict[str, Any]:
    """Draw the map into ``box`` (x, y, w, h in mm); returns what it shows."""
    x, y, w, h = box
    to_m = Transformer.from_crs(
        "EPSG:4326",
        f"+proj=aeqd +lat_0={lead.closest_lat} +lon_0={lead.closest_lon} +units=m",
        always_xy=True,
    )
    lons = [e.lon for e in lead.evidence] or [lead.closest_lon]
    lats = [e.lat for e in lead.evidence] or [lead.closest_lat]
    tx, ty = to_m.transform(lons, lats)
    track = list(zip(tx, ty, strict=True))
    closest = shapely.Point(0.0, 0.0)
    ref = band = None
    if zone is not None:
        ref = shapely.transform(zone.geometry, lambda c: _project(to_m, c))
        distance = rule_distance_m(zone)
        if distance > 0:
            band = ref.buffer(distance)
    pad = max(lead.min_distance_m * 0.6, 150.0)
    env = shapely.MultiPoint([*track, (0.0, 0.0)]).buffer(pad).envelope
    if ref is not None:
        near = nearest_points(closest, ref)[1]
        env = shapely.union(env, near.buffer(pad)).envelope
        # show the whole band of a platform or military point, not of a long coast
        around = band.envelope if band is not None else ref.envelope
        if max(around.bounds[2] - around.bounds[0], around.bounds[3] - around.bounds[1]) < 8000:
            env = shapely.union(env, around.buffer(pad / 3)).envelope
    minx, miny, maxx, maxy = env.bounds
    frame = _Frame((minx, miny, maxx, maxy), (x + 2, y + 2, w - 4, h - 12))
    clip = shapely.box(minx, miny, maxx, maxy)
    seen = frame.visible((x + 0.3, y + 0.3, w - 0.6, h - 0.6))

    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.3)
    pdf.rect(x, y, w, h)
    land = _land_in(to_m, seen)
    if land is not None:
        pdf.set_draw_color(*LAND)
        pdf.set_fill_color(*LAND)
        _draw_geometry(pdf, frame, land, fill=True)
        pdf.set_fill_color(255, 255, 255)  # lagoons and lakes inside the land are water
        for part in shapely.get_parts(land):
            for hole in getattr(part, "interiors", []):
                pdf.polygon([frame.xy(hx, hy) for hx, hy in hole.coords], style="F")
    pdf.set_draw_color(*ZONE)
    pdf.set_fill_color(225, 225, 225)
    if band is not None:
        pdf.set_dash_pattern(dash=1.5, gap=1)
        _draw_geometry(pdf, frame, shapely.intersection(band.boundary, clip), fill=False)
        pdf.set_dash_pattern()
    if ref is not None:
        _draw_geometry(pdf, frame, shapely.intersection(ref, clip), fill=True)
    pdf.set_draw_color(*TRACK)
    pdf.set_fill_color(*TRACK)
    pdf.set_line_width(0.5)
    if len(track) >= 2:
        pdf.polyline([frame.xy(px, py) for px, py in track])
    for px, py in track:
        cx, cy = frame.xy(px, py)
        pdf.ellipse(cx - 0.5, cy - 0.5, 1.0, 1.0, style="F")
    pdf.set_draw_color(*CLOSEST)
    pdf.set_fill_color(*CLOSEST)
    cx, cy = frame.xy(0.0, 0.0)
    if ref is not None and lead.min_distance_m > 0:
        near = nearest_points(closest, ref)[1]
        nx, ny = frame.xy(near.x, near.y)
        pdf.set_line_width(0.3)
        pdf.set_dash_pattern(dash=1, gap=0.8)
        pdf.line(cx, cy, nx, ny)
        pdf.set_dash_pattern()
    pdf.ellipse(cx - 1.3, cy - 1.3, 2.6, 2.6, style="F")
    pdf.set_text_color(*CLOSEST)
    pdf.set_font(pdf.font_family or "helvetica", "B", 8)
    pdf.text(cx + 2, cy - 2, f"{lead.min_distance_m:.0f} m")
    pdf.set_text_color(0, 0, 0)

    # scale bar (bottom left) and north arrow (top right)
    bar_m = _nice((maxx - minx) / 4)
    bar_mm = bar_m * frame.scale
    bx, by = x + 6, y + h - 6
    pdf.set_draw_color(0, 0, 0)
    pdf.set_fill_color(0, 0, 0)
    pdf.set_line_width(0.4)
    pdf.rect(bx, by - 1.2, bar_mm / 2, 1.2, style="F")
    pdf.rect(bx + bar_mm / 2, by - 1.2, bar_mm / 2, 1.2, style="D")
    pdf.set_font(pdf.font_family or "helvetica", "", 7)
    pdf.text(bx, by - 2.2, "0")
    pdf.text(bx + bar_mm - 4, by - 2.2, _label(bar_m))
    ax, ay = x + w - 8, y + 6
    pdf.polygon([(ax, ay), (ax - 2, ay + 6), (ax + 2, ay + 6)], style="DF")
    pdf.set_font(pdf.font_family or "helvetica", "B", 8)
    pdf.text(ax - 1.2, ay + 10, "N")
    return {
        "scale_bar_m": bar_m,
        "extent_m": (maxx - minx, maxy - miny),
        "points": len(track),
        "land": land is not None,
    }


def _project(to_m: Transformer, coords: Any) -> Any:
    import numpy as np

    xs, ys = to_m.transform(coords[:, 0], coords[:, 1])
    return np.column_stack([xs, ys])
