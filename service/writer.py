"""The buffered, retrying writer between the ingest worker and the store.

The worker hands it positions, vessels and leads; a background thread writes them in
batches. When the database cannot be reached the writer keeps what it accepted, retries
with exponential backoff, and writes everything once the database answers again.

Bounds: positions are buffered up to ``max_buffered``; beyond that a submit accepts only
what fits and counts the rest as ``dropped`` (what was accepted is never discarded).
Vessels are coalesced per MMSI and leads per lead id (the newest state of each wins), so
their buffers are bounded by the number of distinct vessels and leads, and a lead is
never dropped. Every store write is idempotent, so a batch retried after a lost commit
acknowledgement is stored once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from alerts.lead import Lead
from ingest.errors import VigiaError
from ingest.records import Position, VesselInfo
from service.errors import StoreUnavailableError
from service.repository import Repository

log = logging.getLogger(__name__)
T = TypeVar("T")


class WriterClosedError(VigiaError):
    """Something was submitted to a writer that has been closed."""

    code = "writer-closed"


class _Transient(Exception):
    """The database is unreachable: keep the batch and retry later."""


class BufferedWriter:
    """Batches positions, vessels and leads into a Repository from a background thread."""

    def __init__(
        self,
        repo: Repository,
        *,
        max_buffered: int = 1_000_000,
        batch_size: int = 5_000,
        linger_s: float = 0.05,
        backoff_initial_s: float = 0.05,
        backoff_max_s: float = 5.0,
    ) -> None:
        if max_buffered < 1 or batch_size < 1:
            raise ValueError("max_buffered and batch_size must be positive")
        self._repo = repo
        self._bound = max_buffered
        self._batch = batch_size
        self._linger = linger_s
        self._backoff0 = backoff_initial_s
        self._backoff_max = backoff_max_s
        self._cond = threading.Condition()
        self._positions: deque[Position] = deque()
        self._vessels: dict[int, VesselInfo] = {}
        self._leads: dict[str, Lead] = {}
        # taken from the buffers, not yet known to be stored
        self._pos_flight: list[Position] = []
        self._ves_flight: list[VesselInfo] = []
        self._lead_flight: list[Lead] = []
        self._counts = dict.fromkeys(
            ("dropped", "written", "written_vessels", "written_leads", "rejected", "retries"), 0
        )
        self._last_error: str | None = None
        self._connected = True
        self._closing = False
        self._deadline: float | None = None  # set by close(): stop retrying after it
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="vigia-writer", daemon=True)
        self._thread.start()

    # submission (called by the worker)
    def submit_positions(self, positions: Sequence[Position], *, wait_s: float = 0.0) -> int:
        """Queue positions, waiting up to ``wait_s`` seconds for room; returns how many
        were accepted (the rest count as dropped)."""
        end = time.monotonic() + wait_s
        with self._cond:
            self._check_open()
            while self._room() < len(positions) and time.monotonic() < end:
                self._cond.wait(min(0.1, end - time.monotonic()))
                self._check_open()
            room = self._room()
            accepted = max(0, min(room, len(positions)))
            self._positions.extend(positions[:accepted])
            self._counts["dropped"] += len(positions) - accepted
            self._cond.notify_all()
        if accepted < len(positions):
            lost = len(positions) - accepted
            log.warning("writer buffer full (%d): dropped %d", self._bound, lost)
        return accepted

    def _room(self) -> int:
        return self._bound - len(self._positions) - len(self._pos_flight)

    def submit_vessels(self, vessels: Sequence[VesselInfo]) -> None:
        """Queue vessels' static data (the newest per MMSI is kept)."""
        with self._cond:
            self._check_open()
            for v in vessels:
                self._vessels[v.mmsi] = v
            self._cond.notify_all()

    def submit_leads(self, leads: Sequence[Lead]) -> None:
        """Queue leads (the newest state per id is kept; never dropped)."""
        with self._cond:
            self._check_open()
            for lead in leads:
                self._leads[lead.id] = lead
            self._cond.notify_all()

    def _check_open(self) -> None:
        if self._closing:
            raise WriterClosedError("the writer is closed")

    # observation and shutdown
    def stats(self) -> dict[str, Any]:
        """Buffered, dropped (beyond the bound only), written, retries, last_error, ..."""
        with self._cond:
            return {
                "buffered": len(self._positions) + len(self._pos_flight),
                "buffered_vessels": len(self._vessels) + len(self._ves_flight),
                "buffered_leads": len(self._leads) + len(self._lead_flight),
                "bound": self._bound,
                **self._counts,
                "last_error": self._last_error,
                "connected": self._connected,
            }

    def _pending(self) -> bool:
        return bool(
            self._positions
            or self._vessels
            or self._leads
            or self._pos_flight
            or self._ves_flight
            or self._lead_flight
        )

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until nothing is buffered; False if ``timeout`` seconds passed first."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._cond.notify_all()
            while self._pending():
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                if not self._thread.is_alive():
                    return False
                self._cond.wait(0.1 if left is None else min(left, 0.1))
            return True

    def close(self, timeout: float | None = 30.0) -> bool:
        """Stop accepting, write what is buffered (retrying up to ``timeout`` seconds) and
        stop the thread; False if something was still buffered at the end."""
        with self._cond:
            self._closing = True
            self._deadline = None if timeout is None else time.monotonic() + timeout
            self._cond.notify_all()
        self._wake.set()
        self._thread.join(None if timeout is None else timeout + 5.0)
        with self._cond:
            left = self._pending()
        if left:
            log.error("writer closed with data still buffered: %s", self.stats())
        return not left

    # the background thread
    def _take(self) -> bool:
        """Move the next work into flight; True if there is any. Holds the lock."""
        if not self._lead_flight and self._leads:
            self._lead_flight = list(self._leads.values())
            self._leads = {}
        if not self._ves_flight and self._vessels:
            self._ves_flight = list(self._vessels.values())
            self._vessels = {}
        if not self._pos_flight and self._positions:
            n = min(self._batch, len(self._positions))
            self._pos_flight = [self._positions.popleft() for _ in range(n)]
        return bool(self._lead_flight or self._ves_flight or self._pos_flight)

    def _run(self) -> None:
        backoff = self._backoff0
        while True:
            with self._cond:
                while not self._pending() and not self._closing:
                    self._cond.wait(1.0)
                if not self._closing and len(self._positions) < self._batch:
                    # let a batch fill up a little instead of writing tiny ones
                    self._cond.wait(self._linger)
                if not self._take():
                    if self._closing:
                        return
                    continue
                leads, vessels, positions = self._lead_flight, self._ves_flight, self._pos_flight
            try:
                self._write(leads, vessels, positions)
            except _Transient as exc:
                with self._cond:
                    self._counts["retries"] += 1
                    self._last_error = str(exc)
                    self._connected = False
                    expired = self._deadline is not None and time.monotonic() > self._deadline
                if expired:
                    return
                self._wake.wait(backoff)
                self._wake.clear()
                backoff = min(backoff * 2, self._backoff_max)
                continue
            backoff = self._backoff0
            with self._cond:
                self._connected = True
                self._cond.notify_all()

    def _write(
        self, leads: list[Lead], vessels: list[VesselInfo], positions: list[Position]
    ) -> None:
        # leads first: they are what an inspector acts on
        if leads:
            self._isolate(leads, self._repo.upsert_leads)
            with self._cond:
                self._counts["written_leads"] += len(leads)
                self._lead_flight = []
        if vessels:
            self._isolate(vessels, self._repo.upsert_vessels)
            with self._cond:
                self._counts["written_vessels"] += len(vessels)
                self._ves_flight = []
        if positions:
            written = self._isolate(positions, self._repo.add_positions)
            with self._cond:
                self._counts["written"] += written
                self._pos_flight = []

    def _isolate(self, items: list[T], write: Callable[[list[T]], Any]) -> int:
        """Write ``items``; on an error that is not the database being away, halve the
        batch until the offending item is found and reject only it."""
        try:
            result = write(items)
        except StoreUnavailableError as exc:
            raise _Transient(str(exc)) from exc
        except Exception as exc:
            if not self._repo.ping():
                raise _Transient(str(exc)) from exc
            if len(items) == 1:
                log.error("store refused %r: %s", items[0], exc)
                with self._cond:
                    self._counts["rejected"] += 1
                    self._last_error = f"rejected: {exc}"
                return 0
            mid = len(items) // 2
            return self._isolate(items[:mid], write) + self._isolate(items[mid:], write)
        return int(result) if isinstance(result, int) else len(items)
