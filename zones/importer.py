"""One import of several sources: charts first (cells, zips of cells, GeoJSON layer
extracts), then registers, which may cut beach baselines from the charts' coastlines.
The zones of all sources must have distinct ids."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from vigia.zones.catalogue import zone_to_feature
from vigia.zones.enc_import import import_cell, import_extract, is_extract
from vigia.zones.import_types import CellInfo, ChartFeature, ImportResult, ZoneImportError
from vigia.zones.register_import import import_register

#: what a source's name says it is
CHART_SUFFIXES = (".000", ".zip")
REGISTER_SUFFIX = ".csv"


def import_sources(
    paths: Sequence[Path],
    *,
    editions: Mapping[str, CellInfo] | None = None,
    register_date: str | None = None,
    max_unzipped: int | None = None,
) -> ImportResult:
    """Read every source into zones. ``editions``: cell -> edition and date for
    extracts; ``register_date``: the date of registers whose rows have none;
    ``max_unzipped``: the most a zip of cells may unpack to."""
    editions = editions or {}
    result = ImportResult()
    coast: list[ChartFeature] = []
    registers: list[Path] = []
    for path in paths:
        if not path.is_file():
            raise ZoneImportError("no such file", file=str(path))
        if path.suffix.lower() == REGISTER_SUFFIX:
            registers.append(path)
            continue
        if path.suffix.lower() in CHART_SUFFIXES:
            part, lines = import_cell(path, max_unzipped)
        elif is_extract(path):
            part, lines = import_extract(path, editions)
        else:
            raise ZoneImportError(
                "not a source: expected an S-57 cell (.000), a zip of cells, a "
                "CELL_CLASS.geojson layer extract or a register (.csv)",
                file=str(path),
            )
        result.extend(part)
        coast += lines
    for path in registers:
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise ZoneImportError(f"cannot read: {exc}", file=str(path)) from None
        result.extend(import_register(text, path.name, coast, register_date))
    ids: set[str] = set()
    for z in result.zones:
        if z.id in ids:
            raise ZoneImportError(f"two sources make zone {z.id}", feature=z.id)
        ids.add(z.id)
    return result


def parse_edition(text: str) -> CellInfo:
    """``CELL=EDITION:YYYY-MM-DD`` (``--edition``): a cell's edition and issue date."""
    from datetime import date

    cell, sep, rest = text.partition("=")
    edition, sep2, day = rest.partition(":")
    try:
        ok = bool(sep and sep2 and cell and edition) and date.fromisoformat(day) is not None
    except ValueError:
        ok = False
    if not ok:
        raise ZoneImportError(f"--edition {text!r} is not CELL=EDITION:YYYY-MM-DD")
    return CellInfo(cell=cell.upper(), edition=edition, issue_date=day)


def feature_collection(result: ImportResult) -> str:
    """The imported zones as a zone file (one feature per line, stable across runs)."""
    lines = [
        json.dumps(zone_to_feature(z), ensure_ascii=False, separators=(",", ":"))
        for z in sorted(result.zones, key=lambda z: z.id)
    ]
    return '{"type":"FeatureCollection","features":[\n' + ",\n".join(lines) + "\n]}\n"
