"""A private, throwaway PostgreSQL cluster (initdb into a temp dir) that a test may stop
and start at will without touching the machine's main server."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.support.pg import unavailable

PG_BIN = Path(os.environ.get("VIGIA_PG_BIN", "/usr/lib/postgresql/15/bin"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PrivateCluster:
    """initdb + pg_ctl on a free port with trust auth; ``stop``/``start`` for fault tests."""

    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="vigia-pg-"))
        self.data = self.base / "data"
        self.port = _free_port()
        # initdb refuses to run as root: run the cluster as the postgres user then
        self._as: list[str] = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.base, pw.pw_uid, pw.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "-N"
        )

    @property
    def url(self) -> str:
        """SQLAlchemy URL of the ``vigia`` database."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/vigia"

    def _run(self, *cmd: str) -> None:
        subprocess.run([*self._as, *cmd], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        opts = (
            f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c shared_buffers=32MB"
        )
        self._run(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", opts,
            "-l", str(self.base / "log"), "-w", "-t", "60", "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast`` aborts open transactions and closes sessions)."""
        self._run(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def create_database(self) -> None:
        """Create the ``vigia`` database with PostGIS."""
        import psycopg

        admin = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("CREATE DATABASE vigia")
        with psycopg.connect(self.url.replace("+psycopg", ""), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION postgis")

    def destroy(self) -> None:
        """Stop if running and delete the cluster."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)


def private_cluster() -> Iterator[PrivateCluster]:
    """A started private cluster with its database, destroyed after (a fixture's body).
    Without ``initdb`` the test is skipped on a developer's machine and fails under CI,
    like every other test that needs PostgreSQL."""
    if not (PG_BIN / "initdb").exists():
        unavailable(f"initdb not found in {PG_BIN}: cannot run a private PostgreSQL")
    cluster = PrivateCluster()
    try:
        cluster.start()
        cluster.create_database()
        yield cluster
    finally:
        cluster.destroy()
