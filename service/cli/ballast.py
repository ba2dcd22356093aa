"""`vigia ballast assess FILE` and `vigia ballast audit FILE` (NORMAM-20 2.3.1)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from vigia.ingest.errors import InputFormatError


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "ballast", help="ballast water: assess points, audit declared exchanges"
    )
    actions = p.add_subparsers(dest="action", required=True)
    a = actions.add_parser(
        "assess", help="per point (CSV with lat,lon columns, or a JSON list): the figures"
    )
    a.add_argument("file", help="CSV or JSON file, - for standard input")
    u = actions.add_parser("audit", help="audit a declaration (the POST /ballast/audits body)")
    u.add_argument("file", help="JSON file, - for standard input")
    u.add_argument(
        "--store", action="store_true", help="store the audit and its leads in the configured db"
    )
    for q in (a, u):
        q.add_argument("--land", help="land/baseline GeoJSON or shapefile instead of the bundled")
        q.add_argument("--depth", help="GEBCO-style NetCDF depth grid instead of ETOPO1")
    p.set_defaults(func=run)


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    p = Path(path)
    if not p.is_file():
        raise InputFormatError(f"{path}: no such file")
    return p.read_text(encoding="utf-8-sig")


def read_points(path: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Longitudes and latitudes from a CSV (lat, lon columns) or a JSON list of points."""
    text = _read(path)
    stripped = text.lstrip()
    try:
        if stripped.startswith(("[", "{")):
            data = json.loads(text)
            if isinstance(data, dict):
                data = data.get("points")
            if not isinstance(data, list):
                raise InputFormatError(f"{path}: JSON must be a list of {{lat, lon}} objects")
            rows = [(float(d["lat"]), float(d["lon"])) for d in data]
        else:
            reader = csv.DictReader(io.StringIO(text, newline=""))
            cols = {c.strip().lower(): c for c in reader.fieldnames or []}
            lat_c = cols.get("lat") or cols.get("latitude")
            lon_c = cols.get("lon") or cols.get("longitude")
            if not lat_c or not lon_c:
                raise InputFormatError(f"{path}: the CSV needs lat and lon columns")
            rows = [(float(r[lat_c]), float(r[lon_c])) for r in reader]
    except (ValueError, KeyError, TypeError, csv.Error) as exc:
        raise InputFormatError(f"{path}: not a list of lat/lon numbers ({exc})") from exc
    if not rows:
        raise InputFormatError(f"{path}: no points")
    arr = np.array(rows, dtype=np.float64)
    return arr[:, 1], arr[:, 0]


def _assess(args: argparse.Namespace) -> int:
    from vigia.zones.ballast import get_assessor

    lons, lats = read_points(args.file)
    assessor = get_assessor(args.land, args.depth)
    out = sys.stdout
    for item in assessor.assess(lons, lats).items():
        out.write(json.dumps(item) + "\n")
    return 0


def _audit(args: argparse.Namespace) -> int:
    from vigia.service.runtime.audits import AuditRequest, audit_request, run_audit, track_of
    from vigia.service.settings import BallastSettings
    from vigia.zones.ballast import get_assessor

    try:
        req = AuditRequest.model_validate_json(_read(args.file))
    except ValidationError as exc:
        raise InputFormatError(f"{args.file}: {exc}") from exc
    if req.track is None and not args.store:
        raise InputFormatError(f"{args.file}: no track; give one, or --store to use the stored")
    settings = BallastSettings()
    assessor = get_assessor(args.land or settings.land, args.depth or settings.depth)
    now = time.time()
    if args.store:
        from vigia.service.db.protocol import EVERY_AUTHORITY
        from vigia.service.db.store import open_repository
        from vigia.service.settings import ArchiveSettings, DatabaseSettings, archive_path

        db = DatabaseSettings()
        # a voyage of last year: its track is in the archive
        archive = archive_path(ArchiveSettings(), db)
        repo = open_repository(db.url, sqlite_path=db.sqlite_path, archive_dir=archive)
        try:
            repo.migrate()
            doc = run_audit(req, repo, assessor, settings, now, EVERY_AUTHORITY)
        finally:
            repo.close()
    else:
        doc = audit_request(req, track_of(req), None, assessor, settings, now).document
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    return 0


def run(args: argparse.Namespace) -> int:
    """Dispatch to the action."""
    if args.action == "assess":
        return _assess(args)
    return _audit(args)
