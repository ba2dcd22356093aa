"""Broker-mode test kit: a private nats-server, evaluation workers as real processes,
a load built from a real capture, and the single-process reference it must match.

The private server runs with ``-js -sd TMPDIR`` on a free port, so a test may kill and
restart it at will; the machine's shared server at 127.0.0.1:4222 is never touched.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nats

from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.alerts.procedure.routing import jurisdictions, routed
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import Position, Record, StaticData
from vigia.ingest.sources import FileSource
from vigia.service.runtime.bus.codec import Subjects
from vigia.service.settings import BusSettings
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "demo" / "rio_demo.nmea"
NATS_BIN = shutil.which("nats-server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_port(port: int, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing answers on port {port}")


class PrivateNats:
    """``nats-server -js`` on a free port with its own store folder; restartable."""

    def __init__(self) -> None:
        assert NATS_BIN is not None
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="vigia-nats-"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.dir / "log", "ab") as log:  # the child keeps its own copy
            self.proc = subprocess.Popen(
                [NATS_BIN or "nats-server", "-js", "-a", "127.0.0.1", "-p", str(self.port),
                 "-sd", str(self.dir)],
                stdout=subprocess.DEVNULL, stderr=log,
            )  # fmt: skip
        wait_port(self.port)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(20)
        self.proc = None

    def destroy(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


class WorkerProc:
    """``vigia evaluate`` as a child process, with its probe port."""

    def __init__(
        self, env: dict[str, str], name: str, log_dir: Path, args: Sequence[str] = ()
    ) -> None:
        self.name = name
        self.log = log_dir / f"{name}.log"
        offset = self.log.stat().st_size if self.log.exists() else 0
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "vigia.service.cli", "evaluate", "--port", "0",
                 "--name", name, "--log-level", "warning", *args],
                env=env, stdout=subprocess.DEVNULL, stderr=log,
            )  # fmt: skip
        self.port = 0
        end = time.monotonic() + 90
        while time.monotonic() < end and not self.port:
            text = self.log.read_bytes()[offset:].decode(errors="replace")
            for line in text.splitlines():
                if f"vigia evaluate {name}:" in line:
                    self.port = int(line.rsplit(" ", 1)[1])
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker {name} died:\n{text[-3000:]}")
            time.sleep(0.1)
        assert self.port, f"worker {name} never announced its port"

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def pause(self) -> None:
        """SIGSTOP: the process stalls mid-work, as in a long GC or a frozen VM."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def stop(self, timeout: float = 75.0) -> None:
        """SIGTERM and wait for the hand-over; a worker that hangs fails the test with
        its stacks (SIGUSR1) in the message."""
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGUSR2)  # coroutine stacks
            time.sleep(1)
            self.proc.send_signal(signal.SIGUSR1)  # thread stacks
            time.sleep(1)
            self.proc.kill()
            self.proc.wait(10)
            tail = self.log.read_text(errors="replace")[-6000:]
            raise AssertionError(f"worker {self.name} did not stop:\n{tail}") from None


def worker_env(db_url: str, bus: BusSettings) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=db_url,
        VIGIA_BUS_URL=bus.url,
        VIGIA_BUS_PREFIX=bus.prefix,
        VIGIA_BUS_PARTITIONS=str(bus.partitions),
        VIGIA_BUS_LEASE_TTL_S=str(bus.lease_ttl_s),
        VIGIA_BUS_CHECKPOINT_S=str(bus.checkpoint_s),
        VIGIA_API_HOST="127.0.0.1",
    )
    return env


# -- load ---------------------------------------------------------------------------------


def demo_records(path: Path = DEMO) -> list[Record]:
    """Positions and static data decoded from a real capture, in file order."""
    ing = Ingestor()
    recs = list(ing.feed_many(FileSource(path).lines()))
    recs.extend(ing.flush())
    return [r for r in recs if type(r) in (Position, StaticData)]


def fleet(records: Sequence[Record], copies: int) -> list[Record]:
    """``copies`` fleets sailing the same capture at once (MMSI + k), merged by time.

    A load with many vessels and many leads whose right answer the single-process
    pipeline gives; each copy's leads have their own ids (the MMSI is in the id).
    """
    out: list[tuple[float, int, int, Record]] = []
    for k in range(copies):
        for i, r in enumerate(records):
            out.append((r.t, i, k, dataclasses.replace(r, mmsi=r.mmsi + k)))  # type: ignore[type-var]
    out.sort(key=lambda x: (x[0], x[2], x[1]))
    return [x[3] for x in out]


