"""Cell indexes for archive files that have none: days archived before the index
existed, or whose index was lost (a kill between a part's rename and its index's, a
restore from a backup, which copies the parts only). A backtest reads such a day by
scanning it, with the same answer (``backtest_read``); writing its index once makes it
as quick as the rest. Run by ``vigia archive --index``, under the archive's lock.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa

from vigia.service.db import archive_cells as cells
from vigia.service.db.archive_entries import open_regular
from vigia.service.db.archive_files import ArchiveFolder, ArchiveGaps, fragment

_COLUMNS = ["mmsi", "t", "geometry", "bbox"]


@dataclass(frozen=True, slots=True)
class Indexed:
    """One archive file whose index was written (``index`` None: it could not be)."""

    day: int
    part: Path
    positions: int
    index: Path | None


def _has_index(part: Path, rows: int, size: int) -> bool:
    try:
        with open_regular(cells.index_path(part)) as fh:
            return cells.query(fh, part.name, rows, size, [], 0.0, 0.0) is not None
    except (OSError, pa.ArrowException, ValueError):  # missing, not a file, not Parquet
        return False


def _index(part: Path, fh: BinaryIO) -> tuple[int, Path | None] | None:
    frag = fragment(fh)
    rows = frag.metadata.num_rows
    if _has_index(part, rows, os.fstat(fh.fileno()).st_size):
        return None
    indexer = cells.CellIndexer()
    for batch in frag.to_batches(columns=_COLUMNS):  # a day never whole in memory
        indexer.add(pa.Table.from_batches([batch]))
    return rows, indexer.write(part, rows)


def index_missing(folder: ArchiveFolder, gaps: ArchiveGaps | None = None) -> list[Indexed]:
    """Write the index of every readable part under ``folder`` that has no usable one;
    a bad part is handled as any read handles it (moved aside, its day in ``gaps``)."""
    gaps = ArchiveGaps() if gaps is None else gaps
    done = []
    for day, path in folder.files(None, None, gaps):
        got = folder.read(day, path, partial(_index, path), gaps)
        if got is not None:
            done.append(Indexed(day, path, got[0], got[1]))
    return done
