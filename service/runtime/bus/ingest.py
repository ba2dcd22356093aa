"""An ingest process in broker mode: sources -> Ingestor -> JetStream, no store, no rules.

Reader threads feed a bounded queue (a full queue slows the readers, as in the
single-process worker); the event loop takes batches of lines, decodes them and
publishes each batch before taking the next, so the broker's pace is the feed's pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Sequence
from typing import Any

from vigia.ingest.batch import BatchIngestor
from vigia.ingest.records import RawLine, Record
from vigia.service.runtime.bus.publisher import BusPublisher, connect, ensure_streams
from vigia.service.runtime.feeds import LineSource
from vigia.service.settings import BusSettings

log = logging.getLogger("vigia.bus.ingest")


class BusIngest:
    """Runs the sources and publishes what they decode; ``stats`` feeds /metrics."""

    def __init__(
        self,
        settings: BusSettings,
        sources: Sequence[LineSource],
        name: str,
        *,
        queue_size: int = 50_000,
    ) -> None:
        self._settings = settings
        self._sources = list(sources)
        self._name = name
        self._queue: queue.Queue[RawLine | None] = queue.Queue(maxsize=queue_size)
        self.stop_event = threading.Event()
        self.done = threading.Event()
        self._ingestor = BatchIngestor()
        self._publisher: BusPublisher | None = None
        self._connected = False
        self._lines = 0
        self._source_errors = 0
        self._last_publish_wall: float | None = None

    def stats(self) -> dict[str, Any]:
        """Counters and gauges of this process."""
        counts = self._ingestor.counters.as_dict()
        out: dict[str, Any] = {f"ingest_{k}": v for k, v in counts.items()}
        if self._publisher is not None:
            out.update(self._publisher.counters)
        out["lines_read"] = self._lines
        out["source_errors"] = self._source_errors
        out["queue_depth"] = self._queue.qsize()
        out["bus_connected"] = int(self._connected)
        out["sources_done"] = int(self.done.is_set())
        return out

    def healthy(self) -> tuple[bool, dict[str, Any]]:
        """Healthy while connected to the broker (or finished)."""
        ok = self._connected or self.done.is_set()
        return ok, {"kind": "ingest", "name": self._name, "bus_connected": self._connected}

    def _read(self, source: LineSource, left: list[int], lock: threading.Lock) -> None:
        try:
            for line in source.lines():
                while not self.stop_event.is_set():
                    try:
                        self._queue.put(line, timeout=0.5)
                        break
                    except queue.Full:
                        continue
                if self.stop_event.is_set():
                    return
        except Exception:
            log.exception("source %r failed", source)
            self._source_errors += 1
        finally:
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    # the end marker: everything before it has been queued
                    with contextlib.suppress(queue.Full):
                        self._queue.put(None, timeout=5)

    def _take(self, n: int) -> tuple[list[RawLine], bool]:
        """Up to ``n`` lines (waiting briefly for the first) and whether input ended."""
        out: list[RawLine] = []
        try:
            first = self._queue.get(timeout=0.2)
        except queue.Empty:
            return out, False
        if first is None:
            return out, True
        out.append(first)
        while len(out) < n:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                return out, True
            out.append(item)
        return out, False

    async def run(self) -> None:
        """Publish until the sources end (files) or ``stop_event`` is set (live feeds)."""
        nc = await connect(
            self._settings,
            self._name,
            disconnected_cb=self._on_disconnect,
            reconnected_cb=self._on_reconnect,
        )
        self._connected = True
        js = nc.jetstream()
        await ensure_streams(js, self._settings)
        self._publisher = pub = BusPublisher(js, self._settings, self._name)
        left, lock = [len(self._sources)], threading.Lock()
        for i, src in enumerate(self._sources):
            threading.Thread(
                target=self._read, args=(src, left, lock), name=f"vigia-src-{i}", daemon=True
            ).start()
        ended = not self._sources
        try:
            while not ended and not self.stop_event.is_set():
                lines, ended = await asyncio.to_thread(self._take, self._settings.batch)
                self._lines += len(lines)
                # the whole batch framed and decoded at once (vigia.ingest.batch)
                records: list[Record] = self._ingestor.feed_batch(lines) if lines else []
                if ended:
                    records.extend(self._ingestor.flush())
                if records:
                    await pub.publish(records, time.time())
            self.done.set()
        finally:
            await nc.drain()
            self._connected = False

    async def _on_disconnect(self) -> None:
        self._connected = False

    async def _on_reconnect(self) -> None:
        self._connected = True
