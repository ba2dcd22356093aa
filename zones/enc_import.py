"""Zones from electronic navigational charts: S-57 cells read through GDAL's S-57
driver (pyogrio), or the per-class GeoJSON layers GDAL exported from them.

A cell (``NAME.000``) is opened with its update files (``NAME.001``, ...) beside it
applied in order (the driver's ``UPDATES=APPLY``), national text recoded to UTF-8
(``RECODE_BY_DSSI``), and its DSID record read for the edition, the last update applied
and that update's issue date. A zip of cells (how ENC are distributed) is read through
GDAL's ``/vsizip/``. GeoJSON extracts are named ``CELL_CLASS.geojson`` (as
``ogr2ogr`` writes one layer per class); they carry no DSID, so their edition and date
come from the caller. Each feature becomes a zone by the one mapping of
:mod:`vigia.zones.enc_mapping`, keeping its provenance: cell, edition, update, issue
date, object class, AGEN/FIDN/FIDS and the file.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

from vigia.zones.enc_mapping import CLASSES, COASTLINE, READ_CLASSES, Mapped, producer
from vigia.zones.import_types import (
    PROVENANCE,
    SOURCE_DATE,
    CellInfo,
    ChartFeature,
    ImportResult,
    Skipped,
    ZoneImportError,
    make_zone,
)
from vigia.zones.model import Zone, ZoneError

#: GDAL S-57 driver open options: apply updates, UTF-8 national text, features only
#: (no primitives); the rest are the driver's defaults
S57_OPTIONS = {"UPDATES": "APPLY", "RECODE_BY_DSSI": "ON", "RETURN_PRIMITIVES": "OFF"}
_EXTRACT = re.compile(r"^(?P<cell>[A-Z0-9]{8})_(?P<cls>[A-Z]{6})\.geojson$", re.IGNORECASE)


def scope(cell: str, object_class: str) -> str:
    """The import scope of one cell's object class."""
    return f"enc:{cell}:{object_class}"


def is_extract(path: Path) -> bool:
    """Whether a file is named as a GDAL GeoJSON layer extract (``CELL_CLASS.geojson``)."""
    return _EXTRACT.match(path.name) is not None


def read_extract(path: Path) -> tuple[str, str, list[ChartFeature]]:
    """One GeoJSON layer extract: (cell, object class, its features)."""
    m = _EXTRACT.match(path.name)
    if m is None:
        raise ZoneImportError("not named CELL_CLASS.geojson", file=str(path))
    cell, cls = m["cell"].upper(), m["cls"].upper()
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ZoneImportError(f"cannot read: {exc}", file=str(path)) from None
    feats = obj.get("features") if isinstance(obj, Mapping) else None
    if not isinstance(feats, list):
        raise ZoneImportError("not a GeoJSON FeatureCollection", file=str(path))
    out = []
    for i, feat in enumerate(feats):
        props = feat.get("properties") if isinstance(feat, Mapping) else None
        if not isinstance(props, Mapping) or not isinstance(props.get("FIDN"), int):
            raise ZoneImportError(f"feature #{i} has no FIDN", file=str(path))
        geom = feat.get("geometry")
        try:
            geometry = shape(dict(geom)) if isinstance(geom, Mapping) else None
        except Exception as exc:  # shapely raises several types for malformed input
            raise ZoneImportError(f"feature #{i}: bad geometry: {exc}", file=str(path)) from None
        out.append(ChartFeature(cell, cls, dict(props), geometry, path.name))
    return cell, cls, out


def _plain(value: Any) -> Any:
    """A GDAL field value as JSON: numpy scalars and lists to Python, NaN to None."""
    if value is None:
        return None
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _read_layer(path: str, layer: str) -> list[dict[str, Any]]:
    from pyogrio.raw import read  # type: ignore[import-untyped]

    meta, _fids, geoms, fields = read(path, layer=layer, **S57_OPTIONS)
    names = [str(n) for n in meta["fields"]]
    # every S-57 layer has attribute fields (RCID at least); DSID has no geometry
    count = len(fields[0]) if len(fields) else 0
    rows = []
    for i in range(count):
        row = {n: _plain(fields[j][i]) for j, n in enumerate(names)}
        row["__geometry__"] = None if geoms is None else geoms[i]
        rows.append(row)
    return rows


def read_cell(path: str, label: str) -> tuple[CellInfo, list[ChartFeature]]:
    """One S-57 cell (a path GDAL opens, ``/vsizip/`` included), updates applied: its
    DSID and the features of every class the mapping reads."""
    import pyogrio  # type: ignore[import-untyped]

    try:
        # GDAL opens whatever a file holds; only the S-57 driver's reading is an ENC
        layers = [str(name) for name, _gtype in pyogrio.list_layers(path)]
        driver = pyogrio.read_info(path, layer=layers[0]).get("driver") if layers else None
        if driver != "S57":
            raise ZoneImportError(f"GDAL reads it as {driver}, not as S-57", file=label)
        present = set(layers)
        dsid = _read_layer(path, "DSID")[0] if "DSID" in present else {}
        cell = Path(str(dsid.get("DSID_DSNM") or label)).stem.upper()
        info = CellInfo(
            cell=cell,
            edition=_str(dsid.get("DSID_EDTN")),
            update=_str(dsid.get("DSID_UPDN")),
            issue_date=_iso(dsid.get("DSID_ISDT")),
            agency=dsid.get("DSID_AGEN"),
        )
        features = []
        for cls in READ_CLASSES:
            if cls not in present:
                continue
            for row in _read_layer(path, cls):
                wkb = row.pop("__geometry__")
                geom = None if wkb is None else shapely.from_wkb(bytes(wkb))
                features.append(ChartFeature(cell, cls, row, geom, label))
    except (OSError, RuntimeError, ValueError) as exc:  # pyogrio's DataSourceError is one
        raise ZoneImportError(f"GDAL cannot read it as S-57: {exc}", file=label) from None
    return info, features


