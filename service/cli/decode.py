"""`vigia decode FILE ...`: one JSON object per decoded message (docs/contract.md, section 4)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from vigia.ingest.counters import IngestCounters
from vigia.ingest.csv_import import read_csv
from vigia.ingest.decoder import Ingestor
from vigia.ingest.errors import IngestError
from vigia.ingest.jsonout import record_to_json
from vigia.ingest.progress import progress_blocks
from vigia.ingest.records import Position, Record, StaticData
from vigia.ingest.sources import FileSource

#: inputs up to this size are decoded line by line: importing the batch decoder (numpy)
#: costs more than it saves below about this much (benchmarks/startup.py; same output,
#: tests/ingest/test_batch_decoder.py)
SMALL_INPUT_BYTES = 256 * 1024


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
    ingestor, feed = _decoder(files)
    csv_counters = IngestCounters()
    write = sys.stdout.write
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    readers: list[Callable[[], Iterable[Record]]] = [
        partial(read_csv, path, counters=csv_counters) if is_csv(path) else partial(feed, path)
        for path in files
    ]
    # the end of the input gives up every group still waiting (a signal report or other
    # member that never came): the complete messages it holds are decoded then, and are
    # written like any other (issue 35: they were counted, then dropped)
    readers.append(ingestor.flush)
    for read in readers:
        for obj in one_per_message(read()):
            write(dumps(obj))
            write("\n")
    sys.stdout.flush()
    summary = ingestor.counters.summary()
    if csv_counters.lines:
        summary += ("; " if summary else "") + "csv: " + csv_counters.summary()
    print(f"vigia decode: {summary or 'no input'}", file=sys.stderr)
    return 0


def one_per_message(records: Iterable[Record]) -> Iterator[dict[str, Any]]:
    """The JSON of each decoded message: a type 19 report gives the decoder a position
    and its static part, written here as the one object the message is (CONTRACT.md
    section 4: one object per decoded message); every other record is one message."""
    held: dict[str, Any] | None = None  # a type 19's position, until its static part
    for rec in records:
        obj = record_to_json(rec)
        if held is not None:
            same = (obj["mmsi"], obj["t"]) == (held["mmsi"], held["t"])
            if type(rec) is StaticData and rec.msg_type == 19 and same:
                yield held | {k: v for k, v in obj.items() if k not in held}
                held = None
                continue
            yield held
            held = None
        if type(rec) is Position and rec.msg_type == 19:
            held = obj
        else:
            yield obj
    if held is not None:
        yield held


def _decoder(files: list[str]) -> tuple[Ingestor, Callable[[str], Iterator[Record]]]:
    """The ingestor for these inputs and how it reads one NMEA file: line by line when
    they are small plain files (same records; no numpy to import), else in blocks."""
    small = sum(
        Path(p).stat().st_size if p != "-" and not p.endswith(".gz") else SMALL_INPUT_BYTES + 1
        for p in files
    )
    if small <= SMALL_INPUT_BYTES:
        ing = Ingestor()
        return ing, lambda path: ing.feed_many(FileSource(path).lines())

    from vigia.ingest.batch import BatchIngestor  # numpy: imported only where it pays

    batch = BatchIngestor()

    def feed(path: str) -> Iterator[Record]:
        src = FileSource(path)
        blocks = progress_blocks(src.text_blocks(), desc=Path(path).name)
        return batch.feed_texts(blocks, src.name)

    return batch, feed
