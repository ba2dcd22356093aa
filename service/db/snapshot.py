"""One moment of a store, copied while the service runs, and put back.

SQLite: the online backup API of sqlite3, in one step (one read transaction: one moment
of the store; WAL writers go on meanwhile), into a self-contained file (journal mode
DELETE, so no ``-wal`` file has to travel beside it). PostGIS: ``pg_dump -Fc`` of the
database the SQLAlchemy URL names, in a snapshot exported by a REPEATABLE READ
transaction that also counts the tables, so the counts are those of the dump.

The counts and the optional fingerprint (a SHA-256 of each table's rows in a canonical
order) are what a restore checks the restored store against.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, Connection, make_url

from vigia.ingest.errors import VigiaError

T = TypeVar("T")
# PostGIS's own table of reference systems: the extension fills it, not Vigia
_NOT_OURS = ("spatial_ref_sys",)


class BackupError(VigiaError):
    """A backup or restore that cannot go on (the message says why and what to do)."""

    code = "backup"


def tables(conn: Connection) -> list[str]:
    """Vigia's tables (a partitioned table once, not its partitions), sorted."""
    if conn.dialect.name == "postgresql":
        sql = (
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition"
        )
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    return sorted(str(r[0]) for r in conn.execute(text(sql)) if r[0] not in _NOT_OURS)


def counts(conn: Connection) -> dict[str, int]:
    """Rows in each table."""
    return {
        t: int(conn.execute(text(f'SELECT count(*) FROM "{t}"')).scalar() or 0)
        for t in tables(conn)
    }


def schema_version(conn: Connection) -> str | None:
    """The Alembic revision the store is at (None: never migrated)."""
    if "alembic_version" not in tables(conn):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def fingerprint(conn: Connection) -> dict[str, str]:
    """A SHA-256 of each table's rows, each row as canonical JSON, sorted: equal when the
    tables hold the same rows, whatever their physical order. Reads every row."""
    out = {}
    for t in tables(conn):
        rows = sorted(
            json.dumps(list(r), default=str, sort_keys=True)
            for r in conn.execute(text(f'SELECT * FROM "{t}"'))
        )
        digest = hashlib.sha256()
        for row in rows:
            digest.update(row.encode())
            digest.update(b"\n")
        out[t] = digest.hexdigest()
    return out


def sqlite_snapshot(db_file: Path, out: Path, inside: Callable[[Connection], T]) -> T:
    """Copy the SQLite store at ``db_file`` to ``out`` as of one moment; ``inside`` is
    called on the copy (its counts are then those of the copy)."""
    if not db_file.is_file():
        raise BackupError(f"no SQLite store at {db_file}")
    tmp = out.with_name(out.name + ".tmp")
    src = sqlite3.connect(db_file, timeout=30)
    try:
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst)  # pages=-1: one step, so one read transaction, one moment
            # a file that needs no -wal beside it
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
    finally:
        src.close()
    _durable(tmp)
    os.replace(tmp, out)
    engine = create_engine(f"sqlite:///{out}")
    try:
        with engine.connect() as conn:
            return inside(conn)
    finally:
        engine.dispose()


def libpq(url: str) -> tuple[str, dict[str, str]]:
    """The libpq connection string of a SQLAlchemy URL (``postgresql+psycopg://`` is not
    one) without its password, and the environment carrying it (PGPASSWORD): a password
    on a command line is visible to every user of the machine."""
    parsed = make_url(url)
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    plain: URL = parsed.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def pg_tool(name: str) -> str:
    """A PostgreSQL client program: on PATH, else the newest under /usr/lib/postgresql."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not candidates:
        raise BackupError(f"{name} is not installed (Debian: apt-get install postgresql-client)")
    return candidates[-1]


def _run(argv: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"{Path(argv[0]).name} failed: {done.stderr.strip()[-2000:]}")


def pg_snapshot(url: str, out: Path, inside: Callable[[Connection], T]) -> T:
    """``pg_dump -Fc`` of the database at ``url`` into ``out``, in one snapshot shared
    with ``inside`` (which reads the counts of what is dumped)."""
    conninfo, env = libpq(url)
    engine = create_engine(url)
    tmp = out.with_name(out.name + ".tmp")
    try:
        with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn:
            snap = conn.execute(text("SELECT pg_export_snapshot()")).scalar()
            found = inside(conn)
            # the transaction stays open until pg_dump is done: the snapshot lives with it
            argv = [pg_tool("pg_dump"), "-Fc", f"--snapshot={snap}", "-f", str(tmp)]
            _run([*argv, "-d", conninfo], env)
            conn.rollback()
    finally:
        engine.dispose()
    _durable(tmp)
    os.replace(tmp, out)
    return found


def _admin_url(url: str) -> tuple[str, str]:
    parsed = make_url(url)
    name = parsed.database
    if not name:
        raise BackupError("DATABASE_URL names no database")
    return parsed.set(database="postgres").render_as_string(hide_password=False), name


def pg_state(url: str) -> str:
    """``missing``, ``empty`` (no table of Vigia's) or ``used``."""
    admin, name = _admin_url(url)
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            exists = conn.execute(
                text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}
            ).first()
    finally:
        engine.dispose()
    if not exists:
        return "missing"
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return "used" if tables(conn) else "empty"
    finally:
        engine.dispose()


def pg_prepare(url: str, aside: str | None) -> None:
    """Create the database ``url`` names; with ``aside``, first rename the one there to
    that name (nothing is dropped)."""
    admin, name = _admin_url(url)
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            if aside is not None:
                conn.execute(text(f'ALTER DATABASE "{name}" RENAME TO "{aside}"'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()


def pg_load(url: str, dump: Path) -> None:
    """``pg_restore`` a dump into the (new, empty) database at ``url``: one transaction,
    stopped at the first error; owners and grants are the restoring user's."""
    conninfo, env = libpq(url)
    argv = [pg_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error"]
    _run([*argv, "--single-transaction", "-d", conninfo, str(dump)], env)


def pg_list(dump: Path) -> None:
    """Check that ``pg_restore`` can read the dump's table of contents."""
    _run([pg_tool("pg_restore"), "--list", str(dump)], dict(os.environ))


def _durable(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def on(url: str, read: Callable[[Connection], T], **engine_args: Any) -> T:
    """``read`` on a connection to ``url`` (a short-lived engine)."""
    engine = create_engine(url, **engine_args)
    try:
        with engine.connect() as conn:
            return read(conn)
    finally:
        engine.dispose()