def cells_in(path: Path, max_unzipped: int | None = None) -> list[tuple[str, str]]:
    """(GDAL path, label) of each base cell a path holds: the ``.000`` itself, or every
    ``.000`` inside a zip (updates beside it in the zip are applied). A zip whose files
    would unpack to more than ``max_unzipped`` bytes is refused unread."""
    if path.suffix == ".000":
        return [(str(path), path.name)]
    if path.suffix.lower() == ".zip":
        try:
            with zipfile.ZipFile(path) as zf:
                names = sorted(n for n in zf.namelist() if n.endswith(".000"))
                size = sum(i.file_size for i in zf.infolist())
        except (OSError, zipfile.BadZipFile) as exc:
            raise ZoneImportError(f"not a readable zip: {exc}", file=str(path)) from None
        if max_unzipped is not None and size > max_unzipped:
            raise ZoneImportError(
                f"the zip unpacks to {size} bytes; the limit is {max_unzipped}", file=str(path)
            )
        if not names:
            raise ZoneImportError("the zip holds no S-57 base cell (*.000)", file=str(path))
        return [(f"/vsizip/{path.resolve()}/{n}", f"{path.name}:{n}") for n in names]
    raise ZoneImportError("not an S-57 cell (.000) or a zip of cells", file=str(path))


def _str(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


def _iso(value: Any) -> str | None:
    text = str(value or "")
    return f"{text[:4]}-{text[4:6]}-{text[6:8]}" if re.fullmatch(r"\d{8}", text) else None


def chart_zones(
    features: Iterable[ChartFeature], info: CellInfo, scopes: Iterable[str]
) -> ImportResult:
    """Zones of a cell's features by the mapping; features no rule maps are skipped."""
    result = ImportResult(scopes=set(scopes))
    for f in features:
        rule = CLASSES.get(f.object_class)
        if rule is None:
            continue  # COALNE and the rest: read for registers, never zones themselves
        where = f"{f.cell} {f.object_class} FIDN {f.fidn}"
        gtype = None if f.geometry is None else f.geometry.geom_type
        if gtype not in rule.geometries:
            result.skipped.append(Skipped(where, f"charted as {gtype}, not a zone's area"))
            continue
        mapped = rule.rule(f, info.issue_date)
        if isinstance(mapped, str):
            result.skipped.append(Skipped(where, mapped))
            continue
        assert f.geometry is not None
        try:
            result.zones.append(_zone(f, info, mapped, f.geometry, where))
        except ZoneError as exc:
            result.skipped.append(Skipped(where, exc.reason))
    return result


def _zone(
    f: ChartFeature, info: CellInfo, mapped: Mapped, geometry: BaseGeometry, where: str
) -> Zone:
    agency = f.attrs.get("AGEN", info.agency)
    props: dict[str, Any] = {
        "id": f"{mapped.prefix}-{f.cell}-{f.fidn}",
        "kind": mapped.kind.value,
        **mapped.props,
        "source": f"{producer(agency)} ENC {f.cell} {f.object_class} FIDN {f.fidn}",
        PROVENANCE: {
            "scope": scope(f.cell, f.object_class),
            "format": "S-57",
            "cell": f.cell,
            "edition": info.edition,
            "update": info.update,
            "issue_date": info.issue_date,
            "object_class": f.object_class,
            "agen": agency,
            "fidn": f.fidn,
            "fids": f.attrs.get("FIDS"),
            "file": f.file,
        },
    }
    if info.issue_date:
        props[SOURCE_DATE] = info.issue_date
    return make_zone(props, mapping(geometry), where)


def import_cell(
    path: Path, max_unzipped: int | None = None
) -> tuple[ImportResult, list[ChartFeature]]:
    """Zones of every cell a ``.000`` or zip holds, and the coastlines read with them."""
    result = ImportResult()
    coast: list[ChartFeature] = []
    for gdal_path, label in cells_in(path, max_unzipped):
        info, features = read_cell(gdal_path, label)
        scopes = [scope(info.cell, cls) for cls in READ_CLASSES]
        result.extend(chart_zones(features, info, scopes))
        coast += [f for f in features if f.object_class == COASTLINE]
    return result, coast


def import_extract(
    path: Path, editions: Mapping[str, CellInfo]
) -> tuple[ImportResult, list[ChartFeature]]:
    """Zones of one GeoJSON layer extract (edition and date from ``editions``)."""
    cell, cls, features = read_extract(path)
    info = editions.get(cell, CellInfo(cell=cell))
    result = chart_zones(features, info, [scope(cell, cls)])
    return result, features if cls == COASTLINE else []
