"""Alembic environment: runs on the connection ``service.db.engine.migrate`` hands over.

Run from the command line as well: ``alembic -c service/migrations/alembic.ini upgrade head``
with ``DATABASE_URL`` set.
"""

from __future__ import annotations

import os

from alembic import context

# importing the helpers registers GeoAlchemy2's spatial operations on ``op``
from geoalchemy2 import alembic_helpers  # noqa: F401
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection

# an arbitrary constant: migrations from several processes take turns on PostgreSQL
_LOCK_KEY = 7_311_946_021


def _run(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})
    context.configure(connection=connection, target_metadata=None, transaction_per_migration=False)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Migrate the given connection, or one opened from the configured URL."""
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.config.get_main_option("sqlalchemy.url") or os.environ.get("DATABASE_URL")
    if not url:
        raise SystemExit("set DATABASE_URL (or sqlalchemy.url) to migrate from the command line")
    engine = create_engine(url)
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()


run_migrations_online()