def batches(records: Sequence[Record], n: int = 2_000) -> list[list[Record]]:
    return [list(records[i : i + n]) for i in range(0, len(records), n)]


def reference_leads(
    chunks: Sequence[Sequence[Record]], *, route_them: bool = True
) -> dict[str, Lead]:
    """What single-process mode raises on these batches: closed leads, then every
    episode still open at the end (as the worker stores them), by id; routed to their
    authority as the store routes them unless ``route_them`` is false (the pipeline
    alone does not route; the routing itself is tested on its own)."""
    zones = load_zones([bundled_zones_dir()])
    pipeline = LeadPipeline(ZoneIndex(zones), Ingestor().registry)
    out: dict[str, Lead] = {}
    for batch in chunks:
        for r in batch:
            if type(r) is StaticData:
                pipeline.registry.update(r)
        for lead in pipeline.process(batch) + pipeline.expire(pipeline.stream_time):
            out[lead.id] = lead
    for lead in pipeline.open_leads():
        out[lead.id] = lead
    if not route_them:
        return out
    claims = jurisdictions(zones)

    def destination(mmsi: int) -> str | None:
        info = pipeline.registry.get(mmsi)
        return None if info is None else info.destination

    return {k: routed(v, destination(v.mmsi), claims) for k, v in out.items()}


def stored_positions(records: Sequence[Record]) -> set[tuple[int, float]]:
    from vigia.service.db.codec import storable

    return {(r.mmsi, r.t) for r in records if type(r) is Position and storable(r)}


# -- bus helpers ----------------------------------------------------------------------------


async def publish(
    bus: BusSettings,
    chunks: Sequence[Sequence[Record]],
    *,
    rate: float | None = None,
    at: dict[int, Any] | None = None,
) -> None:
    """Publish batches (``rate`` records/s when given); ``at[i]`` runs before batch i."""
    from vigia.service.runtime.bus.publisher import BusPublisher, connect, ensure_streams

    nc = await connect(bus, "test-publisher")
    js = nc.jetstream()
    await ensure_streams(js, bus)
    pub = BusPublisher(js, bus, f"test-{os.getpid()}-{time.time_ns()}")
    start = time.monotonic()
    sent = 0
    for i, batch in enumerate(chunks):
        hook = (at or {}).get(i)
        if hook is not None:
            await hook()
        await pub.publish(batch, time.time())
        sent += len(batch)
        if rate:
            ahead = sent / rate - (time.monotonic() - start)
            if ahead > 0:
                await asyncio.sleep(ahead)
    await nc.drain()


async def backlog(bus: BusSettings) -> int:
    """Messages not yet acknowledged over every partition's durable consumer."""
    names = Subjects(bus.prefix)
    nc = await nats.connect(bus.url, max_reconnect_attempts=3)
    js = nc.jetstream()
    total = 0
    try:
        consumers = await js.consumers_info(names.stream)
        for p in range(bus.partitions):
            mine = [c for c in consumers if names.is_durable_of(c.name or "", p)]
            if not mine:
                stream = await js.stream_info(names.stream)
                total += 1 if stream.state.messages else 0  # never consumed yet
                continue
            total += sum(int(c.num_pending or 0) + int(c.num_ack_pending or 0) for c in mine)
    finally:
        await nc.close()
    return total


def wait_drained(bus: BusSettings, timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if asyncio.run(backlog(bus)) == 0:
                return
        except Exception:
            pass
        time.sleep(0.5)
    raise TimeoutError("the workers did not drain the stream in time")


def ingest_files(env: dict[str, str], *files: Path) -> None:
    """``vigia ingest --bus`` on these files, as a real process; it must succeed."""
    done = subprocess.run(
        [sys.executable, "-m", "vigia.service.cli", "ingest", "--bus", "--port", "0",
         "--log-level", "warning", *map(str, files)],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def run_in_broker(
    env: dict[str, str], bus: BusSettings, log_dir: Path, *files: Path, workers: int = 2
) -> None:
    """Workers up, the files ingested through the bus, the stream drained, the workers
    stopped gracefully (their final checkpoint stores the episodes still open)."""
    procs = [WorkerProc(env, f"w{i}", log_dir) for i in range(workers)]
    try:
        ingest_files(env, *files)
        wait_drained(bus, 120)
    finally:
        for w in procs:
            w.stop()
