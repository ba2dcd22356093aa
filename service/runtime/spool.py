"""A durable local spool: an append-only journal of what the writer accepted.

Every batch the writer accepts is appended here first, so a killed process loses nothing:
the next writer on the same directory replays what the database had not yet confirmed.

Layout: segment files ``<first seq, 20 digits>.seg`` holding records
``[length u32][crc32 u32][seq u64][kind u8][payload]`` (crc over seq, kind and payload;
payload is a pickle: positions as plain tuples because that is ~8x faster than pickling
the dataclasses), a ``mark`` file with the highest sequence number known to be in the
database, and a ``lock`` file so two processes never share one spool.

Durability: records go to the kernel with a plain ``os.write`` on an append descriptor,
so they survive the process being killed at any point (a record torn by a kill mid-write
fails its length or checksum test on recovery and is skipped, counted in ``torn``). They
are ``fdatasync``-ed by a background thread every ``fsync_interval_s`` seconds (off the
submit path; 0 syncs every append in line): a crash of the machine itself (power loss,
kernel panic) may lose up to that window of accepted data.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import logging
import operator
import os
import pickle
import struct
import threading
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from vigia.ingest.errors import VigiaError
from vigia.ingest.records import Position, field_names

log = logging.getLogger(__name__)

KINDS: Final = ("positions", "vessels", "leads")
_KIND_CODE: Final = {k: i for i, k in enumerate(KINDS)}
_HEAD = struct.Struct("<IIQB")  # payload length, crc32, seq, kind
_BODY = struct.Struct("<QB")  # the part of the head the checksum covers
_MARK = struct.Struct("<QI")  # seq, crc32 of seq
_SUFFIX = ".seg"


class SpoolError(VigiaError):
    """The spool directory cannot be used (held by another process, not a directory)."""

    code = "spool-unavailable"


# positions travel as plain tuples of their fields in declaration order (read back with
# Position(*row)); the list is the dataclass's own, so a new field is journalled too
_POSITION_FIELDS = field_names(Position)
_position_tuple = operator.attrgetter(*_POSITION_FIELDS)


def _encode(kind: str, items: Sequence[Any]) -> bytes:
    if kind == "positions":
        rows = [_position_tuple(p) for p in items]
        return pickle.dumps(rows, pickle.HIGHEST_PROTOCOL)
    return pickle.dumps(list(items), pickle.HIGHEST_PROTOCOL)


def _decode(kind: str, payload: bytes) -> list[Any]:
    items: list[Any] = pickle.loads(payload)
    if kind == "positions":
        return [Position(*row) for row in items]
    return items


class Spool:
    """Append-only segment journal in ``path``; see the module docstring for guarantees."""

    def __init__(
        self,
        path: str | Path,
        *,
        segment_bytes: int = 64 * 1024 * 1024,
        fsync_interval_s: float = 1.0,
    ) -> None:
        if segment_bytes < 1:
            raise ValueError("segment_bytes must be positive")
        self.path = Path(path)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SpoolError(f"cannot create the spool directory {self.path}: {exc}") from exc
        self._segment_bytes = segment_bytes
        self._fsync_interval = fsync_interval_s
        self._lock = threading.Lock()
        try:
            self._lock_fd = os.open(self.path / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise SpoolError(f"cannot use the spool directory {self.path}: {exc}") from exc
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(self._lock_fd)
            raise SpoolError(f"the spool {self.path} is in use by another process") from exc
        try:
            self._mark_fd = os.open(self.path / "mark", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            os.close(self._lock_fd)
            raise SpoolError(f"cannot use the spool directory {self.path}: {exc}") from exc
        self._marked = self._read_mark()
        #: records cut short or corrupted (a kill mid-write), skipped by recover()
        self.torn = 0
        #: intact records whose contents could not be rebuilt (e.g. after an upgrade
        #: changed a record type), skipped by recover()
        self.unreadable = 0
        self._recovered = False
        segs = self._segments()
        # raised past every record on disk by recover(), which must run before append()
        self._next = max(self._marked + 1, segs[-1][0] if segs else 1)
        self._fd: int | None = None
        self._seg_size = 0
        self._dirty = False
        self._closed = False
        self._stop = threading.Event()
        self._syncer: threading.Thread | None = None
        if fsync_interval_s > 0:
            self._syncer = threading.Thread(
                target=self._sync_loop, name="vigia-spool-sync", daemon=True
            )
            self._syncer.start()

    # -- files ---------------------------------------------------------------------------

    def _segments(self) -> list[tuple[int, Path]]:
        out = []
        for p in self.path.iterdir():
            if p.suffix == _SUFFIX and p.stem.isdigit():
                out.append((int(p.stem), p))
        return sorted(out)

    def _read_mark(self) -> int:
        raw = os.pread(self._mark_fd, _MARK.size, 0)
        if len(raw) != _MARK.size:
            return 0
        seq, crc = _MARK.unpack(raw)
        if crc != zlib.crc32(struct.pack("<Q", seq)):
            log.warning("spool %s: unreadable mark, replaying every segment", self.path)
            return 0
        return int(seq)

    def _open_segment(self, first_seq: int) -> None:
        if self._fd is not None:
            self._sync_locked()
            os.close(self._fd)
        name = self.path / f"{first_seq:020d}{_SUFFIX}"
        # no valid record at or after first_seq exists, so a file of that name can only
        # hold a torn write: start it afresh
        self._fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o644)
        self._seg_size = 0
        # make the new file's directory entry durable too
        dfd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    # -- public --------------------------------------------------------------------------

    def recover(self) -> Iterator[tuple[str, int, list[Any]]]:
        """Yield ``(kind, seq, items)`` for every record not yet marked written, in order.

        A record cut short or corrupted (a kill mid-write) ends its segment's replay and
        is counted in ``torn``. Appends after recovery go to a fresh segment.
        """
        with self._lock:
            segs = self._segments()
        for _first, seg in segs:
            data = seg.read_bytes()
            off = 0
            while off < len(data):
                if len(data) - off < _HEAD.size:
                    self._torn(seg, off)
                    break
                length, crc, seq, code = _HEAD.unpack_from(data, off)
                end = off + _HEAD.size + length
                payload = data[off + _HEAD.size : end]
                body = _BODY.pack(seq, code)
                if (
                    end > len(data)
                    or code >= len(KINDS)
                    or zlib.crc32(payload, zlib.crc32(body)) != crc
                ):
                    self._torn(seg, off)
                    break
                off = end
                with self._lock:
                    self._next = max(self._next, seq + 1)
                if seq <= self._marked:
                    continue
                kind = KINDS[code]
                try:
                    items = _decode(kind, payload)
                except Exception as exc:
                    self.unreadable += 1
                    log.error(
                        "spool %s: record %d (%s) unreadable, skipped: %s", seg, seq, kind, exc
                    )
                    continue
                yield kind, seq, items
        self._recovered = True

    def _torn(self, seg: Path, off: int) -> None:
        self.torn += 1
        log.warning("spool %s: torn record at byte %d ignored (a kill mid-write)", seg, off)

    def append(self, kind: str, items: Sequence[Any]) -> int:
        """Journal one batch and return its sequence number (increasing across kinds)."""
        code = _KIND_CODE.get(kind)
        if code is None:
            raise ValueError(f"unknown spool kind {kind!r}; expected one of {KINDS}")
        payload = _encode(kind, items)
        with self._lock:
            if self._closed:
                raise SpoolError("the spool is closed")
            if not self._recovered:
                raise SpoolError("recover() must be run to the end before append()")
            seq = self._next
            if self._fd is None or self._seg_size >= self._segment_bytes:
                self._open_segment(seq)
            body = _BODY.pack(seq, code)
            crc = zlib.crc32(payload, zlib.crc32(body))
            record = _HEAD.pack(len(payload), crc, seq, code) + payload
            view = memoryview(record)
            while view:
                assert self._fd is not None
                n = os.write(self._fd, view)
                view = view[n:]
            self._next = seq + 1
            self._seg_size += len(record)
            self._dirty = True
            if self._syncer is None:
                self._sync_locked()
            return seq

    def _sync_locked(self) -> None:
        if self._fd is not None and self._dirty:
            os.fdatasync(self._fd)
            self._dirty = False

    def _sync_loop(self) -> None:
        while not self._stop.wait(self._fsync_interval):
            with self._lock:
                if self._fd is None or not self._dirty:
                    continue
                # a duplicate so that a segment switch may close the original meanwhile
                fd = os.dup(self._fd)
                self._dirty = False
            try:
                os.fdatasync(fd)
            except OSError as exc:
                log.error("spool %s: fdatasync failed: %s", self.path, exc)
            finally:
                os.close(fd)

    def sync(self) -> None:
        """Force what was appended to disk now (survives a machine crash)."""
        with self._lock:
            self._sync_locked()

    @property
    def marked(self) -> int:
        """The highest sequence number known to be in the database."""
        return self._marked

    @property
    def last_seq(self) -> int:
        """The sequence number of the last record appended or recovered (0 if none)."""
        return self._next - 1

    def mark_written(self, seq: int) -> None:
        """Everything up to ``seq`` is in the database: persist that, and delete the
        segments whose every record is at or below it (never the one being appended to)."""
        with self._lock:
            seq = min(seq, self._next - 1)
            if seq <= self._marked or self._closed:
                return
            self._marked = seq
            os.pwrite(self._mark_fd, _MARK.pack(seq, zlib.crc32(struct.pack("<Q", seq))), 0)
            segs = self._segments()
            active = self._fd is not None
            for (_first, seg), (next_first, _p) in itertools.pairwise(segs):
                # a segment ends just before the next one starts
                if next_first - 1 <= seq:
                    seg.unlink(missing_ok=True)
            if segs and not active and self._next - 1 <= seq:
                # nothing is being appended: the last segment is fully written too
                segs[-1][1].unlink(missing_ok=True)

    def segment_count(self) -> int:
        """How many segment files are on disk."""
        with self._lock:
            return len(self._segments())

    def close(self) -> None:
        """Sync, close the files and release the directory for another process; a spool
        whose every record is marked written (after a full recovery) removes itself."""
        self._stop.set()
        if self._syncer is not None and self._syncer is not threading.current_thread():
            self._syncer.join()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._fd is not None:
                self._sync_locked()
                os.close(self._fd)
                self._fd = None
            os.close(self._mark_fd)
            if self._recovered and self._marked >= self._next - 1:
                # nothing to replay: leave no trace (the lock file goes last, still held)
                for _first, seg in self._segments():
                    seg.unlink(missing_ok=True)
                (self.path / "mark").unlink(missing_ok=True)
                (self.path / "lock").unlink(missing_ok=True)
                with contextlib.suppress(OSError):
                    self.path.rmdir()
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
