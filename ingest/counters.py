"""Ingest counters: what came in and why each bad line was skipped.

Identity (checked by the property tests): every line fed ends in exactly one outcome,

    lines == blank + too_long + not_nmea + bad_tag_block + truncated + bad_checksum
             + orphan_fragment + undecodable + time_stale + bad_mmsi + non_ais
             + unsupported_type + decoded_lines + internal_error + pending

where ``pending`` is the fragments still waiting for the rest of their message (0 after
``flush()``). ``sentences`` counts lines that framed as a checksum-valid AIS sentence,
``messages`` complete (reassembled) messages, ``records`` the records produced.
``bad_row`` is used by CSV import only (its ``lines`` are data rows). ``bad_mmsi`` counts
the lines of messages (or CSV rows) that decode but whose MMSI is no station's identity
(:func:`vigia.ingest.mmsi.is_valid_mmsi`): they are skipped, never stored.

Two kinds of skipped line are kept apart: ``BAD_REASONS`` are errors (garbage, damage,
a refused clock, a sender with no valid identity), ``NOT_USED`` is normal traffic Vigia
has no use for (valid NMEA that is not AIS, such as a receiver's GPS fixes, and valid AIS
types no rule judges: 6, 7, 8, ...), so that an alert on the error rate does not fire on
a healthy feed.

Side counts (not line outcomes): ``untimed`` messages timed by their receipt because they
carried no time of their own; ``time_ahead`` messages whose time was too far ahead of their
receipt and was clamped to it; ``tag_cleaned`` lines whose tag-block station (``s:``) held
control characters (replaced by U+FFFD) or ran over ``MAX_TAG_FIELD`` characters (cut);
``pending_evicted`` incomplete messages given up to keep the reassembly buffer within its
bounds (their lines are in ``orphan_fragment``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

#: the per-line outcomes that are an error: why a line that should have been used was not
BAD_REASONS = (
    "too_long",
    "not_nmea",
    "bad_tag_block",
    "truncated",
    "bad_checksum",
    "orphan_fragment",
    "undecodable",
    "time_stale",
    "bad_mmsi",
)
#: the per-line outcomes of valid traffic that Vigia does not use
NOT_USED = ("non_ais", "unsupported_type")
#: outcome counters whose sum (plus pending fragments) equals ``lines``
OUTCOMES = ("blank", *BAD_REASONS, *NOT_USED, "decoded_lines", "internal_error")


@dataclass(slots=True)
class IngestCounters:
    """Running totals of one ingest loop."""

    lines: int = 0
    sentences: int = 0
    messages: int = 0
    records: int = 0
    blank: int = 0
    too_long: int = 0
    not_nmea: int = 0
    bad_tag_block: int = 0
    truncated: int = 0
    bad_checksum: int = 0
    non_ais: int = 0
    orphan_fragment: int = 0
    undecodable: int = 0
    unsupported_type: int = 0
    time_stale: int = 0
    bad_mmsi: int = 0
    decoded_lines: int = 0
    internal_error: int = 0  # a bug in Vigia met by a line; the line is skipped, not fatal
    bad_row: int = 0
    untimed: int = 0
    time_ahead: int = 0
    tag_cleaned: int = 0
    pending_evicted: int = 0

    def as_dict(self) -> dict[str, int]:
        """All counters by name."""
        return asdict(self)

    def outcomes(self) -> int:
        """Sum of the per-line outcomes (equals ``lines`` minus pending fragments)."""
        return sum(getattr(self, name) for name in OUTCOMES)

    def summary(self) -> str:
        """One human line: the non-zero counters."""
        return ", ".join(f"{k}={v}" for k, v in self.as_dict().items() if v)
