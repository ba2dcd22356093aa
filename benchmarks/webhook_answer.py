"""Memory of the service when a webhook receiver answers 200 with a huge body.

Usage: python -m benchmarks.webhook_answer [--mib 400] [--quick]

A receiver on 127.0.0.1 answers every POST with ``200`` and a ``--mib`` MiB body sent
as fast as the client reads it. Two measurements in the same run:

- baseline: a child process posting once with ``httpx`` the way the dispatcher used to
  (``client.post`` reads the whole answer), its peak RSS (``VmHWM``);
- ``vigia serve`` on a fresh SQLite file with one endpoint on that receiver: its RSS
  before one lead event, its peak RSS (``VmHWM``) and RSS once the delivery is recorded,
  and how many bytes the receiver managed to push out before the service hung up.

Prints the figures in MiB and the ratio of the service's growth to the baseline's.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from vigia.alerts.lead import EvidencePoint, Lead
from vigia.service.db.store import open_repository

KEY = "webhook-bench-admin-key-0123456789abcdefghijkl"
MiB = 2**20


def _status(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # kB -> MiB
    raise KeyError(field)


class HugeAnswer:
    """200 with ``size`` bytes of body to every request; counts what it sent."""

    def __init__(self, size: int) -> None:
        self.size, self.sent = size, 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/hook"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                # read the request body too: a socket closed with unread bytes in its
                # receive queue sends RST, and a client still reading the answer (a
                # loaded machine) loses its tail to "connection reset"
                head, _, body = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                while len(body) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    body += chunk
                conn.sendall(f"HTTP/1.1 200 OK\r\ncontent-length: {self.size}\r\n\r\n".encode())
                block, sent = b"\0" * MiB, 0
                while sent < self.size:
                    sent += conn.send(block[: self.size - sent])
                    self.sent = max(self.sent, sent)
                conn.shutdown(socket.SHUT_WR)
                while conn.recv(65536):  # until the client has closed its side
                    pass
            except OSError:
                return


def _lead(lead_id: str) -> Lead:
    t0 = time.time() - 120
    return Lead(
        id=lead_id, mmsi=710_000_001, rule="SEC-PLATFORM", citation="NORMAM-07/DPC 0212 f)",
        zone_id="plat-p50", zone_kind="platform", started_at=t0, ended_at=None,
        min_distance_m=120.0, max_sog_kn=8.5, closest_lon=-40.0, closest_lat=-22.5,
        closest_t=t0 + 60,
        evidence=[EvidencePoint(t0, -40.01, -22.5, 8.5, 90.0, 0, 300.0),
                  EvidencePoint(t0 + 60, -40.0, -22.5, 8.0, 91.0, 0, 120.0)],
        raw_sentences=["!AIVDM,1,1,,A,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"],
        vessel={"name": "NAVIO", "ship_type": 70}, zone_version=1,
    )  # fmt: skip


BASELINE = """
import sys, httpx
r = httpx.post(sys.argv[1], content=b"{}", timeout=120)
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        print(int(line.split()[1]) / 1024, len(r.content))
"""


def baseline(url: str) -> tuple[float, int]:
    run = subprocess.run([sys.executable, "-c", BASELINE, url], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"baseline client failed ({run.returncode}):\n{run.stderr[-3000:]}")
    out = run.stdout.split()
    return float(out[0]), int(out[1])


def service(url: str, workdir: Path) -> dict[str, float]:
    db = workdir / "v.sqlite"
    port = socket.create_server(("127.0.0.1", 0))
    free = int(port.getsockname()[1])
    port.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
    env |= {
        "DATABASE_URL": f"sqlite:///{db}",
        "VIGIA_AUTH_BOOTSTRAP_ADMIN_KEY": KEY,
        "VIGIA_LOAD_BUNDLED": "false",
        "VIGIA_INGEST_WORKER": "false",
        "VIGIA_INGEST_SPOOL_DIR": str(workdir / "spool"),
        "VIGIA_LIVE_POLL_S": "0.2",
        "VIGIA_LIVE_WEBHOOK_TIMEOUT_S": "60",
    }
    cmd = [sys.executable, "-m", "vigia.service.cli", "serve", "--host", "127.0.0.1",
           "--port", str(free), "--log-level", "warning"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=workdir, env=env)
    base = f"http://127.0.0.1:{free}"
    h = {"X-API-Key": KEY}
    try:
        for _ in range(600):  # up to 2 min, as the tests allow: a loaded machine imports slowly
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        r = httpx.post(f"{base}/webhooks", json={"url": url, "allow_private": True}, headers=h)
        hook = r.json()["id"]
        time.sleep(1.0)
        before = _status(proc.pid, "VmRSS")
        hwm_before = _status(proc.pid, "VmHWM")
        repo = open_repository(f"sqlite:///{db}")
        repo.upsert_leads([_lead("L-bench")])
        repo.close()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            page = httpx.get(f"{base}/webhooks/{hook}/deliveries", headers=h).json()
            if page["attempts"]:
                break
            time.sleep(0.2)
        attempt = page["attempts"][0]
        return {
            "rss_before": before,
            "hwm_before": hwm_before,
            "hwm_after": _status(proc.pid, "VmHWM"),
            "rss_after": _status(proc.pid, "VmRSS"),
            "ok": float(attempt["ok"]),
            "ms": float(attempt["duration_ms"]),
        }
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=400, help="size of the receiver's answer")
    ap.add_argument("--quick", action="store_true", help="a 16 MiB answer, for a smoke run")
    args = ap.parse_args()
    size = (16 if args.quick else args.mib) * MiB
    rx = HugeAnswer(size)
    hwm, got = baseline(rx.url)
    print(f"answer: {size / MiB:.0f} MiB")
    print(f"baseline (httpx reads it whole): peak RSS {hwm:.0f} MiB, read {got / MiB:.0f} MiB")
    rx.sent = 0
    with tempfile.TemporaryDirectory() as tmp:
        s = service(rx.url, Path(tmp))
    grew = s["hwm_after"] - s["rss_before"]
    print(
        f"vigia serve: RSS {s['rss_before']:.0f} MiB before the event, peak {s['hwm_after']:.0f}"
        f" MiB (peak before the event {s['hwm_before']:.0f}), {s['rss_after']:.0f} MiB after;"
        f" delivered={bool(s['ok'])} in {s['ms']:.0f} ms; receiver pushed"
        f" {rx.sent / MiB:.1f} MiB before the service hung up"
    )
    print(f"service growth {max(grew, 0):.0f} MiB vs the answer's {size / MiB:.0f} MiB")


if __name__ == "__main__":
    main()
