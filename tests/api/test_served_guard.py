"""The request guard on a real `vigia serve` over a real socket: oversized and keyless
uploads are answered before they are sent, and an aborted upload logs no traceback."""

from __future__ import annotations

import os
import select
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.test_serve_e2e import _free_port, _vigia

pytestmark = pytest.mark.slow

KEY = "bootstrap-admin-key-for-the-guard-test-0123456789"
LIMIT = 64_000


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
    env.pop("DATABASE_URL", None)
    env |= {
        "VIGIA_AUTH_BOOTSTRAP_ADMIN_KEY": KEY,
        "VIGIA_API_MAX_UPLOAD_BYTES": str(LIMIT),
        "VIGIA_INGEST_WORKER": "false",
        "VIGIA_INGEST_SPOOL_DIR": "",
    }
    port = _free_port()
    proc = subprocess.Popen(
        [*_vigia(), "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "info"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    try:
        yield port, proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _chunked_upload(port: int, path: str, key: str | None, total: int) -> tuple[str, int]:
    """Send a chunked POST of up to ``total`` bytes, 16 kB at a time, stopping when the
    server answers; returns the status line and how many bytes were sent."""
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
    head += "Content-Type: application/json\r\n"
    if key:
        head += f"X-API-Key: {key}\r\n"
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall((head + "\r\n").encode())
    chunk = b"%x\r\n%s\r\n" % (16_000, b" " * 16_000)
    sent = 0
    try:
        while sent < total:
            readable, _, _ = select.select([sock], [], [], 0.02)
            if readable:
                break
            sock.sendall(chunk)
            sent += 16_000
        answer = sock.recv(65536).decode("latin-1")
    except (BrokenPipeError, ConnectionResetError):
        answer = sock.recv(65536).decode("latin-1")
    finally:
        sock.close()
    return answer.split("\r\n", 1)[0], sent


def _peak_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of the server, in MB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def test_oversized_and_keyless_uploads_are_answered_before_they_are_sent(
    served: tuple[int, subprocess.Popen[str]],
) -> None:
    port, proc = served
    rss0, _ = _peak_mb(proc.pid)
    for path in ("/healthz", "/ballast/assess", "/apikeys"):
        status, sent = _chunked_upload(port, path, None, 50_000_000)
        assert " 401 " in status, (path, status)
        assert sent < 4_000_000, f"sent {sent} bytes to {path} before the 401"
    status, sent = _chunked_upload(port, "/collections/zones/items", KEY, 50_000_000)
    assert " 413 " in status, status
    assert sent < 4_000_000, f"sent {sent} bytes before the 413"
    # four 50 MB uploads; the server never held more than a few MB of them
    _, hwm = _peak_mb(proc.pid)
    assert hwm - rss0 < 30, f"peak {hwm:.0f} MB from {rss0:.0f} MB at rest"


def test_an_aborted_upload_logs_no_traceback(served: tuple[int, subprocess.Popen[str]]) -> None:
    port, proc = served
    for _ in range(3):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(
            b"POST /collections/zones/items HTTP/1.1\r\nHost: x\r\nContent-Length: 50000\r\n"
            + f"X-API-Key: {KEY}\r\nContent-Type: application/json\r\n\r\n".encode()
            + b'{"type": "Feature", '
        )
        time.sleep(0.2)
        sock.close()
    time.sleep(0.5)
    proc.terminate()
    out, _ = proc.communicate(timeout=30)
    assert "Traceback" not in out, out[-3000:]
    assert "closed the connection during its upload" in out
