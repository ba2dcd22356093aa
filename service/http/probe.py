"""/healthz and /metrics for processes that serve no API (bus ingest, evaluation
workers, ``serve --worker-only``), on their own port, from a small threaded server.

Each process kind hands in two callables: ``health()`` -> (ok, details) and
``stats()`` -> {name: number}. Numbers become ``vigia_bus_<name>`` with the process name
as the ``worker`` label, so a scrape of several workers adds up per worker.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from vigia.service.http.metrics import CONTENT_TYPE

if TYPE_CHECKING:
    from vigia.service.http.app import Runtime

Health = Callable[[], tuple[bool, dict[str, Any]]]
Stats = Callable[[], dict[str, Any]]

#: stats that are gauges (a level now); every other number is a cumulative counter
GAUGES = frozenset(
    {
        "partitions_held", "members", "lag_messages", "bus_connected", "store_connected",
        "vessels_tracked", "queue_depth", "sources_done", "state_bytes", "e2e_latency_p50_s",
        "e2e_latency_p95_s", "e2e_latency_p99_s",
    }
)  # fmt: skip


class _StatsCollector(Collector):
    def __init__(self, name: str, stats: Stats) -> None:
        self._name = name
        self._stats = stats

    def collect(self) -> Iterator[Metric]:
        for key, value in sorted(self._stats().items()):
            if not isinstance(value, int | float) or isinstance(value, bool):
                continue
            # Prometheus names spell the base unit out: a stat in ``_s`` is ``_seconds``
            unit = "_seconds" if key.endswith("_s") else ""
            metric = f"vigia_bus_{key.removesuffix('_s') if unit else key}{unit}"
            family: GaugeMetricFamily | CounterMetricFamily
            if key in GAUGES:
                family = GaugeMetricFamily(metric, key.replace("_", " "), labels=["worker"])
            else:
                family = CounterMetricFamily(metric, key.replace("_", " "), labels=["worker"])
            family.add_metric([self._name], float(value))
            yield family


class ProbeServer:
    """Serves /healthz (200 or 503, JSON) and /metrics on ``host:port`` (0: any free)."""

    def __init__(
        self,
        host: str,
        port: int,
        name: str,
        health: Health,
        stats: Stats,
        *,
        extra: Callable[[], bytes] | None = None,
    ) -> None:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_StatsCollector(name, stats))

        def render() -> bytes:
            body = bytes(generate_latest(registry))
            return body + (extra() if extra is not None else b"")

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if path == "/metrics":
                    self._send(200, render(), CONTENT_TYPE)
                elif path == "/healthz":
                    ok, details = health()
                    body = json.dumps({"status": "ok" if ok else "unavailable", **details})
                    self._send(200 if ok else 503, body.encode(), "application/json")
                else:
                    self._send(404, b'{"status": 404}', "application/json")

            def _send(self, status: int, body: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return  # scrapes every few seconds would drown the log

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="vigia-probe", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> ProbeServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def worker_probe(runtime: Runtime, host: str, port: int) -> ProbeServer:
    """The probe of ``serve --worker-only``: the API's ingest metrics, and a health check
    that fails when the worker has stopped or the store is away."""
    from vigia.service.http.metrics import ServiceMetrics

    worker = runtime.worker
    assert worker is not None
    metrics = ServiceMetrics()
    metrics.attach(worker.snapshot)

    def health() -> tuple[bool, dict[str, Any]]:
        snap = worker.snapshot()
        ok = snap.running and snap.store_connected
        return ok, {
            "kind": "worker",
            "worker_running": snap.running,
            "store_connected": snap.store_connected,
            "positions_stored": snap.positions_stored,
        }

    return ProbeServer(host, port, "worker", health, dict, extra=metrics.render).start()
