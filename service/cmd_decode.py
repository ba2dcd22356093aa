"""`vigia decode` (placeholder until its issue lands)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser("decode", help="(not yet available)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Not implemented yet."""
    print("vigia decode: not implemented yet", file=sys.stderr)
    return 3
