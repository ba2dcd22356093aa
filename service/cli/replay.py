"""`vigia replay`: NMEA files through ingestion and the zone rules, leads as JSON lines."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from itertools import islice
from pathlib import Path
from typing import IO, Any, TypeVar

from vigia.alerts.authorised import AuthorisedRegister, parse_csv
from vigia.alerts.drive import drive
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.batch import BatchIngestor
from vigia.ingest.counters import IngestCounters
from vigia.ingest.csv_import import read_csv
from vigia.ingest.errors import IngestError
from vigia.ingest.progress import progress_blocks
from vigia.ingest.records import Record
from vigia.ingest.sources import REPLAY_HINT, FileSource
from vigia.service.cli.decode import is_csv
from vigia.service.runtime import state_vessels
from vigia.service.runtime.gc_tune import freeze_startup_heap
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex

T = TypeVar("T")
BATCH = 5000
SHOWN = 25  # leads listed in the human summary on stderr


def register(sub: Any) -> None:
    """Add the sub-command to the parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="evaluate NMEA files against zone files and write every lead as JSON lines",
        description=(
            "Reads NMEA files ('-' for standard input) or DMA / NOAA MarineCadastre CSV "
            "exports (.csv, .csv.gz), evaluates them against the zones "
            "(the bundled data/geojson/ when no --zones is given) and writes every lead, "
            "closed or still open at the end, one JSON object per line."
        ),
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="NMEA or CSV file, or - for stdin")
    p.add_argument(
        "--zones",
        action="append",
        metavar="PATH",
        help="zone file or folder of *.geojson (repeatable; default: the bundled zones)",
    )
    p.add_argument(
        "--leads-out", default="-", metavar="OUT.jsonl", help="output file (default: stdout)"
    )
    p.add_argument(
        "--authorised",
        action="append",
        metavar="CSV",
        help="authorised-vessel register (mmsi,zone_id,operator,valid_from,valid_to,note);"
        " repeatable",
    )
    p.add_argument(
        "--state-vessels",
        action="append",
        metavar="CSV",
        help="register of state vessels (mmsi,name,kind,source,valid_from,valid_to,note): a"
        " ship type 35/55 exempts only these; repeatable",
    )
    p.add_argument(
        "--hold-s",
        type=float,
        default=EpisodeConfig().hold_s,
        help="seconds a vessel must be clear before its episode closes (default 600)",
    )
    p.add_argument(
        "--hold-m",
        type=float,
        default=EpisodeConfig().hold_m,
        help="metres beyond the rule distance that count as clear (default 50)",
    )
    p.set_defaults(func=run)


def tune_gc() -> None:
    """Collect the young generation less often during a streaming replay.

    A replay allocates millions of short-lived records; CPython's default of a young
    collection every 700 allocations walks each batch of 5,000 live records many times
    over. Freezing what is loaded (zones, index) and collecting every 50,000 allocations
    gains several percent of replay throughput without holding more memory for long.
    """
    freeze_startup_heap(old=100)


def _batched(items: Iterable[T], n: int) -> Iterator[list[T]]:
    it = iter(items)
    while batch := list(islice(it, n)):
        yield batch


def _write(out: IO[str], leads: list[Lead], seen: list[Lead]) -> int:
    seen.extend(leads[: max(0, SHOWN - len(seen))])
    for lead in leads:
        out.write(json.dumps(lead.to_json(), ensure_ascii=False, separators=(",", ":")))
        out.write("\n")
    return len(leads)


