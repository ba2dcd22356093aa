"""Zones from CSV registers a centre keeps or downloads: platforms with their operator
and status, ports, military installations, beaches with bathers (docs/zones-import.md
lists the columns).

A register is read all or nothing: an unknown column, a bad value or a duplicate id
refuses the file with the row named. A row that is well formed but cannot be a zone
(a port given only as a point, a platform marked removed) is skipped and reported.
Each zone keeps the register's file name, row (the line, the header being line 1) and
date in its provenance; its scope is the file name, so importing the same register
again replaces what the last import of it made.
"""

from __future__ import annotations

import csv
import io
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

import numpy as np
import shapely
from pyproj import Geod
from shapely import wkt as shapely_wkt
from shapely.geometry import LineString, Point, mapping

from vigia.zones.catalogue import GEOMETRY_TYPES
from vigia.zones.import_types import (
    PROVENANCE,
    SOURCE_DATE,
    ChartFeature,
    ImportResult,
    Skipped,
    ZoneImportError,
    make_zone,
)
from vigia.zones.model import Zone, ZoneError, ZoneKind

COLUMNS = (
    "id",
    "kind",
    "name",
    "lat",
    "lon",
    "wkt",
    "coastline",
    "radius_m",
    "distance_m",
    "operator",
    "status",
    "source",
    "confidence",
    "date",
    "note",
)
REQUIRED = ("kind", "name")
#: id prefixes, as the bundled catalogue names its zones
PREFIX = {
    ZoneKind.PLATFORM: "platform",
    ZoneKind.MILITARY: "military",
    ZoneKind.BATHER_BEACH: "beach",
    ZoneKind.ANCHORAGE: "anchorage",
    ZoneKind.ACCESS_CHANNEL: "channel",
    ZoneKind.PORT_FACILITY: "port",
    ZoneKind.POWER_PLANT: "plant",
    ZoneKind.SPECIAL_AREA: "special",
    ZoneKind.LAUNCH_AREA: "launch",
    ZoneKind.JURISDICTION: "jurisdiction",
}
#: a platform with this status is gone from the water: no zone
REMOVED = "removed"
#: more rows than this is a mistake, not a register
MAX_ROWS = 100_000
#: vertices of the circle an area kind gets around a published point (``radius_m``)
CIRCLE_VERTICES = 64
_WGS84 = Geod(ellps="WGS84")
_COAST = re.compile(r"^(?P<cell>[A-Za-z0-9]{8}):(?P<fidn>\d+):(?P<first>\d+)-(?P<last>\d+)$")


def scope(file_name: str) -> str:
    """The import scope of a register file."""
    return f"register:{file_name}"


