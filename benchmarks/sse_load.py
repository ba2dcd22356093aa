"""``GET /leads`` latency while many SSE streams and backlog readers are connected.

Usage: python -m benchmarks.sse_load [--streams 200] [--readers 50] [--events 20000]
       [--rate 500] [--seconds 20] [--catchup N] [--catchup-clients 10] [--pg] [--quick]

``vigia serve`` (a fresh SQLite file, or a fresh PostGIS database with ``--pg``) holds
``--events`` stored lead events and ingests fresh position reports from a TCP feed at
``--rate`` lines/s (its positions go to the streams that asked for them). Phases in
the same run, while one client times ``GET /leads?limit=50`` every 50 ms:

- baseline (``--seconds``): the feed running, no stream open;
- load (``--seconds``; skipped with ``--streams 0 --readers 0``): ``--streams`` streams
  (half of them ``positions=true`` over the whole world) and ``--readers`` clients
  replaying the whole event log from ``Last-Event-ID: 0`` again and again;
- catch-up (``--catchup N``, N > 0; the store then holds at least N events, one per
  stored lead): one client, then ``--catchup-clients`` at once, read ``/leads/stream``
  from ``Last-Event-ID: 0`` until each has an event with the newest stored id (issue 39:
  133,000 events). Each sub-phase reports how long the clients took (median and max),
  events/s, the server process's resident memory (VmRSS, sampled every 200 ms) before,
  at its peak and 2 s after, and ``GET /leads`` meanwhile.

Prints median, p99 and max of ``GET /leads`` per phase (goal: p99 under 200 ms), and
what the clients received. The stream clients run in a child process on the same machine
(their CPU is taken from the service's two cores); the timing client in this one.
``--quick``: 40 streams, 10 readers, 2,000 events, 6 s phases, a catch-up of at most
5,000 events.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import re
import socket
import statistics
import tempfile
import threading
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event as ProcessEvent
from pathlib import Path
from queue import Empty

import httpx

from benchmarks._served import KEY, serve, summary
from benchmarks.api import drop_database, temp_database
from scripts import aisgen
from vigia.alerts.lead import EvidencePoint, Lead
from vigia.service.db.live_store import LiveStore
from vigia.service.db.protocol import Repository
from vigia.service.db.store import open_repository

WORLD = "-180,-90,180,90"
#: an event's ``id:`` line (frames end their lines with CRLF)
ID_LINE = re.compile(rb"^id: (\d+)\r?$", re.MULTILINE)
#: one catch-up read: seconds, ``id:`` frames received, the last id, what went wrong ("")
CatchUpRead = tuple[float, int, int, str]


def _lead(i: int) -> Lead:
    t0 = time.time() - 3600 + i * 0.01
    return Lead(
        id=f"L-bench-{i:06d}", mmsi=710_000_000 + i % 5_000, rule="SEC-PLATFORM",
        citation="NORMAM-07/DPC 0212 f)", zone_id="plat-p50", zone_kind="platform",
        started_at=t0, ended_at=None, min_distance_m=120.0, max_sog_kn=8.5,
        closest_lon=-40.0, closest_lat=-22.5, closest_t=t0 + 60,
        evidence=[EvidencePoint(t0, -40.01, -22.5, 8.5, 90.0, 0, 300.0),
                  EvidencePoint(t0 + 60, -40.0, -22.5, 8.0, 91.0, 0, 120.0)],
        raw_sentences=["!AIVDM,1,1,,A,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"],
        vessel={"name": "NAVIO", "ship_type": 70}, zone_version=1,
    )  # fmt: skip


def _seed(url: str, n: int, events: int = 0) -> int:
    """Store ``n`` leads, and more until the event log holds at least ``events`` events
    (storing a new lead logs one ``lead.opened``); the log's newest id."""
    repo = open_repository(url)
    repo.migrate()
    start = head = 0
    while start < n or head < events:
        stop = min(n, start + 1_000) if start < n else start + 1_000
        repo.upsert_leads([_lead(i) for i in range(start, stop)])
        start, head = stop, _last_id(repo)
    repo.close()
    return head


