"""The writer's bookkeeping of its journal: which of the spool's records are in the store.

Every batch the BufferedWriter (vigia.service.runtime.writer) accepts is appended to its
Spool (service/runtime/spool.py) under a sequence number; once the store has committed
the batch that number is done, and the spool's mark moves over the records done in
journal order. Leads are written before positions, so numbers are done out of order:
one done early waits here until those before it are done too. A mixin of the writer,
kept apart so that its buffers and its thread read in one sitting; the recovery of a
killed predecessor's journal stays in the writer, as it refills the writer's buffers.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from typing import Any

from vigia.service.runtime.spool import Spool, SpoolError

# the writer's messages: logged under the writer's name, as before they moved here
log = logging.getLogger("vigia.service.runtime.writer")


class Journaling:
    """Mixed into BufferedWriter: the spool, the sequence numbers not yet done, and the
    writer's counts and last error; each method says whether it runs under its lock."""

    _spool: Spool | None
    _outstanding: deque[int]
    _done: set[int]
    _counts: dict[str, int]
    _last_error: str | None

    def _journal(self, kind: str, items: Sequence[Any]) -> int | None:
        """Append to the spool (under the lock, so seq order is buffer order)."""
        if self._spool is None or not items:
            return None
        try:
            seq = self._spool.append(kind, items)
        except (OSError, SpoolError) as exc:
            # a full or broken disk must not stop ingest: keep the data in memory only
            self._counts["spool_errors"] += 1
            self._last_error = f"spool: {exc}"
            log.error("could not journal %d %s: %s", len(items), kind, exc)
            return None
        self._outstanding.append(seq)
        return seq

    def _finish(self, seqs: list[int]) -> int | None:
        """Note ``seqs`` as written; the new journal watermark if it moved. Holds the lock."""
        if not seqs:
            return None
        self._done.update(seqs)
        mark = None
        while self._outstanding and self._outstanding[0] in self._done:
            mark = self._outstanding.popleft()
            self._done.discard(mark)
        return mark

    def _mark(self, mark: int | None) -> None:
        # outside the writer's lock: only this thread marks, so marks only grow
        if mark is None or self._spool is None:
            return
        try:
            self._spool.mark_written(mark)
        except OSError as exc:
            # the worst outcome is a larger replay after a restart
            log.warning("could not mark the spool written to %d: %s", mark, exc)
