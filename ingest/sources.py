"""Where raw lines come from: a file (plain, gzip, stdin), a TCP feed, gpsd, a UDP port.

Every source yields :class:`RawLine` with the time of receipt, the source's name and the
peer within it (UDP sender, TCP connection), and stops cleanly when its ``stop`` event is
set. Network sources shed what cannot be NMEA before it costs the worker anything: a
line longer than ``max_line_bytes`` (never buffered beyond that, even without a newline)
and a line that does not start like a sentence or tag block. ``counts`` says how many
lines (or datagrams) were shed, by reason.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from vigia.ingest.decoder import MAX_LINE_CHARS
from vigia.ingest.errors import IngestError
from vigia.ingest.records import RawLine

# how often blocking socket calls wake up to look at the stop event
_POLL_S = 0.2
_READ_HINT = 1 << 16
_STARTS = (b"!", b"$", b"\\")
#: bytes a replay reads at a time: the batch decoder's cost per block is spread over
#: about 5,000 lines (larger blocks measured no faster; memory: a few MB)
REPLAY_HINT = 1 << 18
#: what a gpsd client sends to have the daemon relay its devices' sentences
GPSD_WATCH = b'?WATCH={"enable":true,"nmea":true}\n'


def _shed(raw: bytes, max_line: int, counts: Counter[str]) -> bool:
    """Whether a network line is refused unread (and counted): too long, or not NMEA."""
    if len(raw) > max_line:
        counts["too_long"] += 1
        return True
    head = raw.lstrip()[:1]
    if head in _STARTS:
        return False
    if head:
        counts["gpsd_json" if head == b"{" else "not_nmea"] += 1
    return True


class FileSource:
    """A file of NMEA lines: plain text, gzip (``.gz``), or ``-`` for standard input."""

    def __init__(self, path: str | Path, *, name: str | None = None) -> None:
        self.path = str(path)
        self.name = name or ("stdin" if self.path == "-" else self.path)
        if self.path != "-" and not Path(self.path).is_file():
            raise IngestError(f"no such file: {self.path}")

    def _open(self) -> IO[str]:
        if self.path == "-":
            return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        try:
            if self.path.endswith(".gz"):
                return gzip.open(self.path, "rt", encoding="utf-8", errors="replace")
            return open(self.path, encoding="utf-8", errors="replace")
        except OSError as exc:
            raise IngestError(f"cannot read {self.path}: {exc}") from exc

    def lines(self) -> Iterator[RawLine]:
        """Every line of the file; receipt time is when its block was read."""
        for block in self.blocks():
            yield from block

    def blocks(self) -> Iterator[list[RawLine]]:
        """The file's lines a read at a time (about 64 KiB), for the batch decoder."""
        name = self.name
        for texts, now in self.text_blocks():
            yield [RawLine(text, now, name) for text in texts]

    def text_blocks(self, hint: int = _READ_HINT) -> Iterator[tuple[list[str], float]]:
        """The file's lines a read of about ``hint`` bytes at a time, as texts and the
        read's time (what ``BatchIngestor.feed_texts`` takes, with no RawLine made per
        line). A replay reads larger blocks: the batch decoder's cost per block is then
        spread over more lines."""
        f = self._open()
        try:
            while True:
                try:
                    block = f.readlines(hint)
                except (OSError, EOFError) as exc:  # e.g. a truncated .gz
                    raise IngestError(f"cannot read {self.path}: {exc}") from exc
                if not block:
                    return
                now = time.time()
                yield [text.rstrip("\r\n") for text in block], now
        finally:
            if self.path != "-":
                f.close()

    def __iter__(self) -> Iterator[RawLine]:
        return self.lines()


