"""The worker's bookkeeping: counters under the names the API shows, the writer's
statistics, and handing positions to the writer only when it has room."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable

from vigia.ingest.counters import BAD_REASONS, NOT_USED
from vigia.ingest.records import Position
from vigia.service.runtime.writer import BufferedWriter, position_bytes

#: the writer's cumulative counts, under the names the counters endpoint shows
WRITER_COUNTERS = {
    "written": "positions_stored",
    "dropped": "positions_dropped",
    "written_vessels": "vessels_stored",
    "written_leads": "lead_writes",
    "rejected": "records_rejected",
    "retries": "store_retries",
    "recovered": "spool_recovered",
    "spool_errors": "spool_errors",
    "spool_torn": "spool_torn",
}


def submit_when_room(
    writer: BufferedWriter, positions: list[Position], give_up_at: float | None
) -> None:
    """Hand ``positions`` to the writer, waiting for room rather than letting it drop
    what was accepted: a replay then runs at the store's pace, and a live feed backs up
    into the queue and its socket; only a stop that has run out of time (``give_up_at``,
    monotonic) gives up, and the writer counts the drop."""
    stats = writer.stats()
    bound = int(stats.get("bound", 0)) or len(positions)
    bound_bytes = int(stats.get("bound_bytes", 0))
    for i in range(0, len(positions), bound):
        chunk = positions[i : i + bound]
        size = sum(map(position_bytes, chunk)) if bound_bytes else 0
        while give_up_at is None or time.monotonic() < give_up_at:
            stats = writer.stats()
            if int(stats.get("buffered", 0)) + len(chunk) <= bound and (
                not bound_bytes
                or int(stats.get("buffered_bytes", 0)) + size <= bound_bytes
                or not int(stats.get("buffered", 0))  # alone it must fit, or drop
            ):
                break
            time.sleep(0.02)
        writer.submit_positions(chunk)


def shed_counts(sources: Iterable[object]) -> Counter[str]:
    """Lines and datagrams the network sources refused before queueing, by reason."""
    total: Counter[str] = Counter()
    for source in sources:
        counts = getattr(source, "counts", None)
        if isinstance(counts, Counter):
            total.update(counts)
    return total


def split_counters(raw: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """Lines by result and decode errors by reason, from the Ingestor's counters."""
    by_reason = {k: int(raw.get(k, 0)) for k in BAD_REASONS}
    by_result = {
        "decoded": int(raw.get("decoded_lines", 0)),
        "blank": int(raw.get("blank", 0)),
        "not_used": sum(int(raw.get(k, 0)) for k in NOT_USED),
        "error": sum(by_reason.values()),
    }
    return by_result, by_reason
