"""`vigia decode FILE ...`: one JSON object per decoded message (docs/contract.md, section 4)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vigia.ingest.batch import BatchIngestor
from vigia.ingest.counters import IngestCounters
from vigia.ingest.csv_import import read_csv
from vigia.ingest.errors import IngestError
from vigia.ingest.jsonout import record_to_json
from vigia.ingest.progress import progress_blocks
from vigia.ingest.records import Record
from vigia.ingest.sources import FileSource


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "decode",
        help="decode AIS (NMEA files, '-' for stdin, or DMA/NOAA CSV) to JSON lines",
        description=(
            "Decode AIS NMEA files (plain or .gz; '-' reads standard input) or CSV exports "
            "(.csv: Danish Maritime Authority or NOAA MarineCadastre) and write one JSON "
            "object per decoded message to standard output. A summary of what was read "
            "and skipped goes to standard error."
        ),
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=run)


def is_csv(path: str) -> bool:
    """Whether a file is read as a CSV export (by its name)."""
    return path.lower().endswith((".csv", ".csv.gz"))


def run(args: argparse.Namespace) -> int:
    """Decode every file in order; exit 0, or 2 when a file is missing or unreadable."""
    files: list[str] = args.files
    # check every file first so that a typo in the last one writes nothing at all
    for path in files:
        if path != "-" and not Path(path).is_file():
            raise IngestError(f"no such file: {path}")
    ingestor = BatchIngestor()
    csv_counters = IngestCounters()
    write = sys.stdout.write
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    for path in files:
        records: Iterator[Record]
        if is_csv(path):
            records = read_csv(path, counters=csv_counters)
        else:
            src = FileSource(path)
            blocks = progress_blocks(src.text_blocks(), desc=Path(path).name)
            records = ingestor.feed_texts(blocks, src.name)
        for rec in records:
            write(dumps(record_to_json(rec)))
            write("\n")
    ingestor.flush()
    sys.stdout.flush()
    summary = ingestor.counters.summary()
    if csv_counters.lines:
        summary += ("; " if summary else "") + "csv: " + csv_counters.summary()
    print(f"vigia decode: {summary or 'no input'}", file=sys.stderr)
    return 0
