"""Where raw lines come from: a file (plain, gzip, stdin), a TCP feed, a UDP port.

Every source yields :class:`RawLine` with the time of receipt and the source's name, and
stops cleanly when its ``stop`` event is set.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from vigia.ingest.errors import IngestError
from vigia.ingest.records import RawLine

# how often blocking socket calls wake up to look at the stop event
_POLL_S = 0.2
_READ_HINT = 1 << 16


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
        name = self.name
        f = self._open()
        try:
            while True:
                try:
                    block = f.readlines(_READ_HINT)
                except (OSError, EOFError) as exc:  # e.g. a truncated .gz
                    raise IngestError(f"cannot read {self.path}: {exc}") from exc
                if not block:
                    return
                now = time.time()
                for text in block:
                    yield RawLine(text.rstrip("\r\n"), now, name)
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
    ) -> None:
        self.host = host
        self.port = port
        self.name = name or f"tcp:{host}:{port}"
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
        buf = b""
        name = self.name
        while not self.stop.is_set():
            try:
                chunk = sock.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError:
                break
            if not chunk:
                break
            now = time.time()
            buf += chunk
            if b"\n" not in chunk:
                continue
            *complete, buf = buf.split(b"\n")
            for raw in complete:
                yield RawLine(raw.rstrip(b"\r").decode("utf-8", "replace"), now, name)
        if buf.strip():
            self.partial_lines_dropped += 1


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
    ) -> None:
        self.stop = stop if stop is not None else threading.Event()
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
        try:
            while not self.stop.is_set():
                try:
                    data = self.sock.recv(65535)
                except TimeoutError:
                    continue
                except OSError:
                    if self.stop.is_set() or self.sock.fileno() < 0:
                        break
                    continue
                now = time.time()
                self.datagrams += 1
                for raw in data.splitlines():
                    if raw.strip():
                        yield RawLine(raw.decode("utf-8", "replace"), now, name)
        finally:
            self.sock.close()

    def close(self) -> None:
        """Release the port (also done when ``lines()`` ends)."""
        self.sock.close()
