"""`vigia healthcheck`: exit 0 when this container's Vigia is alive, in any mode.

The API modes answer ``GET /healthz``; the worker-only mode has no HTTP server, so it
touches a heartbeat file (``VIGIA_HEARTBEAT_FILE``) while its store answers. Healthy is
either: the local API answers, or the heartbeat is younger than ``--max-age``. One check
thus serves a container image that may be started in any of the three modes.
"""

from __future__ import annotations

import argparse
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

HEARTBEAT_ENV = "VIGIA_HEARTBEAT_FILE"


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "healthcheck", help="exit 0 if the local API answers or the worker's heartbeat is fresh"
    )
    p.add_argument("--port", type=int, default=None, help="API port (default VIGIA_API_PORT)")
    p.add_argument("--max-age", type=float, default=60.0, help="heartbeat age limit, seconds")
    p.set_defaults(func=run)


def api_answers(port: int, timeout: float = 4.0) -> bool:
    """Whether ``GET /healthz`` on the loopback answers 200."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as r:
            return int(r.status) == 200
    except (OSError, urllib.error.URLError):
        return False


def heartbeat_fresh(path: str | None, max_age_s: float, now: float) -> bool:
    """Whether the heartbeat file exists and was touched within ``max_age_s``."""
    if not path:
        return False
    try:
        return now - Path(path).stat().st_mtime <= max_age_s
    except OSError:
        return False


def run(args: argparse.Namespace) -> int:
    """0 when healthy, 1 otherwise (what a container health check expects)."""
    port = args.port if args.port is not None else int(os.environ.get("VIGIA_API_PORT", "8000"))
    if api_answers(port):
        return 0
    if heartbeat_fresh(os.environ.get(HEARTBEAT_ENV), args.max_age, time.time()):
        return 0
    return 1
