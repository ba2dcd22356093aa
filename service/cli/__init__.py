"""The ``vigia`` command: one sub-command per module, each registering its parser.

Only the chosen sub-command's module is imported: the others pull in FastAPI,
SQLAlchemy, numpy and pyais, which cost a second before ``vigia --help`` could answer
(issue 23). ``vigia --help`` and a mistyped command are answered from :data:`COMMANDS`;
a test checks that table against the help each module registers.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from vigia.ingest.errors import VigiaError

# sub-command -> (module exposing register(subparsers), one-line help). Each module's
# register() sets a ``func`` default returning an exit code.
COMMANDS: dict[str, tuple[str, str]] = {
    "decode": (
        "vigia.service.cli.decode",
        "decode AIS (NMEA files, '-' for stdin, or DMA/NOAA CSV) to JSON lines",
    ),
    "replay": (
        "vigia.service.cli.replay",
        "evaluate NMEA files against zone files and write every lead as JSON lines",
    ),
    "ballast": (
        "vigia.service.cli.ballast",
        "ballast water: assess points, audit declared exchanges",
    ),
    "serve": ("vigia.service.cli.serve", "run the HTTP API and the ingest worker"),
    "backtest": (
        "vigia.service.cli.backtest",
        "try draft zones on past traffic: the leads they would have raised",
    ),
    "draft": (
        "vigia.service.cli.draft",
        "draft zones: add, try on past traffic, publish or drop",
    ),
    "archive": (
        "vigia.service.cli.archive",
        "move positions older than DAYS from the store to the GeoParquet archive",
    ),
    "backup": (
        "vigia.service.cli.backup",
        "copy the store, the archive and the spool, as of one moment, into DEST",
    ),
    "restore": (
        "vigia.service.cli.backup",
        "put a backup back into the configured store, archive and spool",
    ),
    "apikey": ("vigia.service.cli.apikey", "manage API keys"),
    "zones": (
        "vigia.service.cli.zones_import",
        "import zones from ENC cells, their GeoJSON extracts and CSV registers",
    ),
    "healthcheck": (
        "vigia.service.cli.healthcheck",
        "exit 0 if the local API answers or the worker's heartbeat is fresh",
    ),
    "ingest": (
        "vigia.service.cli.bus",
        "read feeds and publish decoded records to NATS JetStream (broker mode)",
    ),
    "evaluate": (
        "vigia.service.cli.bus",
        "evaluation worker: consume partitions from the bus, store positions and leads",
    ),
    "pair": (
        "vigia.service.cli.pair",
        "pairing stage: meetings at sea across partitions, from the bus (broker mode)",
    ),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: the full one of ``command`` if it is known; for any other
    word (or none) every sub-command with its help line, and no module imported."""
    parser = argparse.ArgumentParser(
        prog="vigia", description="AIS watch over NORMAM-07 closed areas and ballast rules."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    if command in COMMANDS:
        importlib.import_module(COMMANDS[command][0]).register(sub)
        return parser
    for name, (_module, help_line) in COMMANDS.items():
        sub.add_parser(name, help=help_line)
    return parser


def full_parser() -> argparse.ArgumentParser:
    """Every sub-command registered by its own module (for tests and documentation)."""
    parser = argparse.ArgumentParser(prog="vigia")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in dict.fromkeys(m for m, _ in COMMANDS.values()):
        importlib.import_module(module).register(sub)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    # the top-level parser has no option taking a value, so the first word that is not
    # an option is the sub-command
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vigia`` console script."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_word(words))
    args = parser.parse_args(words)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except VigiaError as exc:
        print(f"vigia: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
