"""Peak memory of ``vigia serve`` under hostile request bodies (issue 15, item 1).

Usage: python -m benchmarks.hostile_soak [--rounds 3] [--clients 8] [--big-mb 500] [--quick]

Runs ``vigia serve`` as a real process (SQLite in a temporary folder, worker off, a
bootstrap admin key) and reads its resident memory from ``/proc/<pid>/status``
(``VmRSS`` now, ``VmHWM`` the peak so far). Baseline: the RSS after start-up and a few
ordinary requests, measured in the same run. Then, ``--rounds`` times, with ``--clients``
connections at once:

- a ``--big-mb`` MB chunked POST to ``/healthz`` with no key (the issue's 1.2 GB case);
- a 20 MB JSON body to ``/ballast/assess`` with no key (Content-Length declared);
- a 20 MB chunked upload to ``/collections/zones/items`` with the admin key (over the
  5 MB limit);
- a 4.9 MB zone upload (under the limit) full of ``NaN`` with the admin key;
- an upload aborted half-way.

Prints each attack's status codes, bytes the client managed to send before the answer,
and the RSS baseline, peak and growth in MB. Exits 1 if any answer was a 5xx.
``--quick`` (a smoke run): one round of 2 clients, a 20 MB big body; every attack.
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

KEY = "soak-admin-key-" + "x" * 40


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _mem(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        fields[name] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def _post(port: int, path: str, key: str | None, head: str, body_chunks: int, chunk: bytes,
          chunked: bool, abort_after: int | None = None) -> tuple[str, int]:  # fmt: skip
    """Send a POST chunk by chunk until the server answers; (status code, bytes sent)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    lines = f"POST {path} HTTP/1.1\r\nHost: soak\r\nContent-Type: application/json\r\n{head}"
    if key:
        lines += f"X-API-Key: {key}\r\n"
    sock.sendall((lines + "\r\n").encode())
    sent = 0
    frame = (b"%x\r\n" % len(chunk) + chunk + b"\r\n") if chunked else chunk
    try:
        for i in range(body_chunks):
            if abort_after is not None and i >= abort_after:
                sock.close()
                return "aborted", sent
            if select.select([sock], [], [], 0)[0]:
                break
            sock.sendall(frame)
            sent += len(chunk)
        else:
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        answer = sock.recv(4096).decode("latin-1")
    except (BrokenPipeError, ConnectionResetError):
        try:
            answer = sock.recv(4096).decode("latin-1")
        except OSError:
            answer = ""
    finally:
        sock.close()
    parts = answer.split(" ", 2)
    return (parts[1] if len(parts) > 1 else "closed"), sent


def _one(port: int, attack: dict[str, object], codes: Counter[str], sent: list[int],
         lock: threading.Lock) -> None:  # fmt: skip
    code, n = _post(port, **attack)  # type: ignore[arg-type]
    with lock:
        codes[code] += 1
        sent.append(n)


def _attacks(big_mb: int) -> dict[str, dict[str, object]]:
    mb = b" " * 1_000_000
    nan_feature = (
        b'{"type":"Feature","geometry":{"type":"Point","coordinates":[-40,-22]},'
        b'"properties":{"id":"p","kind":"platform","x":[' + b"NaN," * 1_200_000 + b"1]}}"
    )
    return {
        f"{big_mb} MB chunked to /healthz, no key": dict(
            path="/healthz", key=None, head="Transfer-Encoding: chunked\r\n",
            body_chunks=big_mb, chunk=mb, chunked=True,
        ),
        "20 MB JSON to /ballast/assess, no key": dict(
            path="/ballast/assess", key=None, head="Content-Length: 20000000\r\n",
            body_chunks=20, chunk=mb, chunked=False,
        ),
        "20 MB chunked zone upload, admin key": dict(
            path="/collections/zones/items", key=KEY, head="Transfer-Encoding: chunked\r\n",
            body_chunks=20, chunk=mb, chunked=True,
        ),
        f"{len(nan_feature) / 1e6:.1f} MB zone upload of NaN, admin key": dict(
            path="/collections/zones/items", key=KEY,
            head=f"Content-Length: {len(nan_feature)}\r\n",
            body_chunks=1, chunk=nan_feature, chunked=False,
        ),
        "upload aborted half-way, admin key": dict(
            path="/collections/zones/items", key=KEY, head="Content-Length: 4000000\r\n",
            body_chunks=4, chunk=mb, chunked=False, abort_after=2,
        ),
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--big-mb", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.clients, args.big_mb = 1, 2, 20

    work = Path(tempfile.mkdtemp(prefix="vigia-soak-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
    env.pop("DATABASE_URL", None)
    env |= {"VIGIA_AUTH_BOOTSTRAP_ADMIN_KEY": KEY, "VIGIA_INGEST_WORKER": "false",
            "VIGIA_INGEST_SPOOL_DIR": ""}  # fmt: skip
    exe = shutil.which("vigia")
    cmd = [exe] if exe else [sys.executable, "-m", "vigia.service.cli"]
    port = _free_port()
    log = open(work / "serve.log", "w")  # noqa: SIM115 - open for the server's lifetime
    proc = subprocess.Popen(
        [*cmd, "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    failed = False
    try:
        for _ in range(600):  # up to 2 min, as the tests allow: a loaded machine imports slowly
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=1).read()
                break
            except OSError:
                time.sleep(0.2)
        for path in ("/vessels", "/collections/zones/items", "/ballast/lines", "/apikeys"):
            req = urllib.request.Request(base + path, headers={"X-API-Key": KEY})
            urllib.request.urlopen(req, timeout=60).read()
        rss0, _ = _mem(proc.pid)
        print(f"baseline (started, ordinary requests served): RSS {rss0:.0f} MB")
        for name, attack in _attacks(args.big_mb).items():
            codes: Counter[str] = Counter()
            sent: list[int] = []
            lock = threading.Lock()
            t0 = time.monotonic()
            for _ in range(args.rounds):
                threads = [
                    threading.Thread(target=_one, args=(port, attack, codes, sent, lock))
                    for _ in range(args.clients)
                ]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
            rss, hwm = _mem(proc.pid)
            failed |= any(c.startswith("5") for c in codes)
            print(
                f"{name}: statuses {dict(codes)}, client sent at most {max(sent) / 1e6:.1f} MB, "
                f"{time.monotonic() - t0:.1f} s; RSS now {rss:.0f} MB, peak {hwm:.0f} MB"
            )
        ok = urllib.request.urlopen(f"{base}/healthz", timeout=5).status
        rss, hwm = _mem(proc.pid)
        print(f"after: /healthz {ok}; RSS {rss:.0f} MB; peak {hwm:.0f} MB; "
              f"peak over baseline {hwm - rss0:.0f} MB")  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
        tracebacks = (work / "serve.log").read_text().count("Traceback")
        print(f"tracebacks in the server log: {tracebacks}")
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
