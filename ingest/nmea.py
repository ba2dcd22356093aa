"""NMEA 0183 framing for AIS: checksums, NMEA 4.0 tag blocks and multi-sentence reassembly.

Everything here works on ``str`` and is written for speed: the ingest loop calls it once
per line, so it avoids per-line dicts, regexes and datetime objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from operator import xor

_HEX = frozenset("0123456789ABCDEFabcdef")
#: longest tag-block text kept (IEC 61162-450 source names are a dozen characters)
MAX_TAG_FIELD = 64
# C0 controls, DEL and C1 controls, never legal in NMEA: in a station name shown on a
# terminal, in a log or in an export they act (ESC [2J clears the screen)
_CONTROLS = {c: "\ufffd" for c in (*range(0x20), *range(0x7F, 0xA0))}


def clean_text(value: str) -> str:
    """``value`` with every control character replaced by U+FFFD, cut to
    ``MAX_TAG_FIELD`` characters: what a sender's text may become in a record."""
    return value.translate(_CONTROLS)[:MAX_TAG_FIELD]


def nmea_checksum(body: str) -> int:
    """XOR of the characters of ``body`` (the text between ``!``/``$``/``\\`` and ``*``)."""
    data = body.encode("latin-1")
    if len(data) > 128:
        return reduce(xor, data, 0)
    # Folding one big integer onto itself XORs all bytes in a handful of C-level
    # operations, about twice as fast as reducing byte by byte.
    v = int.from_bytes(data, "little")
    v ^= v >> 512
    v ^= v >> 256
    v ^= v >> 128
    v ^= v >> 64
    v ^= v >> 32
    v ^= v >> 16
    v ^= v >> 8
    return v & 0xFF


def checksum_matches(body: str, hh: str) -> bool:
    """Whether two hex digits ``hh`` are the checksum of ``body``."""
    if len(hh) != 2 or hh[0] not in _HEX or hh[1] not in _HEX:
        return False
    return int(hh, 16) == nmea_checksum(body)


class TagBlockError(ValueError):
    """A tag block that cannot be trusted (bad checksum, malformed field)."""


@dataclass(slots=True, frozen=True)
class TagBlock:
    """The fields of an NMEA 4.0 tag block that ingestion uses."""

    time: float | None = None  # c: as Unix seconds
    station: str | None = None  # s:
    group_num: int = 0  # g: sentence number (0 = no group)
    group_total: int = 0
    group_id: str = ""
    cleaned: bool = False  # s: held control characters or was too long (clean_text)


def parse_tag_block(text: str) -> TagBlock:
    """Parse the inside of ``\\...\\`` (``s:st,c:1700000000,g:1-2-42*hh``).

    ``c:`` is Unix seconds, or milliseconds when it has 13 digits; ``s:`` is cleaned
    (:func:`clean_text`). Raises :class:`TagBlockError` on a bad checksum or a malformed
    field.
    """
    star = text.rfind("*")
    if star < 0:
        raise TagBlockError("tag block without checksum")
    body = text[:star]
    if not checksum_matches(body, text[star + 1 :]):
        raise TagBlockError("tag block checksum mismatch")
    time: float | None = None
    station: str | None = None
    num = total = 0
    group_id = ""
    cleaned = False
    if not body:
        return TagBlock()
    for item in body.split(","):
        key, sep, value = item.partition(":")
        if not sep or len(key) != 1:
            raise TagBlockError(f"malformed tag block field {item!r}")
        if key == "c":
            if not value.isdigit() or not value.isascii():
                raise TagBlockError(f"bad c: value {value!r}")
            if len(value) == 13:
                time = int(value) / 1000.0
            elif len(value) <= 10:
                time = float(int(value))
            else:
                raise TagBlockError(f"bad c: value {value!r}")
        elif key == "s":
            if not value:
                raise TagBlockError("empty s: station")
            station = clean_text(value)
            cleaned = station != value
        elif key == "g":
            parts = value.split("-")
            if len(parts) != 3 or not all(p.isdigit() and p.isascii() for p in parts[:2]):
                raise TagBlockError(f"bad g: value {value!r}")
            num, total = int(parts[0]), int(parts[1])
            if not 1 <= num <= total <= 99 or not parts[2]:
                raise TagBlockError(f"bad g: value {value!r}")
            group_id = parts[2]
    return TagBlock(time, station, num, total, group_id, cleaned)


@dataclass(slots=True)
class Fragment:
    """One line of a multi-line message, already checksum-verified.

    ``payload`` is None for a line that is not AIS but belongs to the message's tag-block
    group (a ``$xxVSI`` signal report): it adds ``extras`` and counts with the message.
    """

    num: int
    payload: str | None
    fill: int
    line: str
    time: float | None  # message time of this line, if it had one
    station: str | None
    received: float = 0.0  # receipt time of the line
    total: int = 1  # the AIS sentence's own fragment count and number (tag groups
    snum: int = 1  # number their lines in the group, which may differ)
    extras: dict[str, float] | None = None