def slug(text: str) -> str:
    """Lower-case ASCII words joined by hyphens (accents dropped): an id from a name."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def circle(lon: float, lat: float, radius_m: float) -> dict[str, Any]:
    """A geodesic circle (WGS84 ellipsoid, pyproj's Geod) of ``radius_m`` around a point,
    as a GeoJSON Polygon: an area kind where only a point is published."""
    az = np.linspace(0.0, 360.0, CIRCLE_VERTICES, endpoint=False)
    lons, lats, _ = _WGS84.fwd(
        np.full(az.size, lon), np.full(az.size, lat), az, np.full(az.size, radius_m)
    )
    ring = [[float(x), float(y)] for x, y in zip(lons, lats, strict=True)]
    return {"type": "Polygon", "coordinates": [[*ring, ring[0]]]}


def import_register(
    text: str,
    file_name: str,
    coastlines: Sequence[ChartFeature] = (),
    default_date: str | None = None,
) -> ImportResult:
    """Zones of one register's CSV text. Beach rows may cut their baseline from the
    ``coastlines`` read in the same import; rows without a ``date`` take
    ``default_date``."""
    try:
        return _read_register(text, file_name, coastlines, default_date)
    except csv.Error as exc:  # NUL bytes, an unterminated quote, a field over csv's limit
        raise ZoneImportError(f"not readable as CSV: {exc}", file=file_name) from None


def _read_register(
    text: str, file_name: str, coastlines: Sequence[ChartFeature], default_date: str | None
) -> ImportResult:
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    unknown = sorted(set(header) - set(COLUMNS))
    if unknown:
        raise ZoneImportError(
            f"unknown columns {unknown}; known: {', '.join(COLUMNS)}", file=file_name
        )
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ZoneImportError(f"missing columns {missing}", file=file_name)
    coast = {(f.cell, f.fidn): f for f in coastlines}
    result = ImportResult(scopes={scope(file_name)})
    seen: set[str] = set()
    for line, raw in enumerate(reader, start=2):
        if line - 1 > MAX_ROWS:
            raise ZoneImportError(f"more than {MAX_ROWS} rows", file=file_name)
        row = {k.strip(): (v or "").strip() or None for k, v in raw.items() if k is not None}
        where = f"{file_name} row {line}"
        try:
            made = _row_zone(row, file_name, line, coast, default_date)
        except ZoneError as exc:
            raise ZoneImportError(f"row {line}: {exc.reason}", file=file_name) from None
        if isinstance(made, str):
            result.skipped.append(Skipped(where, made))
            continue
        if made.id in seen:
            raise ZoneImportError(f"row {line}: duplicate id {made.id}", file=file_name)
        seen.add(made.id)
        result.zones.append(made)
    return result


def _row_zone(
    row: Mapping[str, str | None],
    file_name: str,
    line: int,
    coast: Mapping[tuple[str, int], ChartFeature],
    default_date: str | None,
) -> Zone | str:
    try:
        kind = ZoneKind(row.get("kind") or "")
    except ValueError:
        raise ZoneError(f"unknown kind {row.get('kind')!r}") from None
    name = row.get("name")
    if not name:
        raise ZoneError("no name")
    if kind is ZoneKind.PLATFORM and (row.get("status") or "").lower() == REMOVED:
        return f"platform {name!r} is marked {REMOVED}"
    day = row.get("date") or default_date
    if day is None:
        raise ZoneError("no date (a date column, or the register's date given with it)")
    try:
        date.fromisoformat(day)
    except ValueError:
        raise ZoneError(f"date {day!r} is not an ISO date (YYYY-MM-DD)") from None
    geometry = _geometry(row, kind, coast)
    if isinstance(geometry, str):
        return geometry
    zid = row.get("id") or f"{PREFIX[kind]}-{slug(name)}"
    where = f"register {file_name} row {line}"
    props: dict[str, Any] = {
        "id": zid,
        "kind": kind.value,
        "name": name,
        "source": f"{row['source']} ({where})" if row.get("source") else where,
        SOURCE_DATE: day,
        PROVENANCE: {
            "scope": scope(file_name),
            "format": "register",
            "register": file_name,
            "row": line,
            "date": day,
        },
    }
    for key in ("operator", "status", "confidence", "note"):
        if row.get(key):
            props[key] = row[key]
    if row.get("distance_m"):
        props["distance_m"] = _number(row, "distance_m")
    if row.get("radius_m") and not row.get("wkt") and geometry["type"] == "Polygon":
        props["geometry_note"] = (
            f"circle of {row['radius_m']} m around a published point: no footprint is public"
        )
    return make_zone(props, geometry, where)


def _number(row: Mapping[str, str | None], key: str) -> float:
    try:
        value = float(row[key] or "")
    except ValueError:
        raise ZoneError(f"{key} {row[key]!r} is not a number") from None
    if not math.isfinite(value):
        raise ZoneError(f"{key} {row[key]!r} is not a number")
    return value


def _geometry(
    row: Mapping[str, str | None], kind: ZoneKind, coast: Mapping[tuple[str, int], ChartFeature]
) -> dict[str, Any] | str:
    """The row's geometry (GeoJSON), or why an otherwise good row has none a zone of its
    kind can take."""
    given = [k for k in ("wkt", "coastline") if row.get(k)] + (
        ["lat/lon"] if row.get("lat") or row.get("lon") else []
    )
    if len(given) != 1:
        raise ZoneError(f"give exactly one of lat/lon, wkt, coastline (got {given or 'none'})")
    if row.get("wkt"):
        try:
            geom = shapely_wkt.loads(row["wkt"] or "")
        except shapely.errors.ShapelyError as exc:
            raise ZoneError(f"wkt does not parse: {exc}") from None
        return dict(mapping(geom))
    if row.get("coastline"):
        return dict(mapping(_coast_cut(row["coastline"] or "", coast)))
    lat, lon = _number(row, "lat"), _number(row, "lon")
    if "Point" in GEOMETRY_TYPES[kind]:
        return dict(mapping(Point(lon, lat)))
    if not row.get("radius_m"):
        return f"a {kind.value} is an area: a point alone (no wkt, no radius_m) cannot be one"
    radius = _number(row, "radius_m")
    if not 0 < radius <= 50_000:
        raise ZoneError(f"radius_m {radius:g} is not in (0, 50000]")
    return circle(lon, lat, radius)


def _coast_cut(spec: str, coast: Mapping[tuple[str, int], ChartFeature]) -> LineString:
    """Vertices FIRST..LAST (inclusive) of a charted coastline read in this import."""
    m = _COAST.match(spec)
    if m is None:
        raise ZoneError(f"coastline {spec!r} is not CELL:FIDN:FIRST-LAST")
    key = (m["cell"].upper(), int(m["fidn"]))
    line = coast.get(key)
    if line is None or line.geometry is None or line.geometry.geom_type != "LineString":
        raise ZoneError(f"coastline {spec!r}: no such COALNE line among the charts imported")
    coords = list(line.geometry.coords)
    first, last = int(m["first"]), int(m["last"])
    if not first < last < len(coords):
        raise ZoneError(f"coastline {spec!r}: vertices must satisfy {first} < LAST < {len(coords)}")
    return LineString(coords[first : last + 1])
