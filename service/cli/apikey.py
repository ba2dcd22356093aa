"""`vigia apikey create`: a new random key; only its hash goes into the store."""

from __future__ import annotations

import argparse
from typing import Any

from vigia.service.http.deps import ROLES, hash_key
from vigia.service.settings import Settings


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser("apikey", help="manage API keys")
    actions = p.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="create a key and print it (shown only once)")
    create.add_argument("--role", required=True, choices=sorted(ROLES, key=ROLES.__getitem__))
    create.add_argument("--name", default="", help="who or what the key is for")
    create.add_argument(
        "--authority",
        default=None,
        help="limit the key to this Capitania / Delegacia / Agência's leads",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Create a key in the configured store and print it."""
    from vigia.service.db.store import open_repository
    from vigia.service.http.app import new_api_key

    settings = Settings.load()
    repo = open_repository(settings.database.url, sqlite_path=settings.database.sqlite_path)
    try:
        repo.migrate()
        key = new_api_key()
        record = repo.add_api_key(
            args.name or f"{args.role}-key", args.role, hash_key(key), authority=args.authority
        )
    finally:
        repo.close()
    print(key)
    import sys

    print(f"created key {record.id} ({record.role}, {record.name})", file=sys.stderr)
    return 0
