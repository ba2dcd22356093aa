"""Ingest counters: what came in and why each bad line was skipped.

Identity (checked by the property tests): every line fed ends in exactly one outcome,

    lines == blank + not_nmea + bad_tag_block + truncated + bad_checksum + non_ais
             + orphan_fragment + undecodable + unsupported_type + decoded_lines
             + internal_error + pending

where ``pending`` is the fragments still waiting for the rest of their message (0 after
``flush()``). ``sentences`` counts lines that framed as a checksum-valid AIS sentence,
``messages`` complete (reassembled) messages, ``records`` the records produced.
``bad_row`` is used by CSV import only (its ``lines`` are data rows).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

#: the per-line outcomes that are a reason a line was skipped
BAD_REASONS = (
    "not_nmea",
    "bad_tag_block",
    "truncated",
    "bad_checksum",
    "non_ais",
    "orphan_fragment",
    "undecodable",
    "unsupported_type",
)
#: outcome counters whose sum (plus pending fragments) equals ``lines``
OUTCOMES = ("blank", *BAD_REASONS, "decoded_lines", "internal_error")


@dataclass(slots=True)
class IngestCounters:
    """Running totals of one ingest loop."""

    lines: int = 0
    sentences: int = 0
    messages: int = 0
    records: int = 0
    blank: int = 0
    not_nmea: int = 0
    bad_tag_block: int = 0
    truncated: int = 0
    bad_checksum: int = 0
    non_ais: int = 0
    orphan_fragment: int = 0
    undecodable: int = 0
    unsupported_type: int = 0
    decoded_lines: int = 0
    internal_error: int = 0  # a bug in Vigia met by a line; the line is skipped, not fatal
    bad_row: int = 0

    def as_dict(self) -> dict[str, int]:
        """All counters by name."""
        return asdict(self)

    def outcomes(self) -> int:
        """Sum of the per-line outcomes (equals ``lines`` minus pending fragments)."""
        return sum(getattr(self, name) for name in OUTCOMES)

    def summary(self) -> str:
        """One human line: the non-zero counters."""
        return ", ".join(f"{k}={v}" for k, v in self.as_dict().items() if v)