def run(args: argparse.Namespace) -> int:
    """Replay the files; exit 0, or non-zero (via VigiaError) before writing anything."""
    # everything that can refuse the run is checked before the output exists
    zones = load_zones([Path(p) for p in args.zones] if args.zones else [bundled_zones_dir()])
    sources = [FileSource(f) for f in args.files]  # raises on a missing file
    # a CSV whose header matches no known export is refused before anything is written
    for f in args.files:
        if is_csv(f):
            close = getattr(read_csv(f), "close", None)
            if callable(close):
                close()
    if args.leads_out != "-" and not Path(args.leads_out).resolve().parent.is_dir():
        raise IngestError(f"output folder does not exist: {Path(args.leads_out).parent}")
    if args.hold_s < 0 or args.hold_m < 0:
        raise IngestError("--hold-s and --hold-m must be >= 0")
    entries = []
    for path in args.authorised or []:
        try:
            entries += parse_csv(Path(path).read_text(encoding="utf-8-sig"))
        except OSError as exc:
            raise IngestError(f"cannot read {path}: {exc}") from None
    state = [e for path in args.state_vessels or [] for e in state_vessels.read_file(path)]
    index = ZoneIndex(zones)
    tune_gc()
    ingestor = BatchIngestor()
    csv_counters = IngestCounters()
    pipeline = LeadPipeline(
        index,
        ingestor.registry,
        EpisodeConfig(hold_s=args.hold_s, hold_m=args.hold_m),
        register=AuthorisedRegister(entries),
    )
    state_vessels.apply(pipeline, state)
    written = 0
    shown: list[Lead] = []
    with ExitStack() as stack:
        if args.leads_out == "-":
            out: IO[str] = sys.stdout
        else:
            out = stack.enter_context(open(args.leads_out, "w", encoding="utf-8"))

        def batches() -> Iterator[list[Record]]:
            for src in sources:
                records: Iterator[Record]
                if is_csv(src.path):
                    records = read_csv(src.path, counters=csv_counters)
                else:
                    blocks = progress_blocks(src.text_blocks(REPLAY_HINT), desc=src.name)
                    records = ingestor.feed_texts(blocks, src.name)
                yield from _batched(records, BATCH)
            yield ingestor.flush()  # messages still waiting for a fragment

        for leads in drive(pipeline, batches()):
            written += _write(out, leads, shown)
        out.flush()
    counts = dict(ingestor.counters.as_dict())
    counts.update(pipeline.counters)
    summary = ", ".join(f"{k}={v}" for k, v in counts.items())
    print(f"vigia replay: {summary}", file=sys.stderr)
    if csv_counters.lines:
        print(f"vigia replay: csv: {csv_counters.summary()}", file=sys.stderr)
    _warn_untimed(ingestor.counters)
    print(f"vigia replay: {written} leads ({len(zones)} zones)", file=sys.stderr)
    if args.leads_out != "-":
        _print_table(shown, written)
    return 0


def _warn_untimed(c: IngestCounters) -> None:
    """Say so when messages carried no time: they were judged at the moment they were read."""
    if not c.untimed:
        return
    share = "none" if c.untimed >= c.messages else f"{c.messages - c.untimed} of {c.messages}"
    print(
        f"vigia replay: warning: {c.untimed} messages carry no time of their own (no tag "
        f"block c:, USCG trailing time or $PGHP header; {share} had one); they were judged "
        "at the moment they were read, so hours of traffic may look like seconds "
        "(see the 'untimed' counter)",
        file=sys.stderr,
    )


def _print_table(leads: list[Lead], total: int) -> None:
    """A human summary of the first leads on stderr, when the JSON went to a file."""
    if not leads:
        return
    print(
        f"{'rule':<13} {'zone':<28} {'mmsi':>9}  {'started (UTC)':<20} {'min m':>7} {'max kn':>6}",
        file=sys.stderr,
    )
    for lead in leads:
        j = lead.to_json()
        sog = "-" if lead.max_sog_kn is None else f"{lead.max_sog_kn:.1f}"
        print(
            f"{lead.rule:<13} {(lead.zone_id or '-')[:28]:<28} {lead.mmsi:>9}  "
            f"{j['started_at']:<20} {lead.min_distance_m:>7.1f} {sog:>6}",
            file=sys.stderr,
        )
    if total > len(leads):
        print(f"... and {total - len(leads)} more", file=sys.stderr)
