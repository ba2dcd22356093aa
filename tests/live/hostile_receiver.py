"""Webhook receivers that misbehave on purpose, on raw sockets on 127.0.0.1: an answer
far too large, one trickled a byte at a time, and a well-behaved one that notes when
each request arrived and with which ``Host``."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable


class RawReceiver:
    """Accepts connections and hands each to ``answer(conn, request_head)`` on a thread."""

    def __init__(self, answer: Callable[[RawReceiver, socket.socket], None]) -> None:
        self._answer = answer
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.lock = threading.Lock()
        self.arrivals: list[float] = []  # monotonic time each request was read
        self.hosts: list[str] = []
        self.bytes_sent = 0
        self.closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                while not self.closed.is_set():
                    if not self._read_request(conn):
                        return
                    self._answer(self, conn)
            except OSError:
                return

    def _read_request(self, conn: socket.socket) -> bool:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return False
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        length, host = 0, ""
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
            if name.strip().lower() == b"host":
                host = value.strip().decode()
        while len(rest) < length:
            rest += conn.recv(65536)
        with self.lock:
            self.arrivals.append(time.monotonic())
            self.hosts.append(host)
        return True

    def close(self) -> None:
        self.closed.set()
        self._sock.close()


def healthy(rx: RawReceiver, conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")


def huge_answer(size: int) -> Callable[[RawReceiver, socket.socket], None]:
    """200 with a body of ``size`` bytes, sent as fast as the client reads it."""

    def answer(rx: RawReceiver, conn: socket.socket) -> None:
        conn.sendall(f"HTTP/1.1 200 OK\r\ncontent-length: {size}\r\n\r\n".encode())
        block = b"\0" * 65536
        sent = 0
        try:
            while sent < size:
                sent += conn.send(block[: size - sent])
                with rx.lock:
                    rx.bytes_sent = sent
        finally:
            conn.close()
        raise OSError("done")

    return answer


def trickle(every_s: float) -> Callable[[RawReceiver, socket.socket], None]:
    """200 whose headers never end: one byte every ``every_s`` seconds."""

    def answer(rx: RawReceiver, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        while not rx.closed.is_set():
            conn.sendall(b"x")
            time.sleep(every_s)

    return answer