def _last_id(repo: Repository) -> int:
    if not isinstance(repo, LiveStore):
        raise TypeError("this store keeps no event log")
    return repo.last_event_id()


def _head(url: str) -> int:
    repo = open_repository(url)
    try:
        return _last_id(repo)
    finally:
        repo.close()


class Feed:
    """Position reports of 200 vessels off Rio, timed now, on a TCP socket at ``rate``
    lines/s in 10 ms ticks (a live feed refuses old message times)."""

    def __init__(self, rate: int) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.server.getsockname()[1]}"
        self.rate, self.stop = rate, threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _line(self, k: int) -> bytes:
        mmsi = 710_500_000 + k % 200
        lon, lat = -43.3 + (k % 200) * 0.002 + (k // 200) * 1e-5, -23.1
        return (aisgen.fast_type1(mmsi, time.time(), lon, lat, 10.0, 90.0) + "\n").encode()

    def _run(self) -> None:
        conn, _ = self.server.accept()
        i, t, carry = 0, time.perf_counter(), 0.0
        with conn:
            while not self.stop.is_set():
                carry += self.rate / 100
                n, carry = int(carry), carry - int(carry)
                try:
                    conn.sendall(b"".join(self._line(i + k) for k in range(n)))
                except OSError:
                    return
                i += n
                t += 0.01
                time.sleep(max(0.0, t - time.perf_counter()))


def _sse_streams(base: str) -> int:
    text = httpx.get(f"{base}/metrics", headers={"X-API-Key": KEY}, timeout=30).text
    return sum(
        int(float(line.rsplit(" ", 1)[1]))
        for line in text.splitlines()
        if line.startswith("vigia_sse_clients{")
    )


def _storm(base: str, streams: int) -> list[float]:
    """Time ``GET /leads`` while the streams connect, until the service holds them all
    (at most 60 s); the latencies seen meanwhile."""
    ms: list[float] = []
    deadline = time.perf_counter() + 60
    with httpx.Client(base_url=base, headers={"X-API-Key": KEY}, timeout=30) as client:
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            client.get("/leads?limit=50").raise_for_status()
            ms.append((time.perf_counter() - t0) * 1000)
            if _sse_streams(base) >= streams:
                break
            time.sleep(0.05)
    return ms


def _time_leads(base: str, stop: threading.Event, out: list[float], errors: list[str]) -> None:
    with httpx.Client(base_url=base, headers={"X-API-Key": KEY}, timeout=30) as client:
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                client.get("/leads?limit=50").raise_for_status()
                out.append((time.perf_counter() - t0) * 1000)
            except httpx.HTTPError as exc:
                errors.append(type(exc).__name__)
            time.sleep(0.05)


async def _stream(client: httpx.AsyncClient, url: str, headers: dict[str, str],
                  got: list[int], again: bool, stop: asyncio.Event) -> None:  # fmt: skip
    """Read a stream, counting frames; ``again``: reconnect from the start when the
    backlog has been read (a reader replaying the log over and over)."""
    while not stop.is_set():
        try:
            async with client.stream("GET", url, headers=headers) as r:
                if r.status_code != 200:
                    got[1] += 1
                    await asyncio.sleep(1)
                    continue
                async for chunk in r.aiter_raw():
                    got[0] += chunk.count(b"event: ")
                    if stop.is_set() or (again and b"L-bench-" not in chunk and got[0]):
                        break
        except httpx.HTTPError:
            got[1] += 1


async def _load(base: str, streams: int, readers: int, seconds: float) -> list[list[int]]:
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    timeout = httpx.Timeout(30.0, read=None)
    counts = [[0, 0] for _ in range(3)]  # frames, errors: live, positions, backlog
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as client:
        h = {"X-API-Key": KEY}
        tasks = [
            asyncio.create_task(_stream(client, "/leads/stream", h, counts[0], False, stop))
            for _ in range(streams - streams // 2)
        ]
        tasks += [
            asyncio.create_task(
                _stream(
                    client, f"/leads/stream?positions=true&bbox={WORLD}", h, counts[1], False, stop
                )
            )
            for _ in range(streams // 2)
        ]
        tasks += [
            asyncio.create_task(
                _stream(client, "/leads/stream", {**h, "Last-Event-ID": "0"}, counts[2], True, stop)
            )
            for _ in range(readers)
        ]
        await asyncio.sleep(seconds)
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return counts


def _load_child(
    base: str, streams: int, readers: int, seconds: float, out: Queue[list[list[int]]]
) -> None:
    out.put(asyncio.run(_load(base, streams, readers, seconds)))


def _phase(base: str, seconds: float, streams: int, readers: int) -> tuple[list[float], str]:
    stop, ms, errors = threading.Event(), list[float](), list[str]()
    timer = threading.Thread(target=_time_leads, args=(base, stop, ms, errors), daemon=True)
    if streams or readers:
        # the stream clients in a process of their own: in this one their parsing held
        # the GIL, and the timer's own waits for it were counted as the service's latency
        ctx = multiprocessing.get_context("spawn")
        results: Queue[list[list[int]]] = ctx.Queue()
        runner = ctx.Process(
            target=_load_child, args=(base, streams, readers, seconds + 3, results), daemon=True
        )
        runner.start()
        # time the steady state: from when the service holds every long-lived stream
        # (the connection storm before it is reported apart, as its own figure)
        t0 = time.perf_counter()
        storm_ms = _storm(base, streams)
        note_storm = f"; streams all open after {time.perf_counter() - t0:.1f} s"
        time.sleep(1)
        timer.start()
        time.sleep(seconds)
        stop.set()
        try:
            live, positions, backlog = results.get(timeout=120)
        except Empty:
            live = positions = backlog = [0, 0]
        runner.join(30)
        note = note_storm + (
            f"; GET /leads while they connected: {summary(storm_ms)}"
            f"; frames received: live {live[0]:,}, positions {positions[0]:,},"
            f" backlog {backlog[0]:,}; refused or failed streams"
            f" {live[1] + positions[1] + backlog[1]}"
        )
    else:
        timer.start()
        time.sleep(seconds)
        stop.set()
        note = ""
    timer.join(60)
    if errors:
        note += f"; GET /leads errors {len(errors)}"
    return ms, note


def _rss_mb(pid: int, field: str = "VmRSS") -> float:
    """A field of the process's ``/proc/<pid>/status`` (VmRSS, VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _sample_rss(pid: int, stop: threading.Event, out: list[float]) -> None:
    while not stop.is_set():
        out.append(_rss_mb(pid))
        stop.wait(0.2)


async def _catch_up(client: httpx.AsyncClient, head: int, deadline: float) -> CatchUpRead:
    """Read the stream from ``Last-Event-ID: 0`` until an event with id ``head`` or
    above: seconds taken, ``id:`` frames received, the last id, what went wrong ("")."""
    t0 = time.perf_counter()
    frames, last, tail, error = 0, 0, b"", ""
    headers = {"X-API-Key": KEY, "Last-Event-ID": "0"}
    try:
        async with client.stream("GET", "/leads/stream", headers=headers) as r:
            if r.status_code != 200:
                return time.perf_counter() - t0, 0, 0, f"HTTP {r.status_code}"
            async for chunk in r.aiter_raw():
                data = tail + chunk
                cut = data.rfind(b"\n") + 1  # whole lines only; the rest waits for more
                if not frames and b"event: stream.reset" in data[:cut]:
                    error = "stream.reset"  # its id is the head: it would end the read
                    break
                ids = ID_LINE.findall(data, 0, cut)
                tail = data[cut:]
                if ids:
                    frames += len(ids)
                    last = int(ids[-1])
                    if last >= head:
                        break
                if time.perf_counter() > deadline:
                    error = "timeout"
                    break
    except httpx.HTTPError as exc:
        error = type(exc).__name__
    return time.perf_counter() - t0, frames, last, error


async def _catch_ups(base: str, head: int, clients: int, timeout: float) -> list[CatchUpRead]:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    deadline = time.perf_counter() + timeout
    # keep-alive comments come every second: a read waiting 30 s means a stalled stream
    async with httpx.AsyncClient(
        base_url=base, limits=limits, timeout=httpx.Timeout(30.0)
    ) as client:
        return list(
            await asyncio.gather(*(_catch_up(client, head, deadline) for _ in range(clients)))
        )


def _catch_up_child(
    base: str,
    head: int,
    clients: int,
    timeout: float,
    go: ProcessEvent,
    out: Queue[list[CatchUpRead]],
) -> None:
    go.set()  # imports done: the parent starts timing now
    out.put(asyncio.run(_catch_ups(base, head, clients, timeout)))


class CatchUp:
    """One catch-up sub-phase: the clients' reads, the server's memory, ``GET /leads``."""

    def __init__(self, clients: int, head: int) -> None:
        self.clients, self.head = clients, head
        self.reads: list[CatchUpRead] = []
        self.ms: list[float] = []
        self.errors: list[str] = []
        self.rss: list[float] = []
        self.before = self.after = self.hwm = float("nan")

    def row(self) -> str:
        """A line of the markdown table ``main`` prints."""
        secs = [r[0] for r in self.reads] or [float("nan")]
        frames = [r[1] for r in self.reads] or [0]
        rates = [r[1] / r[0] for r in self.reads if r[0] > 0] or [float("nan")]
        failed = [r[3] for r in self.reads if r[3]]
        peak = max(self.rss, default=float("nan"))
        return (
            f"| {self.clients} client{'s' if self.clients > 1 else ''}"
            f" | {min(frames):,} (head {self.head:,})"
            f" | {statistics.median(secs):.1f} / {max(secs):.1f}"
            f" | {statistics.median(rates):,.0f} / {sum(frames) / max(secs):,.0f}"
            f" | {self.before:.0f} / {peak:.0f} / {self.after:.0f} (+{peak - self.before:.0f})"
            f" | {_pcts(self.ms)} | {len(failed)}{_why(failed)}"
            f"{f'; GET /leads errors {len(self.errors)}' if self.errors else ''} |"
        )


def _why(failed: list[str]) -> str:
    return f" ({', '.join(sorted(set(failed)))})" if failed else ""


def _pcts(ms: list[float]) -> str:
    """``n``, median / p99 / max in ms (the percentile of ``summary``)."""
    if not ms:
        return "no samples"
    ordered = sorted(ms)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"{statistics.median(ms):.1f} / {p99:.1f} / {ordered[-1]:.1f} (n={len(ms)})"


def _catch_up_phase(base: str, pid: int, url: str, clients: int) -> CatchUp:
    """``clients`` read the whole event log at once while ``GET /leads`` is timed and the
    server's memory sampled."""
    out = CatchUp(clients, _head(url))
    # at 20 pages of 500 a second for all readers together, a read takes head / 10,000 s
    # per client; a deadline well past that
    timeout = 120 + out.head * clients / 1_000
    stop = threading.Event()
    ctx = multiprocessing.get_context("spawn")
    go = ctx.Event()
    results: Queue[list[CatchUpRead]] = ctx.Queue()
    runner = ctx.Process(
        target=_catch_up_child, args=(base, out.head, clients, timeout, go, results), daemon=True
    )
    out.before = _rss_mb(pid)
    runner.start()
    go.wait(60)
    threads = [
        threading.Thread(target=_time_leads, args=(base, stop, out.ms, out.errors), daemon=True),
        threading.Thread(target=_sample_rss, args=(pid, stop, out.rss), daemon=True),
    ]
    for t in threads:
        t.start()
    try:
        out.reads = results.get(timeout=timeout + 60)
    except Empty:
        out.reads = []
    stop.set()
    for t in threads:
        t.join(60)
    runner.join(30)
    time.sleep(2)
    out.after, out.hwm = _rss_mb(pid), _rss_mb(pid, "VmHWM")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, help="open streams (200; --quick 40)")
    ap.add_argument("--readers", type=int, help="backlog readers (50; --quick 10)")
    ap.add_argument("--events", type=int, help="stored events (20,000; --quick 2,000)")
    ap.add_argument("--rate", type=int, default=500, help="AIS lines/s into the service")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument(
        "--catchup",
        type=int,
        default=0,
        metavar="N",
        help="catch-up phase: store at least N events and read them all from Last-Event-ID 0"
        " (0: no catch-up phase; --quick: at most 5,000)",
    )
    ap.add_argument(
        "--catchup-clients", type=int, default=10, help="clients catching up at once (10)"
    )
    ap.add_argument("--pg", action="store_true", help="PostGIS instead of SQLite")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="40 streams, 10 readers, 2,000 events, a catch-up of at most 5,000",
    )
    args = ap.parse_args()
    for name, full, quick in (("streams", 200, 40), ("readers", 50, 10), ("events", 20_000, 2_000)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    if args.quick:
        args.seconds = 6.0
        args.catchup = min(args.catchup, 5_000)
    pg_name = None
    with tempfile.TemporaryDirectory() as tmp:
        if args.pg:
            url, pg_name = temp_database()
        else:
            url = f"sqlite:///{Path(tmp) / 'v.sqlite'}"
        try:
            t0 = time.perf_counter()
            head = _seed(url, args.events, args.catchup)
            seeded = time.perf_counter() - t0
            feed = Feed(args.rate)
            env = {
                "VIGIA_INGEST_WORKER": "true",
                "VIGIA_INGEST_TCP_FEEDS": feed.address,
                "VIGIA_LIVE_SSE_MAX_PER_KEY": "10000",
                "VIGIA_LIVE_SSE_MAX_TOTAL": "10000",
                "VIGIA_LIVE_WEBHOOKS": "false",
                "VIGIA_LIVE_SSE_PING_S": "1",  # a caught-up reader notices within 1 s
            }
            pids: list[int] = []
            catch_ups: list[CatchUp] = []
            with serve(url, Path(tmp), pids=pids, **env) as base:
                idle, _ = _phase(base, args.seconds, 0, 0)
                rss_idle = _rss_mb(pids[0])  # at the baseline's end
                busy: list[float] | None = None
                if args.streams or args.readers:
                    busy, note = _phase(base, args.seconds, args.streams, args.readers)
                if args.catchup:
                    for clients in (1, args.catchup_clients):
                        catch_ups.append(_catch_up_phase(base, pids[0], url, clients))
            feed.stop.set()
        finally:
            if pg_name:
                drop_database(pg_name)
    print(
        f"store {url.split(':')[0]}; {head:,} stored events (seeded in {seeded:.0f} s);"
        f" feed {args.rate} lines/s; {args.streams} streams ({args.streams // 2} with"
        f" positions), {args.readers} backlog readers"
    )
    print(f"baseline GET /leads (no stream): {summary(idle)}")
    if busy is None:
        print("load phase skipped (--streams 0 --readers 0)")
    else:
        print(f"GET /leads under the stream load: {summary(busy)}{note}")
    if catch_ups:
        print(
            "\ncatch-up from Last-Event-ID 0 (server RSS in MiB; peak: VmRSS sampled every"
            f" 200 ms; VmHWM at the end {catch_ups[-1].hwm:.0f} MiB)\n"
            "| phase | events per client | catch-up median / max s"
            " | events/s per client (median) / all clients | server RSS before / peak / after"
            " MiB | GET /leads p50 / p99 / max ms | failed reads |\n"
            "|---|---|---|---|---|---|---|\n"
            f"| baseline, no stream | - | - | - | {rss_idle:.0f} | {_pcts(idle)} | - |"
        )
        for c in catch_ups:
            print(c.row())


if __name__ == "__main__":
    main()
