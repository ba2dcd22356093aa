"""The ingest worker's intake: the queues between its reader threads and its processing
thread, and the readers' loop that fills them.

One reader thread per source puts raw lines on a bounded queue (a full queue slows the
readers instead of dropping lines); a distress beacon's line goes on a queue of its own
and is taken ahead of the traffic queued before it (see vigia.ingest.urgent). Kept apart
from the worker (vigia.service.runtime.worker) because it is only about moving lines
between threads and owns no other state: what is done with the lines, the counts and the
zones stay the worker's.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading

from vigia.ingest.records import RawLine
from vigia.ingest.urgent import is_distress_line
from vigia.service.runtime.feeds import LineSource

# a failed source is the worker's news: logged under the worker's name, as it always was
log = logging.getLogger("vigia.worker")
_BATCH = 2_000


class Intake:
    """Raw lines of the worker's sources, queued for its processing thread."""

    def __init__(self, readers: int, stop: threading.Event, queue_size: int) -> None:
        self._stop = stop
        self._queue: queue.Queue[RawLine] = queue.Queue(maxsize=queue_size)
        # distress beacons' lines skip the queue (see vigia.ingest.urgent)
        self._urgent: queue.Queue[RawLine] = queue.Queue(maxsize=10_000)
        self._lock = threading.Lock()
        self._readers_left = readers
        self.sources_done = threading.Event()
        self.source_errors = 0

    def read(self, source: LineSource) -> None:
        """A reader thread: ``source``'s lines onto the queues until it ends or the
        worker stops."""
        try:
            for line in source.lines():
                if is_distress_line(line.text):
                    try:
                        self._urgent.put_nowait(line)
                        continue
                    except queue.Full:
                        pass  # a flood of beacons: the ordinary queue keeps them
                while not self._stop.is_set():
                    try:
                        self._queue.put(line, timeout=0.5)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    return
        except Exception:
            # a dead feed must not take the service down; it is counted and logged
            log.exception("source %r failed", source)
            with self._lock:
                self.source_errors += 1
        finally:
            with self._lock:
                self._readers_left -= 1
                if self._readers_left == 0:
                    self.sources_done.set()

    def take_batch(self) -> list[RawLine]:
        """The next lines to process: queued distress lines alone if there are any, else
        up to a batch of the ordinary queue (waiting briefly for the first)."""
        urgent: list[RawLine] = []
        with contextlib.suppress(queue.Empty):
            while len(urgent) < _BATCH:
                urgent.append(self._urgent.get_nowait())
        if urgent:
            return urgent  # processed alone, ahead of the traffic queued before them
        try:
            first = self._queue.get(timeout=0.05)
        except queue.Empty:
            return []
        batch = [first]
        while len(batch) < _BATCH:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def take_rest(self) -> list[RawLine]:
        """Every line still queued, distress lines first (the worker is stopping)."""
        rest: list[RawLine] = []
        with contextlib.suppress(queue.Empty):
            while True:
                rest.append(self._urgent.get_nowait())
        with contextlib.suppress(queue.Empty):
            while True:
                rest.append(self._queue.get_nowait())
        return rest

    def drained(self) -> bool:
        """Nothing is queued."""
        return self._queue.empty() and self._urgent.empty()

    def queued(self) -> int:
        """Lines waiting on the ordinary queue."""
        return self._queue.qsize()
