"""Broker-mode scale benchmark: throughput with 1 and 2 evaluation workers, a sustained run
above the world's AIS rate with memory sampled, and the read -> stored-lead latency.

Runs a private nats-server (-js, free port, temp store) and a throwaway PostGIS database
on the machine's PostgreSQL; workers are real `vigia evaluate` processes. The load is the
demo capture's fleet copied ``--copies`` times (MMSI + k) and replayed lap after lap with
its clock moved on, so episodes open and close all along. Baselines measured in the same
run: single-process decoding (lines/s) and single-process evaluation without a store.

    .venv/bin/python -m benchmarks.scale --records 150000 --sustain-s 180 --rate 6500

``--quick`` (a smoke run): 20,000 records per capacity run, 8 s sustained at 2,000/s.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

from tests.support.bus_rig import (
    DEMO,
    PrivateNats,
    WorkerProc,
    backlog,
    demo_records,
    fleet,
    worker_env,
)
from vigia.ingest.records import Record
from vigia.service.settings import BusSettings

PG = os.environ.get("VIGIA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432")


def laps(copies: int, total: int) -> Iterator[list[Record]]:
    """Batches of 1,000 records: the fleet, lap after lap, each lap later in time
    (generated as they are published, so a long run holds one lap in memory)."""
    base = fleet(demo_records(), copies)
    span = base[-1].t - base[0].t + 3_600.0  # an hour apart: every episode closes
    sent, lap = 0, 0
    while sent < total:
        shifted = [dataclasses.replace(r, t=r.t + lap * span) for r in base]  # type: ignore[type-var]
        for i in range(0, len(shifted), 1_000):
            if sent >= total:
                return
            yield shifted[i : i + 1_000]
            sent += len(shifted[i : i + 1_000])
        lap += 1


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def metrics(port: int) -> dict[str, float]:
    """A worker's ``vigia_bus_*`` figures by name, spelled as /metrics spells them (units
    written out, ``e2e_latency_p50_seconds``; counters ending in ``_total``)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("vigia_bus_"):
            name, value = line.rsplit(" ", 1)
            out[name.split("{")[0].removeprefix("vigia_bus_")] = float(value)
    return out


