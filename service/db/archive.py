"""Moving old positions from the store to the GeoParquet archive, one UTC day at a time.

For each day wholly older than the cut-off, oldest first:

1. read the day's stored positions in one statement (one snapshot), in MMSI, time order;
2. leave out those a file of that day already holds (a run killed after its rename but
   before its delete left them in both), and write the rest as a new file of the day,
   whose row count is checked before it is renamed into place (``archive_format``);
3. drop the day from the store only if it still holds exactly the rows read in 1.:
   positions are only ever added, so the same count is the same rows. A day that
   gained a late position is read again.

A kill at any point leaves either the day in the store only (before the rename), in
both (between the rename and the delete: a rerun writes nothing new and deletes), or in
the archive only. Readers take a position found in both once (``archive_read``). Leads,
the procedure and ballast audits live in other tables: nothing here touches them.

A bad entry in the folder (``archive_files``) never stops a run: the run opens only the
files of the day it writes, moves a bad one aside (that day's stored rows then go to a
new file, written under a temporary name and renamed, as always) and lists it in
``Archiver.bad``. A file of that day the system cannot read (an I/O error) keeps the day
in the store until a later run can.
"""

from __future__ import annotations

import fcntl
import logging
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from vigia.ingest.errors import VigiaError
from vigia.service.db.archive_files import (
    UNREADABLE,
    ArchiveFolder,
    ArchiveGaps,
    BadEntry,
    scan,
)
from vigia.service.db.archive_format import DAY_S, day_name, day_of, write_part
from vigia.service.db.archive_ledger import record_day
from vigia.service.db.archive_source import DayRead

log = logging.getLogger(__name__)

_NEXT_DAY = text("SELECT min(t) FROM positions WHERE t >= :lo AND t < :hi")
SQLITE_BATCH = 50_000  # rows per delete transaction: the live writer waits at most one
ATTEMPTS = 5


class ArchiveError(VigiaError):
    """The archive could not take a day (it stays in the store)."""

    code = "archive"


class _Changed(Exception):
    """The day's stored rows are not the ones archived (rolls the drop back)."""


class _Unreadable(Exception):
    """A file of the day could not be read (the day waits for a later run)."""


@dataclass(frozen=True, slots=True)
class DayReport:
    """What one day's move did."""

    day: str
    stored: int  # positions the store held for the day
    written: int  # of those, written to a new file (the rest were archived already)
    seconds: float


def partition_name(day: int) -> str:
    """The PostgreSQL partition of one UTC day."""
    return "positions_d" + day_name(day).replace("-", "")


