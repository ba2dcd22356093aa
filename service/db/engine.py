"""Engine creation for both stores and the programmatic Alembic upgrade."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def make_engine(url: str) -> Engine:
    """An engine for a ``sqlite:///`` or ``postgresql+psycopg://`` URL."""
    if url.startswith("sqlite"):
        # a file cannot drop a connection, so no pre-ping (a SELECT 1 per checkout); the
        # pool holds as many connections as the API's worker threads use at once: an
        # overflow connection is opened, given its pragmas and closed for every checkout
        # past the pool, which under 250 streams was a tenth of the service's CPU
        in_memory = url in ("sqlite://", "sqlite:///") or ":memory:" in url
        pool: dict[str, Any] = {} if in_memory else {"pool_size": 40, "max_overflow": 20}
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, **pool
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=5,
        max_overflow=5,
        connect_args={
            # a dead server must fail fast so the writer can buffer and back off
            "connect_timeout": 5,
            # psycopg prepares a statement after its fifth run, and PostgreSQL may then
            # keep one generic plan for every parameter: for a lead page in a box it
            # guessed one lead in the box and re-read the newest 2,020 for each of the
            # 4,770 there (a page went from 15 ms to 2.7 s at 10,000 leads; caseload.md).
            # Plans follow each call's parameters instead
            "options": "-c plan_cache_mode=force_custom_plan",
        },
    )


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # takes effect only on a new, empty file: then the archive's batched deletes can
    # hand freed pages back with PRAGMA incremental_vacuum (service/db/archive.py)
    cur.execute("PRAGMA auto_vacuum=INCREMENTAL")
    # WAL lets the API read while the worker writes; NORMAL is durable enough with WAL
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def alembic_config() -> Config:
    """An Alembic config pointing at the packaged migrations (no ini file needed)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def migrate(engine: Engine) -> None:
    """Upgrade the schema to the newest revision; a no-op when it is already there."""
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
