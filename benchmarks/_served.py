"""A real ``vigia serve`` process for the benchmarks that measure it over HTTP."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

KEY = "bench-admin-key-0123456789abcdefghijklmnopqrstu"


@contextmanager
def serve(
    db_url: str, workdir: Path, *, pids: list[int] | None = None, **env_extra: str
) -> Iterator[str]:
    """Start ``vigia serve`` on ``db_url`` (worker off, no bundled zones, ``KEY`` as a
    bootstrap admin key); yield its base URL; stop it. ``pids`` is given the server's
    process id (one process: uvicorn without workers)."""
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = int(s.getsockname()[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
    env |= {
        "DATABASE_URL": db_url,
        "VIGIA_AUTH_BOOTSTRAP_ADMIN_KEY": KEY,
        "VIGIA_LOAD_BUNDLED": "false",
        "VIGIA_INGEST_WORKER": "false",
        "VIGIA_INGEST_SPOOL_DIR": str(workdir / "spool"),
        **env_extra,
    }
    cmd = [sys.executable, "-m", "vigia.service.cli", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--log-level", "warning"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=workdir, env=env)
    if pids is not None:
        pids.append(proc.pid)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            if proc.poll() is not None:
                raise RuntimeError(f"vigia serve exited with {proc.returncode}")
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            raise TimeoutError("vigia serve did not start")
        yield base
    finally:
        proc.terminate()
        proc.wait(30)


def summary(ms: list[float]) -> str:
    """Median, p99 and max of latencies in milliseconds."""
    if not ms:
        return "no samples"
    ordered = sorted(ms)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return (
        f"n={len(ms)} median {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms,"
        f" max {ordered[-1]:.1f} ms"
    )
