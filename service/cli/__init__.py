"""The ``vigia`` command: one sub-command per module, each registering its parser."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from vigia.ingest.errors import VigiaError

# each module exposes register(subparsers) and sets a ``func`` default returning an exit code
_COMMAND_MODULES = (
    "vigia.service.cli.decode",
    "vigia.service.cli.replay",
    "vigia.service.cli.ballast",
    "vigia.service.cli.serve",
    "vigia.service.cli.apikey",
    "vigia.service.cli.healthcheck",
    "vigia.service.cli.bus",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = argparse.ArgumentParser(
        prog="vigia", description="AIS watch over NORMAM-07 closed areas and ballast rules."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vigia`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except VigiaError as exc:
        print(f"vigia: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
