"""The archive folder as found on disk, not as Vigia wrote it.

Anything can end up in it: a file cut short by a full disk or a bad copy, bytes spoiled
on a failing drive, a text file or a foreign Parquet file under a part's name, a symlink
(out of the archive: ``/etc/passwd``), a fifo (opening one blocks until a writer comes),
or a file where a day's folder belongs. One such entry must not fail or hang a read of
other days, nor the nightly archive run.

So every entry is looked at with ``lstat`` before anything opens it, and only regular
files under real folders are opened, with ``O_NOFOLLOW | O_NONBLOCK`` and checked again
on the open descriptor (the entry may change in between; ``archive_entries``). Pages are
read with their CRC32 checked (files written since carry one), so a flipped byte is
found rather than read as a wrong time or place. An entry that is not a regular file, or
not a Parquet file of the archive's columns, is moved into
``_quarantine/day=YYYY-MM-DD/`` inside the archive (the same file system, so the move is
a rename; the underscore keeps pyarrow's and Spark's discovery out of it) as
``<name>.<reason>.<ns>``: kept whole for whoever investigates, never read again, and its
day named missing in every answer covering it until an operator clears it. A read that
fails on the operating system's side (an I/O error, a permission) may pass: the file
stays where it is, the answer names the day, and the next read tries again. Where the
quarantine cannot be written (a read-only mount), the process remembers the entry and
never reads it again.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from vigia.service.db.archive_entries import NotRegularFile, entries, open_regular, real_dir
from vigia.service.db.archive_format import DAY_S, day_dir, day_name

log = logging.getLogger(__name__)

QUARANTINE = "_quarantine"
NOT_REGULAR = "not_regular"  # a symlink, fifo, socket or device, or a file for a folder
CORRUPT = "corrupt"  # not Parquet, cut short, a failed page checksum, foreign columns
UNREADABLE = "unreadable"  # the system failed to read it: left in place, tried again
REASONS = (CORRUPT, NOT_REGULAR, UNREADABLE)
_PREFIX = "day="
_PART = ("part-", ".parquet")
_TEMP = (".part-", ".parquet.tmp")
# CRC32 of each page checked as it is read (a file written without them reads as before)
_FORMAT = ds.ParquetFileFormat(
    default_fragment_scan_options=ds.ParquetFragmentScanOptions(page_checksum_verification=True)
)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BadEntry:
    """An entry of the archive that was not read, and what became of it."""

    day: int | None  # None: an entry outside the day folders (the lock file)
    path: Path  # where it was found
    reason: str  # CORRUPT, NOT_REGULAR or UNREADABLE
    detail: str
    moved_to: Path | None  # None: left where it was


class ArchiveGaps:
    """The days an answer lacks because an archived file of theirs was not read."""

    def __init__(self) -> None:
        self._days: dict[int, set[str]] = {}

    def add(self, day: int, reason: str) -> None:
        self._days.setdefault(day, set()).add(reason)

    def reasons(self, day: int) -> set[str]:
        """Why ``day`` is named (empty: it is not)."""
        return set(self._days.get(day, ()))

    def json(self) -> list[dict[str, Any]]:
        """``[{"day": "YYYY-MM-DD", "reasons": [...]}]``, by day."""
        return [{"day": day_name(d), "reasons": sorted(r)} for d, r in sorted(self._days.items())]


def scan(fh: BinaryIO, columns: list[str], flt: pc.Expression | None = None) -> pa.Table:
    """Rows of one open archive file (page checksums checked)."""
    return _FORMAT.make_fragment(fh).to_table(columns=columns, filter=flt)


def fragment(fh: BinaryIO) -> ds.ParquetFileFragment:
    """One open archive file as a fragment (page checksums checked), for a reader that
    picks row groups by their statistics itself (service/db/backtest_read.py)."""
    return _FORMAT.make_fragment(fh)


def day_range(start: float | None, end: float | None) -> tuple[int | None, int | None]:
    """The first and last UTC day a time range touches (None: unbounded)."""
    return (
        None if start is None else int(start // DAY_S),
        None if end is None else int(end // DAY_S),
    )


def _in(day: int, first: int | None, last: int | None) -> bool:
    return (first is None or day >= first) and (last is None or day <= last)


def _day_of_name(name: str) -> int | None:
    if not name.startswith(_PREFIX):
        return None
    try:
        d = datetime.strptime(name[len(_PREFIX) :], "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:  # day=2024-02-30, day=notes: no day, nothing to read or name
        return None
    return int(d.timestamp()) // DAY_S


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class ArchiveFolder:
    """One archive folder: its readable files, and the entries it moves aside.

    ``on_bad`` hears of every bad entry met (the archive run reports them); the counts
    by reason are this process's, for /metrics. Thread-safe: the API reads from many
    threads at once.
    """

    def __init__(self, root: Path, on_bad: Callable[[BadEntry], None] | None = None) -> None:
        self.root = root
        self._on_bad = on_bad
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        # entries found bad that could not be moved aside: never read again while they
        # are the same file
        self._stuck: dict[tuple[int, int, int, int], tuple[int | None, str]] = {}

    def counts(self) -> dict[str, int]:
        """Bad entries this process met, by reason."""
        with self._lock:
            return {r: self._counts[r] for r in REASONS}

    def days(
        self, first: int | None = None, last: int | None = None
    ) -> list[tuple[int, Path, os.stat_result]]:
        """Every ``day=`` entry from ``first`` to ``last`` (day, path, lstat), whatever
        it is, by day. Only those in range are looked at: a track asks for a few days of
        years of them."""

        days: dict[str, int] = {}

        def wanted(name: str) -> bool:
            day = _day_of_name(name)
            if day is None or not _in(day, first, last):
                return False
            days[name] = day
            return True

        found = entries(self.root, wanted, link_ok=True)
        return sorted(((days[p.name], p, st) for p, st in found), key=lambda e: e[0])

    def files(
        self, first: int | None, last: int | None, gaps: ArchiveGaps
    ) -> list[tuple[int, Path]]:
        """The part files of the days from ``first`` to ``last`` that are regular files
        in real folders; every other entry there is moved aside and its day named."""
        out = []
        for day, path, st in self.days(first, last):
            if self._skip(day, st, gaps):
                continue
            if not stat.S_ISDIR(st.st_mode):
                self.bad(day, path, st, NOT_REGULAR, "not a folder", gaps)
                continue
            try:
                found = entries(path, _is_part)
            except OSError as exc:  # swapped for a link since; or not listable
                reason = NOT_REGULAR if exc.errno in (errno.ELOOP, errno.ENOTDIR) else UNREADABLE
                self.bad(day, path, None, reason, str(exc), gaps)
                continue
            for part, pst in found:
                if self._skip(day, pst, gaps):
                    continue
                if stat.S_ISREG(pst.st_mode):
                    out.append((day, part))
                else:
                    self.bad(day, part, pst, NOT_REGULAR, "not a file", gaps)
        self._name_quarantined(first, last, gaps)
        return sorted(out)

    def read(
        self, day: int, path: Path, read: Callable[[BinaryIO], T], gaps: ArchiveGaps
    ) -> T | None:
        """``read`` of one part file, or None when it is bad (then its day is named)."""
        try:
            with open_regular(path) as fh:
                return read(fh)
        except MemoryError:
            raise  # the process's trouble, not the file's
        except NotRegularFile as exc:
            if real_dir(path.parent):
                self.bad(day, path, None, NOT_REGULAR, str(exc), gaps)
            else:  # its folder became a link: a move now would go through it
                gaps.add(day, NOT_REGULAR)
        except FileNotFoundError:
            pass  # moved aside by another reader meanwhile: the quarantine names its day
        except OSError as exc:
            if exc.errno is None:  # pyarrow's own (a page checksum, a decompression)
                self.bad(day, path, None, CORRUPT, str(exc), gaps)
            else:
                self.bad(day, path, None, UNREADABLE, str(exc), gaps)
        except pa.ArrowException as exc:  # not Parquet, cut short, foreign columns
            self.bad(day, path, None, CORRUPT, str(exc), gaps)
        return None

    def real_day_dir(self, day: int) -> Path | None:
        """The day's folder, made if missing; an entry there that is not a real folder
        is moved aside first (a file or a link would take the day out of the archive).
        None when such an entry could not be moved."""
        folder = day_dir(self.root, day)
        self.clear(day, folder, stat.S_ISDIR, "not a folder")
        try:
            folder.mkdir(exist_ok=True)
        except FileExistsError:
            return None
        return folder if real_dir(folder) else None

    def clear(self, day: int | None, path: Path, kind: Callable[[int], bool], what: str) -> None:
        """Move ``path`` aside when it exists and its mode is not of ``kind``
        (``stat.S_ISDIR``, ``stat.S_ISREG``): before something is made there."""
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return
        if not kind(st.st_mode):
            self.bad(day, path, st, NOT_REGULAR, what, None)

    def remove_temporaries(self) -> int:
        """Delete the temporary files a killed run left in real day folders; returns how
        many (anything else under such a name is moved aside)."""
        n = 0
        for day, path, st in self.days():
            if not stat.S_ISDIR(st.st_mode):
                continue
            for tmp, tst in entries(path, _is_temporary):
                if stat.S_ISREG(tst.st_mode):
                    tmp.unlink(missing_ok=True)
                    n += 1
                else:
                    self.bad(day, tmp, tst, NOT_REGULAR, "not a file", None)
        return n

    def bad(
        self,
        day: int | None,
        path: Path,
        st: os.stat_result | None,
        reason: str,
        detail: str,
        gaps: ArchiveGaps | None,
    ) -> None:
        """Handle one bad entry: move it aside (unless only unreadable), name its day,
        count it, log it and tell ``on_bad``."""
        if day is not None and gaps is not None:
            gaps.add(day, reason)
        moved = None if reason == UNREADABLE else self._quarantine(day, path, reason)
        if moved is None and reason != UNREADABLE:
            try:
                st = st or os.lstat(path)
            except OSError:
                return  # gone meanwhile: moved aside by another process
            with self._lock:
                self._stuck[_identity(st)] = (day, reason)
        with self._lock:
            self._counts[reason] += 1
        where = f"moved to {moved}" if moved else "left in place"
        log.warning("archive entry %s not read (%s: %s); %s", path, reason, detail, where)
        if self._on_bad is not None:
            self._on_bad(BadEntry(day, path, reason, detail, moved))

    def quarantined(self) -> int:
        """How many entries the quarantine folder holds (in its day folders, and the
        few of no day, such as a lock file)."""
        n = 0
        try:
            for path, st in entries(self.root / QUARANTINE, _any):
                if _day_of_name(path.name) is not None and stat.S_ISDIR(st.st_mode):
                    n += len(entries(path, _any))
                else:
                    n += 1
        except OSError:  # not a folder: nothing could be moved there (logged then)
            pass
        return n

    def _skip(self, day: int, st: os.stat_result, gaps: ArchiveGaps) -> bool:
        with self._lock:
            stuck = self._stuck.get(_identity(st))
        if stuck is not None:
            gaps.add(day, stuck[1])
        return stuck is not None

    def _name_quarantined(self, first: int | None, last: int | None, gaps: ArchiveGaps) -> None:
        for day, names in self._quarantine_days():
            if _in(day, first, last):
                for name in names:
                    reason = name.rsplit(".", 2)[-2] if name.count(".") >= 2 else ""
                    gaps.add(day, reason if reason in REASONS else "quarantined")

    def _quarantine_days(self) -> list[tuple[int, list[str]]]:
        out = []
        try:
            for path, st in entries(self.root / QUARANTINE, _is_day):
                day = _day_of_name(path.name)
                if day is not None and stat.S_ISDIR(st.st_mode):
                    names = [p.name for p, _ in entries(path, _any)]
                    if names:
                        out.append((day, names))
        except OSError:  # not a folder: nothing could be moved there (logged then)
            pass
        return out

    def _quarantine(self, day: int | None, path: Path, reason: str) -> Path | None:
        """Rename ``path`` (the entry itself, never what a link points at) into the
        quarantine; None when it cannot be."""
        folder = self.root / QUARANTINE
        if day is not None:
            folder = folder / f"{_PREFIX}{day_name(day)}"
        try:
            for d in (self.root / QUARANTINE, folder):
                d.mkdir(exist_ok=True)
                if not real_dir(d):
                    log.error("archive quarantine %s is not a folder: nothing moved there", d)
                    return None
            dest = folder / f"{path.name}.{reason}.{time.time_ns()}"
            os.rename(path, dest)
        except FileNotFoundError:
            return None  # another process moved it first
        except OSError as exc:
            log.error("archive entry %s could not be moved aside: %s", path, exc)
            return None
        return dest


def _is_day(name: str) -> bool:
    return name.startswith(_PREFIX)


def _is_part(name: str) -> bool:
    return name.startswith(_PART[0]) and name.endswith(_PART[1])


def _is_temporary(name: str) -> bool:
    return name.startswith(_TEMP[0]) and name.endswith(_TEMP[1])


def _any(name: str) -> bool:
    return True
