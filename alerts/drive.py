"""The one loop that runs a LeadPipeline over a finite input (``vigia replay``, the
backtest of a draft zone): both must give the leads live detection gives, so neither
keeps a loop of its own."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Record


def drive(pipeline: LeadPipeline, batches: Iterable[Sequence[Record]]) -> Iterator[list[Lead]]:
    """The leads settled after each batch (expired on the stream's own clock, as the
    live worker expires on it), then, once the input ends, those closed by its end and
    every episode still open (``ended_at`` null)."""
    for batch in batches:
        yield pipeline.process(batch)
        yield pipeline.expire(pipeline.stream_time)
    yield pipeline.finish()
