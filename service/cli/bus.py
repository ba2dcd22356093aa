"""`vigia ingest --bus` and `vigia evaluate`: the two process kinds of broker mode.

Single-process mode (``vigia serve``) stays the default; these commands split the work
over NATS JetStream (settings: ``VIGIA_BUS_*``). Each process serves /healthz and
/metrics on its own port (``--port``; 0 picks a free one and prints it).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any

from vigia.service.cli.serve import settings_from_args
from vigia.service.db.protocol import Repository
from vigia.service.runtime.gc_tune import freeze_startup_heap
from vigia.service.settings import Settings


def _partitions(text: str) -> list[int]:
    """``0-3,7`` -> [0, 1, 2, 3, 7]."""
    out: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise argparse.ArgumentTypeError(f"not a partition list: {text!r}")
        out.extend(range(int(lo), int(hi) + 1) if sep else [int(lo)])
    return out


def register(sub: Any) -> None:
    """Add both sub-commands to the parser."""
    ing: argparse.ArgumentParser = sub.add_parser(
        "ingest",
        help="read feeds and publish decoded records to NATS JetStream (broker mode)",
        description=(
            "Read the VIGIA_INGEST_* sources (or the FILEs given) and publish decoded "
            "records to the bus, partitioned by MMSI. Evaluation is `vigia evaluate`."
        ),
    )
    ing.add_argument("files", nargs="*", metavar="FILE", help="NMEA files to replay")
    ing.add_argument("--bus", action="store_true", required=True, help="publish to the bus")
    _common(ing)
    ing.set_defaults(func=run_ingest)
    ev: argparse.ArgumentParser = sub.add_parser(
        "evaluate",
        help="evaluation worker: consume partitions from the bus, store positions and leads",
        description=(
            "Join the evaluation workers: take a share of the partitions (or the fixed "
            "--partitions), judge them against the zones, store positions and leads."
        ),
    )
    ev.add_argument(
        "--partitions", type=_partitions, default=None, help="fixed partitions, e.g. 0-7,12"
    )
    _common(ev)
    ev.set_defaults(func=run_evaluate)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default=None, help="probe address (default: VIGIA_API_HOST)")
    p.add_argument("--port", type=int, default=None, help="probe port (default: VIGIA_API_PORT)")
    p.add_argument("--name", default=None, help="process name (default: kind-host-pid-random)")
    p.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )


def _setup(args: argparse.Namespace) -> Settings:
    import faulthandler

    # `kill -USR1 PID` prints every thread's stack: how to see where a stuck worker waits
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    return settings_from_args(args)


def _announce(kind: str, name: str, port: int) -> None:
    print(f"vigia {kind} {name}: /healthz and /metrics on port {port}", file=sys.stderr)
    sys.stderr.flush()


def run_ingest(args: argparse.Namespace) -> int:
    """Publish until the files end (replay) or a signal arrives (live feeds)."""
    import threading

    from vigia.ingest.sources import FileSource
    from vigia.service.http.probe import ProbeServer
    from vigia.service.runtime.bus.ingest import BusIngest
    from vigia.service.runtime.bus.publisher import process_name
    from vigia.service.runtime.feeds import LineSource, sources_from_settings

    settings = _setup(args)
    name = args.name or process_name("ingest")
    stop = threading.Event()
    sources: list[LineSource] = (
        [FileSource(f) for f in args.files]
        if args.files
        else sources_from_settings(settings.ingest, stop)
    )
    ingest = BusIngest(settings.bus, sources, name, queue_size=settings.ingest.queue_size)
    ingest.stop_event = stop
    probe = ProbeServer(settings.api.host, settings.api.port, name, ingest.healthy, ingest.stats)
    probe.start()
    _announce("ingest", name, probe.port)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        asyncio.run(ingest.run())
    finally:
        probe.close()
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    """Hold partitions until SIGTERM/SIGINT, then hand them back checkpointed."""
    from vigia.alerts.episodes import EpisodeConfig
    from vigia.service.http.probe import ProbeServer
    from vigia.service.runtime.bus.publisher import process_name
    from vigia.service.runtime.bus.worker import EvalWorker

    settings = _setup(args)
    name = args.name or process_name("evaluate")
    repo = _open_store(settings)
    worker = EvalWorker(
        repo,
        settings.bus,
        name,
        only=args.partitions,
        config=EpisodeConfig(lateness_s=settings.ingest.lateness_s),
    )
    probe = ProbeServer(settings.api.host, settings.api.port, name, worker.healthy, worker.stats)
    probe.start()
    # a SIGTERM between the announcement and the loop's own handlers (main, below)
    # still stops the worker cleanly instead of killing it
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: worker.stop())
    _tune_gc()
    _announce("evaluate", name, probe.port)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, worker.stop)
        loop.add_signal_handler(signal.SIGUSR2, _dump_tasks)
        await worker.run()

    # not asyncio.run: its shutdown waits for every task to finish cancelling, and a
    # client task that ignores cancellation would keep a stopped worker alive forever
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())
    finally:
        probe.close()
        repo.close()
    return 0


def _tune_gc() -> None:
    """A worker allocates a few short-lived objects per record over a large long-lived
    heap (open episodes, the registry, the store's engine). CPython's default gen-0
    threshold of 700 allocations ran collections thousands of times a second over it,
    about a tenth of the worker's CPU; start-up objects are frozen out of collection and
    gen 0 waits for 50,000 allocations (see docs/operations-scale.md)."""
    freeze_startup_heap()


def _dump_tasks() -> None:
    """`kill -USR2 PID`: where every coroutine of a worker waits."""
    for task in asyncio.all_tasks():
        print(f"--- {task.get_name()}", file=sys.stderr)
        task.print_stack(file=sys.stderr)
    sys.stderr.flush()


def _open_store(settings: Settings) -> Repository:
    """The migrated store, with the bundled zones (and state vessels) if it has none.

    Not through the API's Runtime: importing the API (its ballast routes above all) costs
    seconds a restarted worker should spend catching up instead.
    """
    from vigia.service.db.store import open_repository
    from vigia.service.runtime import state_vessels

    repo = open_repository(settings.database.url, sqlite_path=settings.database.sqlite_path)
    try:
        repo.migrate()
        if settings.zones.load_bundled and repo.count_zones() == 0:
            from vigia.zones.catalogue import bundled_zones_dir, load_zones

            folder = settings.zones.zones_dir or str(bundled_zones_dir())
            # several workers start together on an empty store: one of them seeds
            repo.seed_zones(load_zones([folder]))
        state_vessels.seed(repo, settings.zones)
    except BaseException:
        repo.close()
        raise
    return repo
