"""`vigia serve` keeps the hot window: once a day it moves old days to the archive."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from sqlalchemy.engine import Engine

from vigia.service.db.archive import Archiver
from vigia.service.db.archive_format import DAY_S

log = logging.getLogger(__name__)

# a while after midnight UTC: the day just ended is not the one archived (a window of
# at least one day keeps it), but late reports of the night have been written by then
AFTER_MIDNIGHT_S = 15 * 60


def next_run(now: float) -> float:
    """When the next daily pass starts: 00:15 UTC after ``now``."""
    at = (now // DAY_S) * DAY_S + AFTER_MIDNIGHT_S
    return at if at > now else at + DAY_S


class DailyArchiver:
    """A thread that archives every day older than ``hot_days`` at 00:15 UTC."""

    def __init__(self, engine: Engine, root: Path, hot_days: float) -> None:
        self._archiver = Archiver(engine, root)
        self._hot_days = hot_days
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="vigia-archive", daemon=True)

    def start(self) -> None:
        """Start the thread."""
        self._thread.start()

    def run_once(self) -> int:
        """One pass now; returns the days moved (a failure is logged, and retried the
        next day: every day it did not move stays in the store)."""
        try:
            reports = self._archiver.run(self._hot_days)
        except Exception:
            log.exception("archive pass failed; the store keeps those days")
            return 0
        if reports:
            moved = sum(r.stored for r in reports)
            log.info("archived %d days, %d positions", len(reports), moved)
        return len(reports)

    def _loop(self) -> None:
        while not self._stop.wait(max(0.0, next_run(time.time()) - time.time())):
            self.run_once()

    def stop(self) -> None:
        """Stop the thread (a pass under way finishes its day first)."""
        self._stop.set()
        self._thread.join(timeout=60)
