"""The store's side of an archive run: one UTC day of stored positions streamed out as
the archive's Arrow tables, counted as they pass.

Separate from ``archive`` (which decides what moves and when, and drops the day) because
this is only about getting rows out fast: SQLite's rows fetched in row groups, PostGIS's
through COPY as CSV parsed by Arrow, so a row never becomes a Python object there.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.csv as csv
from sqlalchemy import text
from sqlalchemy.engine import Engine

from vigia.service.db.archive_format import (
    DAY_S,
    ROW_GROUP,
    STORE_TYPES,
    table_from_arrow,
    table_from_columns,
)
from vigia.service.db.codec import POSITION_COLUMNS

_COLS = ", ".join(POSITION_COLUMNS)
_READ_DAY = text(f"SELECT {_COLS} FROM positions WHERE t >= :lo AND t < :hi ORDER BY mmsi, t")


class DayRead:
    """One day's stored positions as archive tables, counted as they stream by."""

    def __init__(self, engine: Engine, day: int, skip: set[tuple[int, float]] | None) -> None:
        self._engine = engine
        self._day = day
        self._skip = skip
        self.stored = 0

    def tables(self) -> Iterator[pa.Table]:
        if self._engine.dialect.name == "postgresql":
            yield from self._copied()
            return
        params = {"lo": self._day * DAY_S, "hi": (self._day + 1) * DAY_S}
        with self._engine.connect() as conn:
            result = conn.execution_options(stream_results=True).execute(_READ_DAY, params)
            while rows := result.fetchmany(ROW_GROUP):
                self.stored += len(rows)
                if self._skip is not None:
                    rows = [r for r in rows if (r[0], r[1]) not in self._skip]
                if rows:
                    columns = zip(*rows, strict=True)
                    yield table_from_columns(dict(zip(POSITION_COLUMNS, columns, strict=True)))

    def _copied(self) -> Iterator[pa.Table]:
        """PostGIS: the day as CSV through COPY, parsed by Arrow's reader: a row never
        becomes a Python object (three times the rate of fetching rows)."""
        lo, hi = float(self._day * DAY_S), float((self._day + 1) * DAY_S)
        sql = (
            f"COPY (SELECT {_COLS} FROM positions WHERE t >= {lo!r} AND t < {hi!r} "
            "ORDER BY mmsi, t) TO STDOUT (FORMAT csv)"
        )
        with self._engine.connect() as conn:
            raw = conn.connection.driver_connection
            assert raw is not None
            with raw.cursor() as cur, cur.copy(sql) as copy:
                source = _CopyFile(copy)
                if source.empty():  # Arrow refuses an empty CSV
                    return
                pending: list[pa.RecordBatch] = []
                rows = 0
                for batch in csv.open_csv(source, **_CSV):
                    pending.append(batch)
                    rows += batch.num_rows
                    if rows >= ROW_GROUP:
                        yield self._table(pa.Table.from_batches(pending))
                        pending, rows = [], 0
                if pending:
                    yield self._table(pa.Table.from_batches(pending))

    def _table(self, tab: pa.Table) -> pa.Table:
        self.stored += tab.num_rows
        if self._skip is not None:
            pairs = zip(tab.column("mmsi").to_pylist(), tab.column("t").to_pylist(), strict=True)
            tab = tab.filter(pa.array([p not in self._skip for p in pairs], pa.bool_()))
        return table_from_arrow(tab)


# PostgreSQL's CSV: NULL is an empty unquoted field, an empty text is "", booleans t/f
_CSV: dict[str, Any] = {
    "read_options": csv.ReadOptions(column_names=list(STORE_TYPES), block_size=8 << 20),
    "convert_options": csv.ConvertOptions(
        column_types=STORE_TYPES,
        true_values=["t"],
        false_values=["f"],
        strings_can_be_null=True,
        quoted_strings_can_be_null=False,
    ),
}


class _CopyFile(io.RawIOBase):
    """A COPY TO STDOUT stream as a readable file (what Arrow's CSV reader takes)."""

    def __init__(self, copy: Any) -> None:
        self._blocks = iter(copy)
        self._left = b""

    def readable(self) -> bool:
        return True

    def empty(self) -> bool:
        """Whether the stream has no byte at all (reads its first block)."""
        if not self._left:
            block = next(self._blocks, None)
            self._left = b"" if block is None else bytes(block)
        return not self._left

    def readinto(self, buf: Any) -> int:
        # fill the whole buffer: a COPY block is one row, and the reader asks for
        # megabytes at a time (a buffer per row would cost a buffer's allocation each)
        view = memoryview(buf).cast("B")
        filled = 0
        while filled < len(view):
            if not self._left:
                block = next(self._blocks, None)
                if block is None:
                    break
                self._left = bytes(block)
            n = min(len(view) - filled, len(self._left))
            view[filled : filled + n] = self._left[:n]
            self._left = self._left[n:]
            filled += n
        return filled
