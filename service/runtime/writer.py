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

With ``spool_dir`` every accepted batch is first journaled in a local Spool (see
service/spool.py) and marked written once the database has committed it; a new writer on
the same directory first re-queues whatever a killed predecessor had not written, so no
accepted position or lead is lost to a kill either (the store's idempotence makes the
replay exactly-once in the database).

Two of its concerns are mixins of their own, each read alone: the journal's bookkeeping
(service/runtime/journaling.py) and a batch the store refuses (service/runtime/refusals.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vigia.alerts.identity.history import HistoryOut
from vigia.alerts.lead import Lead
from vigia.ingest.errors import VigiaError
from vigia.ingest.records import Position, VesselInfo
from vigia.service.db.protocol import Repository
from vigia.service.runtime.journaling import Journaling
from vigia.service.runtime.refusals import IsolatesRefusals, Transient
from vigia.service.runtime.spool import Spool

log = logging.getLogger(__name__)
Static = tuple[list[VesselInfo], HistoryOut]  # vessels and their identity history


#: what one buffered position costs beside its text (slots, floats, tuple, deque cell)
_POSITION_OVERHEAD = 400


def position_bytes(p: Position) -> int:
    """An estimate of the memory one buffered position holds, raw sentences included."""
    return _POSITION_OVERHEAD + len(p.source) + sum(len(s) for s in p.raw)


class WriterClosedError(VigiaError):
    """Something was submitted to a writer that has been closed."""

    code = "writer-closed"


class BufferedWriter(Journaling, IsolatesRefusals):
    """Batches positions, vessels and leads into a Repository from a background thread."""

    def __init__(
        self,
        repo: Repository,
        *,
        max_buffered: int = 1_000_000,
        max_buffered_bytes: int = 1 << 30,
        batch_size: int = 5_000,
        linger_s: float = 0.05,
        backoff_initial_s: float = 0.05,
        backoff_max_s: float = 5.0,
        spool_dir: str | Path | None = None,
    ) -> None:
        if max_buffered < 1 or batch_size < 1:
            raise ValueError("max_buffered and batch_size must be positive")
        self._repo = repo
        self._bound = max_buffered
        # positions carry their raw sentences: bound the memory they hold, not only the count
        self._bound_bytes = max_buffered_bytes
        self._pos_bytes = 0
        self._batch = batch_size
        self._linger = linger_s
        self._backoff0 = backoff_initial_s
        self._backoff_max = backoff_max_s
        self._cond = threading.Condition()
        self._positions: deque[Position] = deque()
        self._vessels: dict[int, VesselInfo] = {}
        # identity changes, in the order handed out (never coalesced away: merged)
        self._history = HistoryOut()
        self._leads: dict[str, Lead] = {}
        # taken from the buffers, not yet known to be stored
        self._pos_flight: list[Position] = []
        self._ves_flight: list[VesselInfo] = []
        self._hist_flight = HistoryOut()
        self._lead_flight: list[Lead] = []
        self._counts = dict.fromkeys(
            ("dropped", "written", "written_vessels", "written_leads", "rejected", "retries"), 0
        )
        self._counts.update(recovered=0, spool_errors=0)
        # journal bookkeeping: seqs not yet written in journal order, those written out of
        # order (leads go before positions), and which seqs each buffer and flight carries
        self._outstanding: deque[int] = deque()
        self._done: set[int] = set()
        self._pos_seqs: deque[list[int]] = deque()  # [seq, positions of it still queued]
        self._ves_seqs: list[int] = []
        self._lead_seqs: list[int] = []
        self._pos_flight_seqs: list[int] = []
        self._ves_flight_seqs: list[int] = []
        self._lead_flight_seqs: list[int] = []
        self._last_error: str | None = None
        self._connected = True
        self._closing = False
        self._deadline: float | None = None  # set by close(): stop retrying after it
        self._wake = threading.Event()
        self._spool: Spool | None = None
        self._torn = 0
        if spool_dir is not None:
            self._spool = Spool(spool_dir)
            try:
                self._recover(self._spool)
            except BaseException:
                self._spool.close()
                raise
        self._thread = threading.Thread(target=self._run, name="vigia-writer", daemon=True)
        self._thread.start()

    def _recover(self, spool: Spool) -> None:
        """Re-queue what a previous process journaled but did not write (no bound: it
        was accepted once already)."""
        n = 0
        for kind, seq, items in spool.recover():
            self._outstanding.append(seq)
            n += len(items)
            if kind == "positions":
                self._positions.extend(items)
                self._pos_bytes += sum(map(position_bytes, items))
                self._pos_seqs.append([seq, len(items)])
            elif kind == "vessels":  # with the identity history journaled beside them
                for h in (x for x in items if isinstance(x, HistoryOut)):
                    self._history.merge(h)
                self._vessels.update((v.mmsi, v) for v in items if isinstance(v, VesselInfo))
                self._ves_seqs.append(seq)
            else:
                self._leads.update((lead.id, lead) for lead in items)
                self._lead_seqs.append(seq)
        self._counts["recovered"] = n
        self._torn = spool.torn + spool.unreadable
        if n or self._torn:
            log.warning(
                "spool %s: re-queued %d records, skipped %d torn or unreadable",
                spool.path, n, self._torn,
            )  # fmt: skip

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
            size = 0
            for i in range(accepted):
                b = position_bytes(positions[i])
                if self._pos_bytes + size + b > self._bound_bytes:
                    accepted = i
                    break
                size += b
            self._pos_bytes += size
            taken = positions[:accepted]
            seq = self._journal("positions", taken)
            if seq is not None:
                self._pos_seqs.append([seq, accepted])
            self._positions.extend(taken)
            self._counts["dropped"] += len(positions) - accepted
            self._cond.notify_all()
        if accepted < len(positions):
            lost = len(positions) - accepted
            log.warning(
                "writer buffer full (%d positions, %d bytes): dropped %d",
                self._bound, self._bound_bytes, lost,
            )  # fmt: skip
        return accepted

    def _room(self) -> int:
        return self._bound - len(self._positions) - len(self._pos_flight)

    def submit_vessels(
        self, vessels: Sequence[VesselInfo], history: HistoryOut | None = None
    ) -> None:
        """Queue vessels' static data (the newest per MMSI is kept) and the identity
        history that came with it (issue 34): journaled in one record and stored in one
        transaction with them, so a kill cannot keep the one without the other."""
        with self._cond:
            self._check_open()
            seq = self._journal("vessels", [*vessels, history] if history else vessels)
            if seq is not None:
                self._ves_seqs.append(seq)
            self._vessels.update((v.mmsi, v) for v in vessels)
            if history:
                self._history.merge(history)
            self._cond.notify_all()

    def submit_leads(self, leads: Sequence[Lead]) -> None:
        """Queue leads (the newest state per id is kept; never dropped)."""
        with self._cond:
            self._check_open()
            seq = self._journal("leads", leads)
            if seq is not None:
                self._lead_seqs.append(seq)
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
                "buffered_bytes": self._pos_bytes,
                "bound_bytes": self._bound_bytes,
                **self._counts,
                "spool_torn": self._torn,
                "last_error": self._last_error,
                "connected": self._connected,
            }

    def _pending(self) -> bool:
        return bool(
            self._positions
            or self._vessels
            or self._history
            or self._leads
            or self._pos_flight
            or self._ves_flight
            or self._hist_flight
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
        if self._spool is not None:
            # what is left stays journaled for the next start
            self._spool.close()
        if left:
            log.error("writer closed with data still buffered: %s", self.stats())
        return not left

    # the background thread
    def _take(self) -> bool:
        """Move the next work into flight; True if there is any. Holds the lock."""
        if not self._lead_flight and self._leads:
            self._lead_flight = list(self._leads.values())
            self._leads = {}
            self._lead_flight_seqs, self._lead_seqs = self._lead_seqs, []
        if not (self._ves_flight or self._hist_flight) and (self._vessels or self._history):
            self._ves_flight = list(self._vessels.values())
            self._vessels = {}
            self._hist_flight, self._history = self._history, HistoryOut()
            self._ves_flight_seqs, self._ves_seqs = self._ves_seqs, []
        if not self._pos_flight and self._positions:
            n = min(self._batch, len(self._positions))
            self._pos_flight = [self._positions.popleft() for _ in range(n)]
            # a journal record is done when its last position is written; positions are
            # written in order by this one thread, so its earlier ones are then too
            seqs: list[int] = []
            while n and self._pos_seqs:
                head = self._pos_seqs[0]
                used = min(n, head[1])
                head[1] -= used
                n -= used
                if head[1] == 0:
                    seqs.append(head[0])
                    self._pos_seqs.popleft()
            self._pos_flight_seqs = seqs
        return bool(self._lead_flight or self._ves_flight or self._hist_flight or self._pos_flight)

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
                history = self._hist_flight
            try:
                self._write(leads, (vessels, history), positions)
            except Transient as exc:
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

    def _write(self, leads: list[Lead], static: Static, positions: list[Position]) -> None:
        # leads first: they are what an inspector acts on
        if leads:
            self._isolate(leads, self._repo.upsert_leads)
            with self._cond:
                self._counts["written_leads"] += len(leads)
                self._lead_flight = []
                mark = self._finish(self._lead_flight_seqs)
                self._lead_flight_seqs = []
            self._mark(mark)
        vessels, history = static
        if vessels or history:
            self._write_static(vessels, history)
            with self._cond:
                self._counts["written_vessels"] += len(vessels)
                self._ves_flight, self._hist_flight = [], HistoryOut()
                mark = self._finish(self._ves_flight_seqs)
                self._ves_flight_seqs = []
            self._mark(mark)
        if positions:
            written = self._isolate(positions, self._repo.add_positions)
            with self._cond:
                self._counts["written"] += written
                self._pos_bytes -= sum(map(position_bytes, self._pos_flight))
                self._pos_flight = []
                mark = self._finish(self._pos_flight_seqs)
                self._pos_flight_seqs = []
            self._mark(mark)
