"""`vigia serve`: the API and the ingest worker in one process, or either alone."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from vigia.service.cli.healthcheck import HEARTBEAT_ENV
from vigia.service.settings import Settings


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "serve",
        help="run the HTTP API and the ingest worker",
        description="Run the API and the ingest worker (sources from VIGIA_INGEST_* settings).",
    )
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port to listen on (default 8000)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--no-worker", action="store_true", help="serve the API only")
    mode.add_argument("--worker-only", action="store_true", help="run the ingest worker only")
    p.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    p.set_defaults(func=run)


HEARTBEAT_EVERY_S = 10.0


def _run_worker_only(settings: Settings) -> int:
    from vigia.service.http.app import Runtime
    from vigia.service.http.probe import worker_probe

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    # webhooks go out from the API process only, so two processes never both send them
    runtime = Runtime.start(settings, with_worker=True, with_webhooks=False)
    # no API here, but the worker's own /healthz and /metrics on the API port: a split
    # deployment is otherwise blind to the process that does the storing
    probe = worker_probe(runtime, settings.api.host, settings.api.port)
    beat = os.environ.get(HEARTBEAT_ENV)
    try:
        # no HTTP here: a heartbeat file, touched while the store answers, tells a
        # container health check (vigia healthcheck) that the worker is alive
        while True:
            if beat and runtime.repository.ping():
                Path(beat).touch()
            if stop.wait(HEARTBEAT_EVERY_S):
                break
    finally:
        probe.close()
        runtime.close()
    return 0


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Logging at ``--log-level``, the settings from the environment, and ``--host`` /
    ``--port`` over them (every long-running sub-command takes these three)."""
    import logging

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(message)s")
    settings = Settings.load()
    if args.host is not None:
        settings.api.host = args.host
    if args.port is not None:
        settings.api.port = args.port
    return settings


def run(args: argparse.Namespace) -> int:
    """Build the settings, then run uvicorn with create_app (or the worker alone)."""
    settings = settings_from_args(args)
    if args.no_worker:
        settings.ingest.worker = False
    if args.worker_only:
        settings.ingest.worker = True
        return _run_worker_only(settings)
    sys.setswitchinterval(settings.api.switch_interval_s)

    import uvicorn

    from vigia.service.http.app import create_app
    from vigia.service.http.header_timeout import protocol

    api = settings.api
    uvicorn.run(
        create_app(settings),
        host=settings.api.host,
        port=settings.api.port,
        log_level=args.log_level,
        http=protocol(api.header_timeout_s, api.body_timeout_s, api.send_timeout_s),
    )
    return 0