class Archiver:
    """Moves whole UTC days of positions from a store's engine into ``root``."""

    def __init__(self, engine: Engine, root: Path) -> None:
        self._engine = engine
        self._root = root
        self._pg = engine.dialect.name == "postgresql"
        #: the bad entries the last run met (moved aside, or left when unreadable)
        self.bad: list[BadEntry] = []
        self._folder = ArchiveFolder(root, on_bad=self.bad.append)

    def run(self, older_than_days: float, now: float | None = None) -> list[DayReport]:
        """Archive every day that ended at least ``older_than_days`` before ``now``; the
        day the cut-off falls in stays whole in the store. One archiver at a time per
        folder (a lock file); safe to rerun after any interruption."""
        cutoff = (time.time() if now is None else now) - older_than_days * DAY_S
        bound = day_of(cutoff) * DAY_S  # start of the first day kept
        self._root.mkdir(parents=True, exist_ok=True)
        self.bad.clear()
        with self.hold():
            self._folder.remove_temporaries()
            reports = []
            lo = -float("inf")
            while (day := self._next_day(lo, bound)) is not None:
                report = self._archive_day(day)
                if report is not None:
                    reports.append(report)
                lo = (day + 1) * DAY_S
            if self._pg:
                self._drop_empty_partitions(bound)
            else:
                self._vacuum()
        return reports

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the folder's lock: every other run of it waits meanwhile (a backup
        holds it so that no day moves between its copy of the store and of the folder)."""
        self._root.mkdir(parents=True, exist_ok=True)
        with os.fdopen(self._lock_file(), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def _next_day(self, lo: float, hi: float) -> int | None:
        """The first day from ``lo`` to ``hi`` holding a position."""
        with self._engine.connect() as conn:
            if not self._pg:  # SQLite's ix_positions_t answers min(t) at once
                t = conn.execute(_NEXT_DAY, {"lo": max(lo, -1e18), "hi": hi}).scalar()
                return None if t is None else day_of(float(t))
            # PostGIS has no index on t alone: min(t) would read every old partition.
            # A daily partition's name is its day; DEFAULT (rare: other years, late
            # reports) is the only one scanned.
            for name in _daily_partitions(conn):
                start = _partition_start(name)
                if (
                    lo <= start < hi
                    and conn.exec_driver_sql(f"SELECT 1 FROM {name} LIMIT 1").first()
                ):
                    first = day_of(start)
                    break
            else:
                first = None
            t = conn.execute(
                text("SELECT min(t) FROM positions_default WHERE t >= :lo AND t < :hi"),
                {"lo": max(lo, -1e18), "hi": hi if first is None else first * DAY_S},
            ).scalar()
        return first if t is None else day_of(float(t))

    def _lock_file(self) -> int:
        """The folder's lock file, opened for writing; never a link (opening one for
        writing would write wherever it points) nor a fifo (opening one blocks)."""
        path = self._root / ".lock"
        self._folder.clear(None, path, stat.S_ISREG, "not a file")
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            raise ArchiveError(f"the lock file {path} cannot be opened: {exc}") from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ArchiveError(f"the lock file {path} is not a regular file")
        return fd

    def _archive_day(self, day: int) -> DayReport | None:
        began = time.perf_counter()
        for _ in range(ATTEMPTS):
            try:
                keys = self._archived_keys(day)
            except _Unreadable:
                log.warning("day %s stays in the store: a file of it is unreadable", day_name(day))
                return None
            if self._folder.real_day_dir(day) is None:
                log.warning("day %s stays in the store: its folder is not one", day_name(day))
                return None
            read = DayRead(self._engine, day, keys)
            name = f"{time.time_ns()}-{os.getpid()}"
            _path, written = write_part(self._root, day, name, read.tables())
            # noted before the day leaves the store: from then on a lost file is a hole
            record_day(self._engine, day, len(keys or ()) + written)
            if self._drop_day(day, read.stored):
                log.info("archived %s: %d stored, %d written", day_name(day), read.stored, written)
                return DayReport(day_name(day), read.stored, written, time.perf_counter() - began)
            log.info("day %s gained positions while archived; reading it again", day_name(day))
        raise ArchiveError(f"day {day_name(day)} kept changing; it stays in the store")

    def _archived_keys(self, day: int) -> set[tuple[int, float]] | None:
        """The (MMSI, time) of every position the day's files hold, or None when it has
        no file (the usual case: only a rerun after a kill finds some). Bad files are
        moved aside first; one the system cannot read raises ``_Unreadable`` (what it
        holds is unknown, so a new file could double it)."""
        gaps = ArchiveGaps()
        files = self._folder.files(day, day, gaps)
        keys: set[tuple[int, float]] = set()
        found = False
        for d, path in files:
            tab = self._folder.read(d, path, lambda fh: scan(fh, ["mmsi", "t"]), gaps)
            if tab is not None:
                found = True
                pairs = zip(
                    tab.column("mmsi").to_pylist(), tab.column("t").to_pylist(), strict=True
                )
                keys.update(pairs)
        if UNREADABLE in gaps.reasons(day):
            raise _Unreadable
        return keys if found else None

    def _drop_day(self, day: int, expected: int) -> bool:
        try:
            if self._pg:
                self._drop_day_pg(day, expected)
            else:
                self._drop_day_sqlite(day, expected)
        except _Changed:
            return False
        return True

    def _drop_day_pg(self, day: int, expected: int) -> None:
        lo, hi = day * DAY_S, (day + 1) * DAY_S
        part = partition_name(day)
        with self._engine.begin() as conn:
            # writers wait until the day is gone (readers only for the DROP): a row added
            # after the count could otherwise be dropped unarchived. Parent first, as
            # writers lock it.
            conn.exec_driver_sql("LOCK TABLE positions IN SHARE ROW EXCLUSIVE MODE")
            if _is_partition(conn, part):
                n = conn.exec_driver_sql(f"SELECT count(*) FROM {part}").scalar()
                others = conn.execute(
                    text("SELECT count(*) FROM positions_default WHERE t >= :lo AND t < :hi"),
                    {"lo": lo, "hi": hi},
                ).scalar()
                if int(n or 0) + int(others or 0) != expected:
                    raise _Changed
                conn.exec_driver_sql(f"DROP TABLE {part}")
                if others:
                    conn.execute(
                        text("DELETE FROM positions_default WHERE t >= :lo AND t < :hi"),
                        {"lo": lo, "hi": hi},
                    )
                return
            gone = conn.execute(
                text("DELETE FROM positions WHERE t >= :lo AND t < :hi"), {"lo": lo, "hi": hi}
            ).rowcount
            if gone != expected:
                raise _Changed

    def _drop_day_sqlite(self, day: int, expected: int) -> None:
        params: dict[str, Any] = {"lo": day * DAY_S, "hi": (day + 1) * DAY_S, "n": SQLITE_BATCH}
        left = expected
        while left > 0:
            with self._engine.begin() as conn:
                # the DELETE takes the write lock first, so no writer slips in between it
                # and the count of what is left
                gone = conn.execute(
                    text(
                        "DELETE FROM positions WHERE rowid IN (SELECT rowid FROM positions "
                        "WHERE t >= :lo AND t < :hi LIMIT :n)"
                    ),
                    params,
                ).rowcount
                rest = conn.execute(
                    text("SELECT count(*) FROM positions WHERE t >= :lo AND t < :hi"), params
                ).scalar()
                if int(rest or 0) != left - gone:
                    raise _Changed
            left -= gone

    def _vacuum(self) -> None:
        # gives the freed pages back to the file system: only a store created with
        # auto_vacuum=INCREMENTAL (every new one, see engine.py) can do it in steps
        with self._engine.connect() as conn:
            # the pragma frees one page per step, and sqlite3's execute() steps a
            # statement returning nothing once: executescript runs it to its end
            raw = conn.connection.driver_connection
            assert raw is not None
            raw.executescript("PRAGMA incremental_vacuum;")

    def _drop_empty_partitions(self, bound: float) -> None:
        with self._engine.begin() as conn:
            conn.exec_driver_sql("LOCK TABLE positions IN SHARE ROW EXCLUSIVE MODE")
            for name in _daily_partitions(conn):
                day = day_of(_partition_start(name))
                if (day + 1) * DAY_S > bound:
                    continue
                if conn.exec_driver_sql(f"SELECT 1 FROM {name} LIMIT 1").first() is None:
                    conn.exec_driver_sql(f"DROP TABLE {name}")


def _is_partition(conn: Connection, name: str) -> bool:
    return name in _daily_partitions(conn)


def _daily_partitions(conn: Connection) -> list[str]:
    rows = conn.execute(
        text(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = 'positions'::regclass AND c.relname LIKE 'positions\\_d%'"
        )
    ).all()
    return sorted(str(r[0]) for r in rows if str(r[0])[len("positions_d") :].isdigit())


def _partition_start(name: str) -> float:
    digits = name[len("positions_d") :]
    return datetime.strptime(digits, "%Y%m%d").replace(tzinfo=UTC).timestamp()
