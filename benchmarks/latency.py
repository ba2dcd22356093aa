"""Live delivery latency: from a rule-breaking sentence leaving a TCP feed to the lead
arriving on an SSE client and at a webhook receiver, with ``vigia serve`` on PostGIS.

Usage: python -m benchmarks.latency [--rate 6000] [--seconds 40] [--every 0.5] [--quick]

Creates (and drops) a database on the machine's PostgreSQL (``VIGIA_TEST_DATABASE_URL``'s
server) and runs ``vigia serve`` as a real process (API, worker and webhook dispatcher
in one), reading one TCP feed on 127.0.0.1. The feed replays the 100,000-message real
corpus (``shared/data/ais``) paced at ``--rate`` lines/s and, every ``--every`` seconds,
slips in a rule breaker at a known instant, alternately:

- a SAR-DISTRESS beacon (a new AIS-SART MMSI each time; it opens on its first fix);
- a vessel entering the 500 m ring of the FPSO Cidade de Anchieta (SEC-PLATFORM): a fix
  a kilometre out, the breaking fix inside, and the next fix that confirms it (Vigia's
  glitch look-ahead), all sent together, timed from the breaking one.

A viewer-keyed SSE client on ``/leads/stream`` and a webhook receiver (signatures
verified with ``standardwebhooks``) note when each lead arrives. Two phases in the same
run: the baseline with no background traffic, then the same breakers under ``--rate``.
Prints p50/p99 (ms) per channel, the SAR-DISTRESS p99, how many arrived, and the
ingest rate the service sustained. ``--quick`` (a smoke run): 4 s of breakers per phase
under 500 lines/s of the repository's real sample, shorter settling.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

import httpx  # noqa: E402
import numpy as np  # noqa: E402
from httpx_sse import connect_sse  # noqa: E402
from standardwebhooks import Webhook  # noqa: E402

from benchmarks._data import corpus  # noqa: E402
from benchmarks.api import drop_database, temp_database  # noqa: E402
from scripts import aisgen  # noqa: E402

KEY = "latency-bench-admin-key-0123456789abcdefghijkl"
FPSO = (-40.0566667, -21.3383334)  # FPSO Cidade de Anchieta, a bundled platform zone
SART_AT = (-43.10, -23.05)  # off Rio, in open water


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Feed:
    """One TCP feed: the corpus at ``rate`` lines/s plus breakers, timed as they leave."""

    def __init__(self, traffic: Path) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.server.getsockname()[1]}"
        self.rate = 0
        self.sent_bg = 0
        self.breakers: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.sent_at: dict[str, float] = {}
        self.stop = threading.Event()
        self.lines = traffic.read_bytes().splitlines(keepends=True)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        conn, _ = self.server.accept()
        i, t, carry = 0, time.perf_counter(), 0.0
        with conn:
            while not self.stop.is_set():
                carry += self.rate / 100
                n, carry = int(carry), carry - int(carry)
                chunk = [self.lines[(i + k) % len(self.lines)] for k in range(n)]
                i += n
                urgent: list[tuple[str, bytes]] = []
                while not self.breakers.empty():
                    urgent.append(self.breakers.get_nowait())
                try:
                    if urgent:  # breakers first in the tick, then the tick's traffic
                        conn.sendall(b"".join(data for _, data in urgent))
                        now = time.time()
                        for key, _ in urgent:
                            self.sent_at[key] = now
                    if chunk:
                        conn.sendall(b"".join(chunk))
                        self.sent_bg += n
                except OSError:
                    return
                t += 0.01
                time.sleep(max(0.0, t - time.perf_counter()))

    def close(self) -> None:
        self.stop.set()
        self.server.close()


class Receiver:
    """A webhook receiver: the arrival time of each lead, by (rule, mmsi)."""

    def __init__(self) -> None:
        self.secret = ""
        self.got: dict[str, float] = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                now = time.time()
                event = Webhook(outer.secret).verify(body, dict(self.headers.items()))
                if event["type"] == "lead.opened":
                    d = event["data"]
                    outer.got.setdefault(f"{d['rule']}|{d['mmsi']}", now)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def sse_listener(base: str, got: dict[str, float], ready: threading.Event) -> None:
    with (
        httpx.Client(timeout=httpx.Timeout(10.0, read=None)) as client,
        connect_sse(client, "GET", f"{base}/leads/stream", headers={"X-API-Key": KEY}) as src,
    ):
        ready.set()
        try:
            for sse in src.iter_sse():
                if sse.event == "lead.opened":
                    now = time.time()
                    d = json.loads(sse.data)
                    got.setdefault(f"{d['rule']}|{d['mmsi']}", now)
        except httpx.RemoteProtocolError:
            return  # the service stopping at the end of the run cuts the stream


def breaker_lines(k: int) -> tuple[str, bytes]:
    """The ``k``-th breaker: its key and its sentences."""
    now = time.time()
    if k % 2 == 0:
        mmsi = 970_100_000 + k
        fix = aisgen.Fix(now, SART_AT[0] + k * 1e-4, SART_AT[1], 0.0, 0.0, nav_status=14)
        return f"SAR-DISTRESS|{mmsi}", aisgen.fast_type1(
            mmsi, fix.t, fix.lon, fix.lat, 0.0, 0.0, 14
        ).encode() + b"\n"
    mmsi = 710_900_000 + k
    out_lon, out_lat = aisgen.fwd(*FPSO, 90.0, 1_100.0)
    in_lon, in_lat = aisgen.fwd(*FPSO, 90.0, 150.0)
    in2_lon, in2_lat = aisgen.fwd(*FPSO, 90.0, 140.0)
    lines = [
        aisgen.fast_type1(mmsi, now - 61, out_lon, out_lat, 30.0, 270.0),
        aisgen.fast_type1(mmsi, now - 1, in_lon, in_lat, 30.0, 270.0),
        aisgen.fast_type1(mmsi, now, in2_lon, in2_lat, 30.0, 270.0),
    ]
    return f"SEC-PLATFORM|{mmsi}", "".join(x + "\n" for x in lines).encode()


def percentiles(delays: list[float]) -> str:
    if not delays:
        return "none arrived"
    a = np.array(delays) * 1000.0
    return f"p50 {np.percentile(a, 50):7.1f} ms  p99 {np.percentile(a, 99):7.1f} ms  (n={len(a)})"


def run_phase(feed: Feed, rate: int, seconds: float, every: float, start_k: int,
              settle: float) -> int:  # fmt: skip
    feed.rate = rate
    time.sleep(settle)  # let the service settle at this rate
    k = start_k
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        feed.breakers.put(breaker_lines(k))
        k += 1
        time.sleep(every)
    time.sleep(2.5 * settle)  # let the last ones arrive
    return k


def report(title: str, keys: list[str], feed: Feed, got: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}")
    for channel, seen in got.items():
        delays = [seen[k] - feed.sent_at[k] for k in keys if k in seen and k in feed.sent_at]
        sar = [seen[k] - feed.sent_at[k] for k in keys
               if k.startswith("SAR") and k in seen and k in feed.sent_at]  # fmt: skip
        print(f"  {channel:8} all: {percentiles(delays)}   missing {len(keys) - len(delays)}")
        if sar:
            print(
                f"  {channel:8} SAR-DISTRESS p99 {np.percentile(np.array(sar) * 1000, 99):.1f} ms"
            )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rate", type=int, default=6_000, help="background lines/s")
    p.add_argument("--seconds", type=float, default=40.0, help="seconds of breakers per phase")
    p.add_argument("--every", type=float, default=0.5, help="seconds between breakers")
    p.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    args = p.parse_args()
    settle = 2.0
    if args.quick:
        args.rate, args.seconds, settle = 500, 4.0, 1.0
    feed, rx = Feed(corpus(args.quick)), Receiver()
    url, name = temp_database()
    port = _free_port()
    work = Path(tempfile.mkdtemp(prefix="vigia-latency-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
    env |= {
        "DATABASE_URL": url,
        "VIGIA_AUTH_BOOTSTRAP_ADMIN_KEY": KEY,
        "VIGIA_INGEST_TCP_FEEDS": feed.address,
        "VIGIA_INGEST_SPOOL_DIR": str(work / "spool"),
    }
    vigia = [sys.executable, "-m", "vigia.service.cli"]
    proc = subprocess.Popen(
        [*vigia, "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=work, env=env,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # up to 2 min, as the tests allow: a loaded machine imports slowly
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        wanted = {"url": rx.url, "allow_private": True, "events": ["lead.opened"]}
        hook = httpx.post(f"{base}/webhooks", headers={"X-API-Key": KEY}, json=wanted)
        rx.secret = hook.json()["secret"]
        sse: dict[str, float] = {}
        ready = threading.Event()
        threading.Thread(target=sse_listener, args=(base, sse, ready), daemon=True).start()
        ready.wait(30)
        got = {"SSE": sse, "webhook": rx.got}
        k = run_phase(feed, 0, args.seconds, args.every, 0, settle)
        report("baseline: breakers only, no background traffic", list(feed.sent_at), feed, got)
        before = set(feed.sent_at)
        lines0, t0 = _lines(base), time.monotonic()
        bg0 = feed.sent_bg
        run_phase(feed, args.rate, args.seconds, args.every, k, settle)
        lines1, t1 = _lines(base), time.monotonic()
        sent = (feed.sent_bg - bg0) / (t1 - t0)
        report(f"under load: {args.rate:,} lines/s of real AIS on the same feed",
               [x for x in feed.sent_at if x not in before], feed, got)  # fmt: skip
        print(f"\n  feed sent {sent:,.0f} lines/s; the service processed "
              f"{(lines1 - lines0) / (t1 - t0):,.0f} lines/s over the phase")  # fmt: skip
    finally:
        feed.close()
        proc.terminate()
        proc.wait(60)
        drop_database(name)
    return 0


def _lines(base: str) -> int:
    r = httpx.get(f"{base}/ingest/counters", headers={"X-API-Key": KEY}, timeout=10)
    return int(r.json()["counters"].get("lines", 0))


if __name__ == "__main__":
    raise SystemExit(main())