class TcpSource:
    """A TCP client for a line feed that reconnects with exponential backoff.

    A sentence split across two reads is joined before it is yielded. When the connection
    dies with half a line in the buffer, that fragment is discarded (the sender never
    finished it) and counted in ``partial_lines_dropped``.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str | None = None,
        backoff_initial: float = 0.5,
        backoff_max: float = 30.0,
        stop: threading.Event | None = None,
        connect_timeout: float = 5.0,
        max_line_bytes: int = MAX_LINE_CHARS,
        hello: bytes = b"",
    ) -> None:
        self.host = host
        self.port = port
        self.name = name or f"tcp:{host}:{port}"
        self.max_line_bytes = max_line_bytes
        self.hello = hello  # sent on every connection (gpsd's ?WATCH)
        self.counts: Counter[str] = Counter()
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.stop = stop if stop is not None else threading.Event()
        self.connect_timeout = connect_timeout
        self.connections = 0
        self.disconnects = 0
        self.partial_lines_dropped = 0

    def _connect(self) -> socket.socket | None:
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
        except OSError:
            return None
        sock.settimeout(_POLL_S)
        if self.hello:
            try:
                sock.sendall(self.hello)
            except OSError:
                sock.close()
                return None
        self.connections += 1
        return sock

    def lines(self) -> Iterator[RawLine]:
        """Lines from the feed until ``stop`` is set, reconnecting as needed."""
        delay = self.backoff_initial
        while not self.stop.is_set():
            sock = self._connect()
            if sock is None:
                self.stop.wait(delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            delay = self.backoff_initial
            try:
                yield from self._read(sock)
            finally:
                sock.close()
            if not self.stop.is_set():
                self.disconnects += 1
                self.stop.wait(self.backoff_initial)

    def _read(self, sock: socket.socket) -> Iterator[RawLine]:
        # newlines are searched for in each new chunk only, and the unfinished line is
        # never kept beyond max_line_bytes: a sender that never sends a newline costs
        # bounded memory and linear time
        buf = bytearray()
        discarding = False  # inside a line already refused as too long
        name = self.name
        peer = str(self.connections)
        limit = self.max_line_bytes
        counts = self.counts
        while not self.stop.is_set():
            try:
                chunk = sock.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError:
                break
            if not chunk:
                break
            nl = chunk.find(b"\n")
            if nl < 0:
                if not discarding:
                    if len(buf) + len(chunk) > limit:
                        counts["too_long"] += 1
                        buf.clear()
                        discarding = True
                    else:
                        buf += chunk
                continue
            now = time.time()
            lines = chunk[nl + 1 :].split(b"\n")
            tail = lines.pop()
            if discarding:
                discarding = False
            else:
                buf += chunk[:nl]
                lines.insert(0, bytes(buf))
            buf.clear()
            for raw in lines:
                if not _shed(raw, limit, counts):
                    yield RawLine(raw.rstrip(b"\r").decode("utf-8", "replace"), now, name, peer)
            if len(tail) > limit:
                counts["too_long"] += 1
                discarding = True
            else:
                buf += tail
        if bytes(buf).strip():
            self.partial_lines_dropped += 1


class GpsdSource(TcpSource):
    """A gpsd daemon as a feed: asks it (``?WATCH``) to relay its devices' NMEA/AIS.

    gpsd answers with JSON reports (VERSION, DEVICES, WATCH) as well as the sentences;
    the reports are shed at the source and counted as ``gpsd_json``.
    """

    def __init__(self, host: str, port: int, **kwargs: object) -> None:
        kwargs.setdefault("name", f"gpsd:{host}:{port}")
        super().__init__(host, port, hello=GPSD_WATCH, **kwargs)  # type: ignore[arg-type]


class UdpSource:
    """A UDP listener: each datagram holds one or more lines.

    The socket is bound at construction (``port=0`` picks a free port, see ``address``).
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str | None = None,
        stop: threading.Event | None = None,
        rcvbuf: int = 4 << 20,
        max_line_bytes: int = MAX_LINE_CHARS,
    ) -> None:
        self.stop = stop if stop is not None else threading.Event()
        self.max_line_bytes = max_line_bytes
        self.counts: Counter[str] = Counter()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        with contextlib.suppress(OSError):
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        try:
            self.sock.bind((host, port))
        except OSError as exc:
            self.sock.close()
            raise IngestError(f"cannot listen on udp {host}:{port}: {exc}") from exc
        self.sock.settimeout(_POLL_S)
        self.address: tuple[str, int] = self.sock.getsockname()
        self.name = name or f"udp:{self.address[0]}:{self.address[1]}"
        self.datagrams = 0

    def lines(self) -> Iterator[RawLine]:
        """Lines from datagrams until ``stop`` is set; the socket is closed at the end."""
        name = self.name
        limit = self.max_line_bytes
        counts = self.counts
        try:
            while not self.stop.is_set():
                try:
                    data, addr = self.sock.recvfrom(65535)
                except TimeoutError:
                    continue
                except OSError:
                    if self.stop.is_set() or self.sock.fileno() < 0:
                        break
                    continue
                self.datagrams += 1
                # a datagram with no sentence start in it is garbage: one C-level scan
                if b"!" not in data and b"$" not in data:
                    counts["garbage_datagrams"] += 1
                    continue
                now = time.time()
                # fragments are joined per sender, never across two receivers
                peer = f"{addr[0]}:{addr[1]}"
                for raw in data.splitlines():
                    if not _shed(raw, limit, counts):
                        yield RawLine(raw.decode("utf-8", "replace"), now, name, peer)
        finally:
            self.sock.close()

    def close(self) -> None:
        """Release the port (also done when ``lines()`` ends)."""
        self.sock.close()
