"""PostgreSQL: positions partitioned by UTC day instead of by month.

A day that leaves the hot window (VIGIA_RETENTION_HOT_DAYS) is archived and its
partition dropped whole: no DELETE, no bloat, no vacuum (issue 24). A month was too
coarse to drop. Each monthly partition is detached, its rows moved into daily
partitions, and it is dropped; the DEFAULT partition stays as it is. SQLite has no
partitions: nothing to do there.

Revision ID: 0008_daily_partitions
Revises: 0006_authorised_vessels
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from alembic import op
from sqlalchemy import text

revision = "0008_daily_partitions"
down_revision = "0007_lead_version"
branch_labels = None
depends_on = None

_COLS = "mmsi, t, msg_type, lon, lat, sog, cog, heading, nav_status, accuracy, source"
_YEARS = range(1990, 2101)  # as PartitionManager: other years stay in DEFAULT


def _is_pg() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def _partitions() -> list[str]:
    rows = op.get_bind().execute(
        text(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = 'positions'::regclass AND c.relname <> 'positions_default'"
        )
    )
    return sorted(str(r[0]) for r in rows)


def _day_range(day: int) -> tuple[str, float, float]:
    lo = day * 86400.0
    return datetime.fromtimestamp(lo, tz=UTC).strftime("positions_d%Y%m%d"), lo, lo + 86400.0


def _month_range(day: int) -> tuple[str, float, float]:
    d = datetime.fromtimestamp(day * 86400.0, tz=UTC)
    nxt = datetime(d.year + d.month // 12, d.month % 12 + 1, 1, tzinfo=UTC)
    lo = datetime(d.year, d.month, 1, tzinfo=UTC).timestamp()
    return f"positions_p{d.year:04d}{d.month:02d}", lo, nxt.timestamp()


def _repartition(old_prefix: str, shape: Callable[[int], tuple[str, float, float]]) -> None:
    # every old partition is detached before any new one is made: a new range may span
    # several old ones (downgrade: a month of days)
    bind = op.get_bind()
    olds = [name for name in _partitions() if name.startswith(old_prefix)]
    for old in olds:
        op.execute(f"ALTER TABLE positions DETACH PARTITION {old}")
    made: set[str] = set()
    for old in olds:
        days = bind.execute(text(f"SELECT DISTINCT floor(t / 86400) FROM {old}"))
        for day in sorted(int(r[0]) for r in days):
            name, lo, hi = shape(day)
            if name not in made and datetime.fromtimestamp(lo, tz=UTC).year in _YEARS:
                op.execute(
                    f"CREATE TABLE IF NOT EXISTS {name} "
                    f"PARTITION OF positions FOR VALUES FROM ({lo!r}) TO ({hi!r})"
                )
                made.add(name)
    for old in olds:
        op.execute(f"INSERT INTO positions ({_COLS}) SELECT {_COLS} FROM {old}")
        op.execute(f"DROP TABLE {old}")


def upgrade() -> None:
    """Move every monthly partition's rows into daily partitions."""
    if _is_pg():
        _repartition("positions_p", _day_range)


def downgrade() -> None:
    """Move every daily partition's rows back into monthly partitions."""
    if _is_pg():
        _repartition("positions_d", _month_range)
