"""`vigia pair`: the pairing stage of broker mode (issue 37).

One process reads every partition's records and raises ``STS-ENCOUNTER`` and ``LOITER``
(service/runtime/bus/pairing.py); the evaluation workers leave both rules to it. Run one
(a second one started by mistake loses its first commit and stops). Serves /healthz and
/metrics on ``--port`` like the other broker-mode processes.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from typing import Any

from vigia.service.cli.bus import _announce, _common, _open_store, _setup


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "pair",
        help="pairing stage: meetings at sea across partitions, from the bus (broker mode)",
        description=(
            "Read every partition's records from the bus and raise STS-ENCOUNTER and "
            "LOITER leads (two ships that meet usually sit on different workers)."
        ),
    )
    _common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Pair until SIGTERM/SIGINT, then leave checkpointed."""
    from vigia.service.http.probe import ProbeServer
    from vigia.service.runtime.bus.pairing import PairingStage
    from vigia.service.runtime.bus.publisher import process_name

    settings = _setup(args)
    name = args.name or process_name("pair")
    repo = _open_store(settings)
    stage = PairingStage(repo, settings.bus, name, lateness_s=settings.ingest.lateness_s)
    probe = ProbeServer(settings.api.host, settings.api.port, name, stage.healthy, stage.stats)
    probe.start()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stage.stop())
    _announce("pair", name, probe.port)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stage.stop)
        await stage.run()

    try:
        asyncio.run(main())
    finally:
        probe.close()
        repo.close()
    return 0
