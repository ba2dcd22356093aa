"""`vigia draft`: draft zones from the command line (issue 36), the same store and
rules as the admin's routes: add, list, show, try, publish, drop, budget."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "draft", help="draft zones: add, try on past traffic, publish or drop"
    )
    act = p.add_subparsers(dest="action", required=True)
    add = act.add_parser("add", help="store a zone file as a draft (validated, not live)")
    add.add_argument("file", type=Path)
    add.add_argument("--name", default="")
    act.add_parser("list", help="every draft, newest first")
    show = act.add_parser("show", help="one draft with its history")
    show.add_argument("id", type=int)
    edit = act.add_parser("edit", help="replace a draft's zones (its backtest is cleared)")
    edit.add_argument("id", type=int)
    edit.add_argument("file", type=Path)
    tri = act.add_parser("try", help="backtest a draft; the report is kept with it")
    tri.add_argument("id", type=int)
    tri.add_argument("--since", default="30d", help="30d, 12h, 90m or an instant")
    tri.add_argument("--until", help="an ISO 8601 instant (default: now)")
    pub = act.add_parser("publish", help="put a tried draft's zones in force")
    pub.add_argument("id", type=int)
    pub.add_argument("--reason", help="needed when the backtest exceeds a lead budget")
    drop = act.add_parser("drop", help="give a draft up (it stays listed)")
    drop.add_argument("id", type=int)
    drop.add_argument("--reason")
    bud = act.add_parser("budget", help="leads a day a zone may raise before a reason is needed")
    bud.add_argument("zone_id")
    bud.add_argument("leads_per_day", type=int)
    p.add_argument("--by", default="cli", help="who is acting (kept in the history)")
    p.set_defaults(func=run)


def _print(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")


def run(args: argparse.Namespace) -> int:
    """Do the action on the configured store; print the result as JSON."""
    from vigia.service.db.drafts import DraftStore
    from vigia.service.db.repository import SqlRepository
    from vigia.service.db.store import open_repository
    from vigia.service.errors import RequestInvalidError
    from vigia.service.runtime import drafts
    from vigia.service.runtime.backtest import backtest, instant
    from vigia.service.settings import ArchiveSettings, DatabaseSettings, archive_path
    from vigia.zones.catalogue import load_zones, parse_feature_collection, zone_to_feature

    def features(path: Path) -> dict[str, Any]:
        zones = load_zones([path])  # a bad file refuses the action
        return {"type": "FeatureCollection", "features": [zone_to_feature(z) for z in zones]}

    db = DatabaseSettings()
    archive = archive_path(ArchiveSettings(), db)
    repo = open_repository(db.url, sqlite_path=db.sqlite_path, archive_dir=archive)
    try:
        assert isinstance(repo, SqlRepository)
        repo.migrate()
        store, by = DraftStore(repo.engine), args.by
        if args.action == "add":
            _print(store.create(args.name, features(args.file), by))
        elif args.action == "list":
            _print(store.all())
        elif args.action == "show":
            _print(store.get(args.id))
        elif args.action == "edit":
            _print(store.edit(args.id, features(args.file), by))
        elif args.action == "try":
            draft = store.get(args.id)
            now = time.time()
            since = instant(args.since, now)
            until = now if args.until is None else instant(args.until, now)
            if until < since:
                raise RequestInvalidError("--until is before --since")
            zones = parse_feature_collection(draft["features"])
            outcome = backtest(repo, zones, since, until)
            store.tried(args.id, draft["features"], outcome.report, by)
            _print(outcome.report)
        elif args.action == "publish":
            _print(drafts.publish(repo, args.id, by, args.reason))
        elif args.action == "drop":
            _print(drafts.drop(repo, args.id, by, args.reason))
        else:
            store.set_budget(args.zone_id, args.leads_per_day, by)
            _print({"zone_id": args.zone_id, "leads_per_day": args.leads_per_day})
    finally:
        repo.close()
    return 0
