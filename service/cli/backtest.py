"""`vigia backtest`: a draft zone file tried on the store's and the archive's positions
of a past period, through the live rule engine (issue 36)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from vigia.ingest.errors import IngestError


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "backtest",
        help="try draft zones on past traffic: the leads they would have raised",
        description=(
            "Runs the positions of a past period (the store and the archive) through the "
            "live rule engine with the draft zones applied over the zones in force, and "
            "writes the draft zones' leads as JSON lines, like vigia replay. A report "
            "(leads per day, vessels, rules, authorities, silences, the difference against "
            "the zones in force, what was read) goes to --report or standard error."
        ),
    )
    p.add_argument("--zones", action="append", required=True, metavar="DRAFT.geojson")
    p.add_argument("--since", required=True, help="how far back (30d, 12h, 90m) or an instant")
    p.add_argument("--until", help="end of the period: an ISO 8601 instant (default: now)")
    p.add_argument("--leads-out", default="-", metavar="OUT.jsonl", help="default: stdout")
    p.add_argument("--report", metavar="OUT.json", help="the report (default: stderr)")
    p.add_argument("--geojson", metavar="OUT.geojson", help="leads (new/kept/gone) as GeoJSON")
    p.add_argument("--csv", metavar="OUT.csv", help="leads (new/kept/gone) as CSV")
    p.set_defaults(func=run)


def _out(path: str | None) -> None:
    if path and path != "-" and not Path(path).resolve().parent.is_dir():
        raise IngestError(f"output folder does not exist: {Path(path).parent}")


def run(args: argparse.Namespace) -> int:
    """Backtest the draft; exit non-zero (VigiaError) before writing anything."""
    from vigia.alerts.backtest.export import geojson, to_csv
    from vigia.service.db.repository import SqlRepository
    from vigia.service.db.store import open_repository
    from vigia.service.runtime.backtest import backtest, instant
    from vigia.service.settings import ArchiveSettings, DatabaseSettings, archive_path
    from vigia.zones.catalogue import load_zones

    draft = load_zones([Path(p) for p in args.zones])  # a bad file refuses the run
    now = time.time()
    since = instant(args.since, now)
    until = now if args.until is None else instant(args.until, now)
    if until < since:
        raise IngestError("--until is before --since")
    for path in (args.leads_out, args.report, args.geojson, args.csv):
        _out(path)
    db = DatabaseSettings()
    repo = open_repository(
        db.url, sqlite_path=db.sqlite_path, archive_dir=archive_path(ArchiveSettings(), db)
    )
    try:
        assert isinstance(repo, SqlRepository)
        repo.migrate()
        outcome = backtest(repo, draft, since, until)
    finally:
        repo.close()
    lines = "".join(
        json.dumps(x.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"
        for x in outcome.leads
    )
    if args.leads_out == "-":
        sys.stdout.write(lines)
    else:
        Path(args.leads_out).write_text(lines, encoding="utf-8")
    report = json.dumps(outcome.report, indent=2, ensure_ascii=False) + "\n"
    if args.report:
        Path(args.report).write_text(report, encoding="utf-8")
    else:
        sys.stderr.write(report)
    if args.geojson:
        Path(args.geojson).write_text(json.dumps(geojson(outcome.compared)), encoding="utf-8")
    if args.csv:
        Path(args.csv).write_text(to_csv(outcome.compared), encoding="utf-8")
    return 0
