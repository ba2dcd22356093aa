"""`vigia zones import SOURCE...`: zones from ENC cells, their GeoJSON layer extracts
and CSV registers, to a zone file and/or into the store (docs/zones-import.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from vigia.service.settings import DatabaseSettings


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "zones", help="import zones from ENC cells, their GeoJSON extracts and CSV registers"
    )
    actions = p.add_subparsers(dest="action", required=True)
    imp = actions.add_parser(
        "import",
        help="import zones from ENC cells, extracts and registers",
        description=(
            "Read S-57 cells (NAME.000 with its updates beside it, or a zip of cells), "
            "GeoJSON layer extracts named CELL_CLASS.geojson, and CSV registers; map them "
            "to zones (docs/zones-import.md) and write them to --out and/or into the "
            "store. Into the store, an import replaces what came from the same sources: "
            "changed zones get a new version, zones gone from a source are retired, and "
            "zones edited by hand since their import are kept and reported (--force "
            "overrides). Prints a JSON report on stdout."
        ),
    )
    imp.add_argument("sources", nargs="+", type=Path, metavar="SOURCE")
    imp.add_argument("--out", type=Path, help="write the imported zones to this zone file")
    imp.add_argument(
        "--store", action="store_true", help="import into the configured store (DATABASE_URL)"
    )
    imp.add_argument(
        "--database-url", default=None, help="import into this store (implies --store)"
    )
    imp.add_argument(
        "--force",
        action="store_true",
        help="also replace zones edited by hand since their import, and zones of the same "
        "id that came from elsewhere",
    )
    imp.add_argument(
        "--edition",
        action="append",
        default=[],
        metavar="CELL=EDITION:YYYY-MM-DD",
        help="edition and issue date of a cell whose GeoJSON extracts are imported "
        "(extracts carry no DSID record); repeat per cell",
    )
    imp.add_argument(
        "--date", default=None, metavar="YYYY-MM-DD", help="date of registers whose rows have none"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Import, write, store; print the report."""
    from vigia.zones.importer import feature_collection, import_sources, parse_edition

    editions = {info.cell: info for info in map(parse_edition, args.edition)}
    result = import_sources(args.sources, editions=editions, register_date=args.date)
    if args.out is not None:
        args.out.write_text(feature_collection(result), encoding="utf-8")
    report: dict[str, Any]
    if args.store or args.database_url:
        report = _store(args, result)
    else:
        from vigia.service.runtime.zone_import import ImportReport

        report = ImportReport(result, None).json()
    print(json.dumps(report, ensure_ascii=False))
    counts = report.get("counts", {})
    said = ", ".join(f"{k} {v}" for k, v in counts.items())
    print(
        f"zones {len(result.zones)}, skipped {len(result.skipped)}" + (f"; {said}" if said else ""),
        file=sys.stderr,
    )
    return 0


def _store(args: argparse.Namespace, result: Any) -> dict[str, Any]:
    from vigia.service.db.store import open_repository
    from vigia.service.runtime.zone_import import store_import

    db = DatabaseSettings()
    repo = open_repository(args.database_url or db.url, sqlite_path=db.sqlite_path)
    try:
        repo.migrate()
        return store_import(repo, result, force=args.force).json()
    finally:
        repo.close()
