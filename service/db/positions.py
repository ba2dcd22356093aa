"""Batch writes of positions and the latest-position table, for both dialects.

PostGIS: the batch is COPYed into a session temp table, then moved with one
``INSERT ... SELECT ... ON CONFLICT DO NOTHING`` (so a retried batch is idempotent) and one
``DISTINCT ON (mmsi)`` upsert into ``vessel_latest``: three statements per batch, never
one round trip per position. SQLite: two ``executemany`` calls in one transaction.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import psycopg
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from vigia.ingest.records import Position
from vigia.service.db.codec import POSITION_COLUMNS, storable

log = logging.getLogger(__name__)

_COLS = ", ".join(POSITION_COLUMNS)
_UPDATE = ", ".join(f"{c} = EXCLUDED.{c}" for c in POSITION_COLUMNS if c != "mmsi")
# the latest row also keeps when it changed, by the writer's clock (a map's delta)
_LATEST_UPDATE = f"{_UPDATE}, changed_at = EXCLUDED.changed_at"
#: a delta reaches this far back before the newest change it answered: a batch stamped
#: earlier may commit after the read (its transaction was still open)
CHANGE_OVERLAP_S = 5.0
_STAGE = "vigia_pos_stage"
# the stage table's PostgreSQL type of each position column: its DDL and the binary COPY
# both come from here (a new column without a type fails at import)
_STAGE_TYPE = {
    "mmsi": "int8", "t": "float8", "msg_type": "int4", "lon": "float8", "lat": "float8",
    "sog": "float8", "cog": "float8", "heading": "int4", "nav_status": "int4",
    "accuracy": "bool", "source": "text",
}  # fmt: skip
_STAGE_TYPES = [_STAGE_TYPE[c] for c in POSITION_COLUMNS]
_STAGE_DDL = (
    f"CREATE TEMP TABLE IF NOT EXISTS {_STAGE} ("
    + ", ".join(f"{c} {t}" for c, t in zip(POSITION_COLUMNS, _STAGE_TYPES, strict=True))
    + ") ON COMMIT DELETE ROWS"
)
_PARTITION_YEARS = range(1990, 2101)  # anything else goes to the DEFAULT partition


def _copy_rows(copy: psycopg.Copy, positions: Sequence[Position]) -> None:
    """Binary COPY, a row a position: psycopg's C dumpers cost a quarter of the text
    format's formatting (0.6 against 2.3 us a position, client CPU), and nothing needs
    escaping."""
    copy.set_types(_STAGE_TYPES)
    write = copy.write_row
    for p in positions:
        write(
            (p.mmsi, float(p.t), p.msg_type, float(p.lon), float(p.lat), p.sog, p.cog,  # type: ignore[arg-type]
             p.heading, p.nav_status, p.accuracy, p.source)
        )  # fmt: skip


def partition_ddl(day: int) -> str:
    """The DDL of the partition that holds one UTC day (day number since 1970-01-01)."""
    lo, hi = float(day * 86400), float((day + 1) * 86400)
    name = datetime.fromtimestamp(lo, tz=UTC).strftime("positions_d%Y%m%d")
    return (
        f"CREATE TABLE IF NOT EXISTS {name} "
        f"PARTITION OF positions FOR VALUES FROM ({lo!r}) TO ({hi!r})"
    )


class PartitionManager:
    """Creates the daily partitions of ``positions`` on demand (PostgreSQL only): a day
    that leaves the hot window is dropped whole (service/db/archive.py), with no DELETE
    and no bloat."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._known: set[int] = set()

    def ensure(self, times: Sequence[float]) -> None:
        """Make sure every UTC day the times fall in has its partition."""
        for day in sorted({int(t // 86400) for t in times} - self._known):
            year = datetime.fromtimestamp(day * 86400, tz=UTC).year
            if year in _PARTITION_YEARS:
                self._create(day)
            self._known.add(day)

    def _create(self, day: int) -> None:
        try:
            with self._engine.begin() as conn:
                conn.exec_driver_sql(partition_ddl(day))
        except OperationalError:
            raise
        except DBAPIError as exc:
            # a concurrent creator won, or the DEFAULT partition already holds rows of
            # that day (a late report after the day was archived): either way the rows
            # still have a home, so carry on
            log.warning("partition of day %d not created: %s", day, exc.orig)


def write_positions_pg(conn: Connection, positions: Sequence[Position]) -> int:
    """COPY a batch into the stage table and move it on; returns new rows stored."""
    # every time: a flag cached per connection would lie after a rolled-back batch
    conn.exec_driver_sql(_STAGE_DDL)
    raw = conn.connection.driver_connection
    assert raw is not None
    with raw.cursor() as cur:
        with cur.copy(f"COPY {_STAGE} ({_COLS}) FROM STDIN (FORMAT BINARY)") as copy:
            _copy_rows(copy, positions)
        # a plain INSERT is a third cheaper than ON CONFLICT; duplicates are rare (a batch
        # retried after a lost commit, a report heard twice), so try it first
        cur.execute("SAVEPOINT vigia_positions")
        try:
            cur.execute(f"INSERT INTO positions ({_COLS}) SELECT {_COLS} FROM {_STAGE}")
        except psycopg.errors.UniqueViolation:
            cur.execute("ROLLBACK TO SAVEPOINT vigia_positions")
            cur.execute(
                f"INSERT INTO positions ({_COLS}) SELECT {_COLS} FROM {_STAGE} "
                "ON CONFLICT (mmsi, t) DO NOTHING"
            )
        written = int(cur.rowcount)
        cur.execute(
            f"INSERT INTO vessel_latest ({_COLS}, changed_at) "
            f"SELECT DISTINCT ON (mmsi) {_COLS}, %s FROM {_STAGE} ORDER BY mmsi, t DESC "
            f"ON CONFLICT (mmsi) DO UPDATE SET {_LATEST_UPDATE} WHERE vessel_latest.t < EXCLUDED.t",
            (time.time(),),
        )
    return written


def write_positions_sqlite(conn: Connection, positions: Sequence[Position]) -> int:
    """Insert a batch with two executemany calls; returns new rows stored."""
    rows = [
        (
            p.mmsi,
            p.t,
            p.msg_type,
            p.lon,
            p.lat,
            p.sog,
            p.cog,
            p.heading,
            p.nav_status,
            p.accuracy,
            p.source,
        )
        for p in positions
    ]
    marks = ", ".join("?" for _ in POSITION_COLUMNS)
    cur = conn.exec_driver_sql(f"INSERT OR IGNORE INTO positions ({_COLS}) VALUES ({marks})", rows)
    written = int(cur.rowcount)
    newest: dict[int, tuple[Any, ...]] = {}
    for row in rows:
        seen = newest.get(row[0])
        if seen is None or row[1] > seen[1]:
            newest[row[0]] = row
    now = time.time()
    conn.exec_driver_sql(
        f"INSERT INTO vessel_latest ({_COLS}, changed_at) VALUES ({marks}, ?) "
        f"ON CONFLICT (mmsi) DO UPDATE SET {_LATEST_UPDATE} WHERE vessel_latest.t < EXCLUDED.t",
        [(*row, now) for row in newest.values()],
    )
    return written


def storable_positions(positions: Sequence[Position]) -> list[Position]:
    """The positions that can be stored (a location, in range)."""
    return [p for p in positions if storable(p)]


def box_condition(pg: bool) -> str:
    """The inclusive bbox test on ``lon``/``lat`` each dialect can index (PostGIS the
    GiST on ``geom``, SQLite the lon/lat B-tree), bound as ``:min_lon`` ... ``:max_lat``."""
    if pg:
        return "geom && ST_MakeEnvelope(:min_lon, :min_lat, :max_lon, :max_lat, 4326)"
    return "lon BETWEEN :min_lon AND :max_lon AND lat BETWEEN :min_lat AND :max_lat"


def box_params(bbox: Sequence[float]) -> dict[str, float]:
    """A (min_lon, min_lat, max_lon, max_lat) box as :func:`box_condition`'s parameters."""
    return dict(zip(("min_lon", "min_lat", "max_lon", "max_lat"), bbox, strict=True))


def latest_sql(pg: bool, bbox: bool, since: bool = False) -> Any:
    """The latest-positions query, with a bbox filter the dialect can index and, for a
    map's delta, only the vessels whose row changed at or after ``:since`` (the writer's
    clock, ``changed_at``)."""
    conds = [box_condition(pg)] if bbox else []
    if since:
        conds.append("changed_at >= :since")
    where = f"WHERE {' AND '.join(conds)}" if conds else ""
    return text(
        f"SELECT {_COLS}, changed_at FROM vessel_latest {where} "
        "ORDER BY mmsi LIMIT :limit OFFSET :offset"
    )


def latest_points_sql(pg: bool, bbox: bool) -> Any:
    """Only the coordinates of each vessel's latest position (a map's clusters count
    them; every column of 100,000 rows would cost ten times the read)."""
    conds = ["lon IS NOT NULL", "lat IS NOT NULL", *([box_condition(pg)] if bbox else [])]
    return text(f"SELECT lon, lat FROM vessel_latest WHERE {' AND '.join(conds)}")


def track_sql(paged: bool = False) -> Any:
    """One vessel's positions between two times, oldest first (a page of them: ``:limit``
    rows from ``:offset``)."""
    page = " LIMIT :limit OFFSET :offset" if paged else ""
    return text(
        f"SELECT {_COLS} FROM positions WHERE mmsi = :mmsi AND t >= :start AND t <= :end "
        f"ORDER BY t{page}"
    )
