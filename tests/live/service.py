"""A real ``vigia serve`` process on a free port, a real SSE client, and lead builders."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import connect_sse

ADMIN_KEY = "live-test-admin-key-0123456789abcdefghijklmnop"


def free_port() -> int:
    """A port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _vigia() -> list[str]:
    exe = shutil.which("vigia") or str(Path(sys.executable).with_name("vigia"))
    return [exe] if Path(exe).exists() else [sys.executable, "-m", "vigia.service.cli"]


def closed_within(sock: socket.socket, deadline: float) -> bool:
    """Whether the server closes ``sock`` before ``deadline`` (monotonic)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        sock.settimeout(left)
        try:
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            return False
        except ConnectionResetError:
            return True


def sent_in_two(port: int, first: bytes, rest: bytes, pause_s: float) -> bytes:
    """Send a request in two parts ``pause_s`` apart (it should say ``Connection:
    close``); the whole answer."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(first)
        time.sleep(pause_s)
        s.sendall(rest)
        s.settimeout(10)
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    return answer


@dataclass
class Service:
    """``vigia serve`` on ``db_url``; start, kill -9 and start again on the same store."""

    workdir: Path
    db_url: str
    env_extra: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[str] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> Service:
        env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
        env |= {
            "DATABASE_URL": self.db_url,
            "VIGIA_AUTH_BOOTSTRAP_ADMIN_KEY": ADMIN_KEY,
            "VIGIA_LOAD_BUNDLED": "false",
            "VIGIA_INGEST_WORKER": "false",
            "VIGIA_INGEST_SPOOL_DIR": str(self.workdir / "spool"),
            "VIGIA_DATA_DIR": str(self.workdir / "data"),
            "VIGIA_LIVE_SSE_PING_S": "1",
            "VIGIA_LIVE_POLL_S": "0.2",
            **self.env_extra,
        }
        log = open(self.workdir / f"serve-{self.port}.log", "a")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [*_vigia(), "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--log-level", "warning"],
            cwd=self.workdir, env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(self.log())
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=2):
                    return self
            except (OSError, urllib.error.URLError):
                time.sleep(0.2)
        raise TimeoutError(self.log())

    def log(self) -> str:
        return (self.workdir / f"serve-{self.port}.log").read_text()

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        r = httpx.request(
            method, self.base + path, json=body, headers={"X-API-Key": ADMIN_KEY}, timeout=10
        )
        return r.status_code, (r.json() if r.content else None)


class SseClient:
    """An SSE client on its own thread: records ``(id, event, data)`` until told to stop
    (then it disconnects, as a browser tab closing would)."""

    def __init__(self, url: str, key: str = ADMIN_KEY, last_id: str | None = None) -> None:
        self.url, self.key, self.last_id = url, key, last_id
        self.events: list[tuple[str, str, dict[str, Any]]] = []
        self.connected = threading.Event()
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._client: httpx.Client | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        headers = {"X-API-Key": self.key}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        try:
            with (
                httpx.Client(timeout=httpx.Timeout(10.0, read=30.0)) as client,
                connect_sse(client, "GET", self.url, headers=headers) as source,
            ):
                source.response.raise_for_status()
                self._client = client
                self.connected.set()
                for sse in source.iter_sse():
                    if sse.event == "message" and not sse.data:
                        continue
                    self.events.append((sse.id, sse.event, json.loads(sse.data)))
                    if self._stop.is_set():
                        return
        except BaseException as exc:  # reported to the test
            if not self._stop.is_set():
                self.error = exc
        finally:
            self.connected.set()

    def ended(self, timeout: float) -> bool:
        """Whether the stream has ended (the server closed it, or it failed)."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def wait_for(self, n: int, timeout: float = 20.0) -> list[tuple[str, str, dict[str, Any]]]:
        deadline = time.monotonic() + timeout
        while len(self.events) < n and time.monotonic() < deadline:
            if self.error is not None:
                raise self.error
            time.sleep(0.02)
        return list(self.events)

    def close(self) -> None:
        """Drop the connection now (the server must notice and let go)."""
        self._stop.set()
        if self._client is not None:
            self._client.close()
        self._thread.join(10)