@dataclass(slots=True)
class PendingMessage:
    """Fragments of one message collected so far."""

    total: int
    started: float  # receipt time of the first fragment seen (for the timeout)
    started_t: float | None = None  # its message time, if it had one (replays)
    parts: dict[int, Fragment] = field(default_factory=dict)
    size: int = 0  # characters held, for the byte bound
    feed: str = ""  # the source the message came from (its key's second element)


class Reassembler:
    """Collects fragments of multi-sentence messages, in any order, until complete.

    Fragments are keyed by the caller (tag-block group, or sequence id and channel, always
    within one source and one peer). A key that sees a fragment number it already holds,
    or parts received longer than ``timeout_s`` ago, gives up the parts it held. Memory is
    bounded by ``max_pending`` messages and ``max_bytes`` characters of held lines: beyond
    either, the oldest messages are given up. Given-up messages are returned to the caller,
    which salvages what it can and counts the rest.
    """

    def __init__(
        self, timeout_s: float = 60.0, max_pending: int = 10_000, max_bytes: int = 4 << 20
    ) -> None:
        self.timeout_s = timeout_s
        # a feed of first parts that never complete must not grow memory without bound
        self.max_pending = max_pending
        self.max_bytes = max_bytes
        self.pending: dict[tuple[str, ...], PendingMessage] = {}
        self.bytes = 0
        self.evicted = 0  # messages given up to keep within the bounds

    def add(
        self, key: tuple[str, ...], total: int, frag: Fragment, now: float
    ) -> tuple[list[Fragment] | None, list[PendingMessage]]:
        """Add a fragment; return (the complete parts in order or None, given-up messages)."""
        dropped: list[PendingMessage] = []
        pend = self.pending.get(key)
        if pend is not None and (pend.total != total or frag.num in pend.parts):
            dropped.append(self._pop(key))
            pend = None
        size = len(frag.line)
        if pend is None:
            while self.pending and (
                len(self.pending) >= self.max_pending or self.bytes + size > self.max_bytes
            ):
                dropped.append(self._pop(next(iter(self.pending))))
                self.evicted += 1
            pend = PendingMessage(total, now, frag.time, feed=key[1] if len(key) > 1 else "")
            self.pending[key] = pend
        else:
            while self.bytes + size > self.max_bytes and len(self.pending) > 1:
                oldest = next(iter(self.pending))
                if oldest == key:  # keep the message this line belongs to
                    oldest = next(k for k in self.pending if k != key)
                dropped.append(self._pop(oldest))
                self.evicted += 1
        pend.parts[frag.num] = frag
        pend.size += size
        self.bytes += size
        if len(pend.parts) == total:
            self._pop(key)
            return [pend.parts[i] for i in range(1, total + 1)], dropped
        return None, dropped

    def _pop(self, key: tuple[str, ...]) -> PendingMessage:
        pend = self.pending.pop(key)
        self.bytes -= pend.size
        return pend

    def expire(self, now: float, now_t: float | None = None) -> list[PendingMessage]:
        """Give up messages whose first fragment was received over the timeout ago, or,
        when both carry message times (a replay reads hours in seconds), whose first
        fragment's time is over the timeout before ``now_t``."""
        limit = now - self.timeout_s
        limit_t = None if now_t is None else now_t - self.timeout_s
        stale = [
            k
            for k, p in self.pending.items()
            if p.started < limit
            or (limit_t is not None and p.started_t is not None and p.started_t < limit_t)
        ]
        return [self._pop(k) for k in stale]

    def oldest(self) -> tuple[float, float | None] | None:
        """Receipt and message time of the oldest pending message (insertion order)."""
        for p in self.pending.values():
            return p.started, p.started_t
        return None

    def drain(self) -> list[PendingMessage]:
        """Give up everything pending."""
        out = list(self.pending.values())
        self.pending.clear()
        self.bytes = 0
        return out

    def pending_fragments(self) -> int:
        """Fragments currently waiting for the rest of their message."""
        return sum(len(p.parts) for p in self.pending.values())


def whole_message(ais: list[Fragment]) -> bool:
    """Whether AIS fragments (in line order) make one complete message."""
    n = len(ais)
    return all(p.total == n and p.snum == i for i, p in enumerate(ais, 1))


def complete_messages(ais: list[Fragment]) -> tuple[list[list[Fragment]], int]:
    """The complete messages among a group's AIS lines (in group order), and how many
    lines belong to none."""
    messages: list[list[Fragment]] = []
    run: list[Fragment] = []
    left = 0
    for p in ais:
        if p.snum == 1:
            left += len(run)
            run = [p]
        elif run and p.snum == len(run) + 1 and p.total == run[0].total:
            run.append(p)
        else:
            left += len(run) + 1
            run = []
            continue
        if len(run) == run[0].total:
            messages.append(run)
            run = []
    return messages, left + len(run)
