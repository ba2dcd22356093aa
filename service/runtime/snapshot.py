"""What the worker reports about itself; the HTTP metrics read it at scrape time."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class IngestSnapshot:
    """What the worker has done so far (cumulative counts) and how far behind it is."""

    sentences_by_result: dict[str, int] = field(default_factory=dict)
    decode_errors_by_reason: dict[str, int] = field(default_factory=dict)
    positions_stored: int = 0
    positions_dropped: int = 0
    store_connected: bool = True
    vessels_stored: int = 0
    leads_by_rule: dict[str, int] = field(default_factory=dict)
    ingest_lag_s: float | None = None
    last_message_age_s: float | None = None
    buffered: int = 0
    running: bool = False
    not_used_by_reason: dict[str, int] = field(default_factory=dict)
    shed_by_reason: dict[str, int] = field(default_factory=dict)
    behind_s: float = 0.0  # how long the line being processed waited after receipt
    queued_lines: int = 0