def held(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
            body = r.read()
    except urllib.error.HTTPError as err:  # 503 while still connecting
        body = err.read()
    return len(json.loads(body).get("partitions", []))


async def publish(bus: BusSettings, chunks: Iterable[list[Record]], rate: float | None) -> float:
    """Publish (at ``rate`` records/s if given); returns the achieved records/s."""
    from vigia.service.runtime.bus.publisher import BusPublisher, connect, ensure_streams

    nc = await connect(bus, "bench-publisher")
    js = nc.jetstream()
    await ensure_streams(js, bus)
    pub = BusPublisher(js, bus, f"bench-{uuid.uuid4().hex[:6]}")
    start, sent = time.monotonic(), 0
    for batch in chunks:
        await pub.publish(batch, time.time())
        sent += len(batch)
        if rate:
            ahead = sent / rate - (time.monotonic() - start)
            if ahead > 0:
                await asyncio.sleep(ahead)
    await nc.drain()
    return sent / (time.monotonic() - start)


def baselines(records: int) -> tuple[float, float]:
    """Single-process decode lines/s and evaluate records/s (no bus, no store)."""
    from vigia.alerts.pipeline import LeadPipeline
    from vigia.ingest.decoder import Ingestor
    from vigia.ingest.records import RawLine
    from vigia.zones.catalogue import bundled_zones_dir, load_zones
    from vigia.zones.evaluate import ZoneIndex

    text = [ln for ln in DEMO.read_text().splitlines() if ln and not ln.startswith("#")]
    lines = [RawLine(t, 0.0, "bench") for t in text] * max(1, 20_000 // len(text))
    ing = Ingestor()
    t0 = time.perf_counter()
    for line in lines:
        ing.feed(line)
    decode = len(lines) / (time.perf_counter() - t0)
    chunks = list(laps(40, records))
    pipe = LeadPipeline(ZoneIndex(load_zones([bundled_zones_dir()])), ing.registry)
    t0 = time.perf_counter()
    n = 0
    for batch in chunks:
        pipe.process(batch)
        pipe.expire(pipe.stream_time)
        n += len(batch)
    return decode, n / (time.perf_counter() - t0)


def capacity(
    db: str, server: PrivateNats, workers: int, chunks: list[list[Record]]
) -> tuple[float, float]:
    """Records/s that ``workers`` workers store from a stream already full, and the
    workers' CPU microseconds per record over the same stretch."""
    bus = BusSettings(url=server.url, prefix=f"b{uuid.uuid4().hex[:6]}", partitions=16)
    asyncio.run(publish(bus, chunks, None))
    total = sum(len(b) for b in chunks)
    env = worker_env(db, bus)
    logs = Path(os.environ.get("TMPDIR", "/tmp"))
    # each worker pinned to its share, so none starts alone on all of them; the window
    # opens once every worker is consuming
    procs = []
    for i in range(workers):
        mine = ",".join(str(p) for p in range(bus.partitions) if p % workers == i)
        procs.append(
            WorkerProc(env, f"cap{workers}-{i}-{bus.prefix}", logs, ["--partitions", mine])
        )
    try:
        samples: list[tuple[float, float, float]] = []
        while True:
            per = [metrics(p.port).get("records_total", 0.0) for p in procs]
            cpu = sum(cpu_s(p.proc.pid) for p in procs)
            if all(n > 0 for n in per):
                samples.append((time.monotonic(), sum(per), cpu))
            if sum(per) >= total:
                break
            time.sleep(0.5)
        first, last = samples[0], samples[-1]
        n = max(1.0, last[1] - first[1])
        return n / max(1e-9, last[0] - first[0]), (last[2] - first[2]) / n * 1e6
    finally:
        for p in procs:
            p.stop()


def sustained(
    db: str, server: PrivateNats, chunks: Iterable[list[Record]], rate: float, every: float
) -> dict[str, object]:
    """Two workers under ``rate`` records/s, sampled every ``every`` seconds."""
    bus = BusSettings(url=server.url, prefix=f"s{uuid.uuid4().hex[:6]}", partitions=16)
    env = worker_env(db, bus)
    logs = Path(os.environ.get("TMPDIR", "/tmp"))
    procs = [WorkerProc(env, f"sus-{i}-{bus.prefix}", logs) for i in range(2)]
    samples: list[tuple[float, float, list[float], int]] = []
    try:
        # both workers in, partitions shared out, before the traffic starts
        while True:
            counts = [held(p.port) for p in procs]
            if all(counts) and sum(counts) == bus.partitions:
                break
            time.sleep(0.5)

        async def run() -> float:
            task = asyncio.create_task(publish(bus, chunks, rate))
            t0 = time.monotonic()
            while not task.done():
                await asyncio.sleep(every)
                done = sum(metrics(p.port).get("records_total", 0.0) for p in procs)
                rss = [rss_mb(p.proc.pid) for p in procs]
                lag = await backlog(bus)
                samples.append((time.monotonic() - t0, done, rss, lag))
                print(f"  t={samples[-1][0]:5.0f}s stored={done:9.0f} rss={rss} backlog={lag}")
            return await task

        achieved = asyncio.run(run())
        end = time.monotonic() + 120
        while asyncio.run(backlog(bus)) and time.monotonic() < end:
            time.sleep(1)
        m = [metrics(p.port) for p in procs]
    finally:
        for p in procs:
            p.stop()
    return {"achieved_rate": achieved, "samples": samples, "metrics": m}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=150_000, help="records per capacity run")
    ap.add_argument("--rate", type=float, default=6_500.0, help="sustained records/s")
    ap.add_argument("--sustain-s", type=float, default=180.0, help="sustained run length")
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    args = ap.parse_args()
    every = 10.0
    if args.quick:
        args.records, args.rate, args.sustain_s, every = 20_000, 2_000.0, 8.0, 2.0
    import psycopg

    name = f"vigia_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    with psycopg.connect(f"{PG}/{name}", autocommit=True) as c:
        c.execute("CREATE EXTENSION postgis")
    db = f"{PG.replace('postgresql://', 'postgresql+psycopg://')}/{name}"
    server = PrivateNats()
    server.start()
    try:
        from vigia.service.cli.bus import _open_store
        from vigia.service.settings import Settings

        settings = Settings()
        settings.database.url = db
        _open_store(settings).close()
        decode, evaluate = baselines(min(args.records, 100_000))
        print(
            f"baseline, one process: decode {decode:,.0f} lines/s; evaluate {evaluate:,.0f} rec/s"
        )
        chunks = list(laps(40, args.records))
        for k in (1, 2):
            rate, us = capacity(db, server, k, chunks)
            print(
                f"capacity, {k} worker(s), 16 partitions: {rate:,.0f} records/s stored; "
                f"worker CPU {us:.0f} us/record"
            )
        n = int(args.rate * args.sustain_s)
        result = sustained(db, server, laps(40, n), args.rate, every)
        print(
            f"sustained: published {result['achieved_rate']:,.0f} rec/s for {args.sustain_s:.0f} s"
        )
        for m in result["metrics"]:  # type: ignore[attr-defined]
            print(
                "  worker: latency read->stored p50 {:.2f}s p95 {:.2f}s p99 {:.2f}s, "
                "redeliveries {:.0f}".format(
                    m["e2e_latency_p50_seconds"],
                    m["e2e_latency_p95_seconds"],
                    m["e2e_latency_p99_seconds"],
                    m["redeliveries_total"],
                )
            )
    finally:
        server.destroy()
        with psycopg.connect(f"{PG}/postgres", autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
