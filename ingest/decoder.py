"""The ingest loop: raw lines in, typed records out, every bad line counted and skipped."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from vigia.ingest.ais import Undecodable, UnsupportedType, decode_payload
from vigia.ingest.counters import IngestCounters
from vigia.ingest.mmsi import is_valid_mmsi
from vigia.ingest.nmea import (
    Fragment,
    PendingMessage,
    Reassembler,
    TagBlock,
    TagBlockError,
    complete_messages,
    nmea_checksum,
    parse_tag_block,
    whole_message,
)
from vigia.ingest.records import Position, RawLine, Record, StaticData
from vigia.ingest.registry import VesselRegistry
from vigia.ingest.sidecar import pghp_time, uscg_trailer, vsi_extras

_HEXVAL = {
    a + b: int(a + b, 16) for a in "0123456789ABCDEFabcdef" for b in "0123456789ABCDEFabcdef"
}
_AIS_TYPES = frozenset(("VDM", "VDO"))
_SMALL = {str(i): i for i in range(10)}
# every 4096 lines pending fragments are also checked against the timeout in message
# time (a replay reads hours in seconds; see Reassembler.expire)
_EXPIRE_MASK = 4095
_TAG_CACHE = 1024  # parsed tag blocks kept (cleared whole when full)
#: longest line accepted: NMEA's 82 characters, a tag block (ORBCOMM's run to ~70) and
#: USCG trailing fields (~90), with generous slack; a longer line is refused unread
MAX_LINE_CHARS = 1024
#: how far ahead of its receipt a message may say it was sent (receiver clocks drift)
MAX_AHEAD_S = 300.0
_RX_STEP = 1e-6  # receipt times of lines read together are spread by this much


class Ingestor:
    """Turns raw NMEA lines into records; never raises on anything in the input.

    A message's time is, in order: its tag block's ``c:``, the USCG trailing time, the
    ``$PGHP`` header before it, else its receipt time (counted as ``untimed``). A message
    time more than ``max_ahead_s`` after its receipt is clamped to the receipt time
    (``time_ahead``); with ``max_behind_s`` (live feeds) one older than that is refused
    (``time_stale``). A replay leaves ``max_behind_s`` unset and keeps historical times.
    """

    def __init__(
        self,
        registry: VesselRegistry | None = None,
        *,
        fragment_timeout_s: float = 60.0,
        max_pending_messages: int = 10_000,
        max_pending_bytes: int = 4 << 20,
        max_line_chars: int = MAX_LINE_CHARS,
        max_ahead_s: float = MAX_AHEAD_S,
        max_behind_s: float | None = None,
        historical_sources: Iterable[str] = (),
    ) -> None:
        self.registry = registry if registry is not None else VesselRegistry()
        self.counters = IngestCounters()
        self.fragment_timeout_s = fragment_timeout_s
        self.max_line_chars = max_line_chars
        self.max_ahead_s = max_ahead_s
        self.max_behind_s = max_behind_s
        self.historical_sources = frozenset(historical_sources)  # exempt from max_behind_s
        self._reasm = Reassembler(fragment_timeout_s, max_pending_messages, max_pending_bytes)
        # a station stamps every message of one second with the same tag block, so a
        # small cache of parsed blocks saves most of the parsing on a live feed
        self._tags: dict[str, TagBlock] = {}
        self._last_rx = float("-inf")
        self._header: dict[tuple[str, str], float] = {}  # $PGHP time per feed and peer
        self._dups: dict[str, float] = {}  # untimed payloads of the current read -> time
        self._dups_read = float("nan")
        # when the oldest pending message times out in receipt time: one comparison per
        # line finds it, so a group that never completes is decoded by the first line
        # received after its timeout, not thousands of lines later. Not in message time:
        # satellite feeds interleave reports tens of minutes apart, and a group must not
        # be given up because a single report between its lines is "later"
        self._due_rx = math.inf

    def feed(self, line: RawLine) -> list[Record]:
        """Ingest one line; return the records it completes (often one, maybe none)."""
        return self._feed(line.text, line.received_at, line.source, line.peer) or []

    def feed_many(self, lines: Iterable[RawLine]) -> Iterator[Record]:
        """Ingest lines as they come, yielding records as messages complete."""
        feed = self._feed
        for line in lines:
            recs = feed(line.text, line.received_at, line.source, line.peer)
            if recs:
                yield from recs

    def flush(self) -> list[Record]:
        """End of input: decode what can be salvaged, count the rest as orphans."""
        out = self._give_up(self._reasm.drain()) or []
        self._arm()
        return out

    @property
    def pending_fragments(self) -> int:
        """Fragments waiting for the rest of their message."""
        return self._reasm.pending_fragments()

    def _feed(self, text: str, received_at: float, source: str, peer: str) -> list[Record] | None:
        c = self.counters
        c.lines += 1
        try:
            if len(text) > self.max_line_chars:
                c.too_long += 1
                return None
            line = text.strip()
            if not line:
                c.blank += 1
                return None
            if not line.isascii():
                c.not_nmea += 1
                return None
            tag: TagBlock | None = None
            sentence = line
            if line[0] == "\\":
                end = line.find("\\", 1)
                if end < 0:
                    c.bad_tag_block += 1
                    return None
                text_tag = line[1:end]
                tag = self._tags.get(text_tag)
                if tag is None:
                    try:
                        tag = parse_tag_block(text_tag)
                    except TagBlockError:
                        c.bad_tag_block += 1
                        return None
                    if len(self._tags) >= _TAG_CACHE:
                        self._tags.clear()
                    self._tags[text_tag] = tag
                if tag.cleaned:
                    c.tag_cleaned += 1
                sentence = line[end + 1 :]
                if not sentence:
                    c.truncated += 1
                    return None
            first = sentence[0]
            if first != "!" and first != "$":
                c.not_nmea += 1
                return None
            star = sentence.rfind("*")
            if star < 0 or len(sentence) < star + 3:
                c.truncated += 1
                return None
            if _HEXVAL.get(sentence[star + 1 : star + 3]) != nmea_checksum(sentence[1:star]):
                c.bad_checksum += 1
                return None
            fields = sentence[:star].split(",")
            if fields[0][3:] not in _AIS_TYPES or first != "!":
                return self._other(fields, line, tag, received_at, source, peer)
            if len(fields) < 7:
                c.truncated += 1
                return None
            c.sentences += 1
            total = _SMALL.get(fields[1], 0)
            num = _SMALL.get(fields[2], 0)
            fill = _SMALL.get(fields[6], -1)
            if not 1 <= num <= total or not 0 <= fill <= 5:
                c.undecodable += 1
                return None

            t: float | None = None
            station: str | None = None
            extras: dict[str, float] | None = None
            if tag is not None:
                t = tag.time
                station = tag.station
            if sentence[-3] != "*" and sentence[star + 3] == ",":  # trailing fields
                ut, us, extras = uscg_trailer(sentence[star + 4 :])
                if t is None:
                    t = ut
                if station is None:
                    station = us
            if t is None and self._header:
                t = self._header.pop((source, peer), None)
            if t is not None:
                if t > received_at + self.max_ahead_s:
                    c.time_ahead += 1  # a wrong clock must not place the report in the future
                    t = received_at
                elif (
                    self.max_behind_s is not None
                    and t < received_at - self.max_behind_s
                    and source not in self.historical_sources
                ):
                    c.time_stale += 1
                    return None

            if total == 1 and (tag is None or tag.group_total <= 1):
                salvaged = None
                if self._reasm.pending and (
                    received_at > self._due_rx or not c.lines & _EXPIRE_MASK
                ):
                    salvaged = self._expire(received_at, t)
                if t is None:
                    c.untimed += 1
                    # the very same sentence twice in one read (two receivers, a repeater)
                    # is one report: it keeps one time, so the store keeps one row
                    dups = self._dups
                    if received_at != self._dups_read:
                        dups.clear()
                        self._dups_read = received_at
                    t = dups.get(fields[5])
                    if t is None:
                        # inline: spread receipt times so none is shared (see _receipt)
                        t = received_at
                        if t <= self._last_rx:
                            t = self._last_rx + _RX_STEP
                        self._last_rx = t
                        if len(dups) >= _TAG_CACHE:
                            dups.clear()
                        dups[fields[5]] = t
                recs = self._decode(fields[5], fill, t, station or source, (line,), 1, extras)
                return recs if salvaged is None else _join(salvaged, recs)
            if tag is not None and tag.group_total > 1:
                # tag-block grouping: the group id ties lines together, whatever they say
                key: tuple[str, ...] = ("g", source, peer, tag.group_id)
                gnum, gtotal = tag.group_num, tag.group_total
            else:
                key = ("s", source, peer, fields[3], fields[4], fields[1])
                gnum, gtotal = num, total
            frag = Fragment(
                gnum, fields[5], fill, line, t, station, received_at, total, num, extras
            )
            return self._add(key, gtotal, frag, source)
        except Exception:  # a bug must not stop the feed: count it, skip the line
            c.internal_error += 1
            return None

    def _receipt(self, received_at: float) -> float:
        """The time of an untimed message: its receipt, spread so that messages read
        together keep their order and never share one time (the store keys on it)."""
        if received_at <= self._last_rx:
            received_at = self._last_rx + _RX_STEP
        self._last_rx = received_at
        return received_at

    def _other(
        self,
        fields: list[str],
        line: str,
        tag: TagBlock | None,
        received_at: float,
        source: str,
        peer: str,
    ) -> list[Record] | None:
        """A checksum-valid sentence that is not AIS: a header, a group member, or unused."""
        talker = fields[0]
        if talker == "$PGHP":
            t = pghp_time(fields)
            if t is not None:
                if len(self._header) >= _TAG_CACHE:
                    self._header.clear()
                self._header[(source, peer)] = t
        if tag is not None and tag.group_total > 1:
            # a member of an AIS message's group (signal report): it travels with it
            extras = vsi_extras(fields) if talker[3:] == "VSI" else None
            frag = Fragment(
                tag.group_num, None, 0, line, tag.time, tag.station, received_at, 1, 0, extras
            )
            return self._add(("g", source, peer, tag.group_id), tag.group_total, frag, source)
        self.counters.non_ais += 1
        return None

    def _add(
        self, key: tuple[str, ...], total: int, frag: Fragment, feed: str
    ) -> list[Record] | None:
        salvaged = self._expire(frag.received, frag.time)
        parts, dropped = self._reasm.add(key, total, frag, frag.received)
        self._arm()
        if dropped:
            salvaged = _join(salvaged, self._give_up(dropped))
        if parts is None:
            return salvaged
        return _join(salvaged, self._salvage(parts, feed, len(parts), given_up=False))

    def _arm(self) -> None:
        """Note when the oldest pending message times out (after the pending set changed)."""
        oldest = self._reasm.oldest()
        self._due_rx = math.inf if oldest is None else oldest[0] + self.fragment_timeout_s

    def _salvage(
        self, parts: list[Fragment], feed: str, nlines: int, *, given_up: bool
    ) -> list[Record] | None:
        """Decode every complete AIS message among a group's lines; each line gets one
        outcome. One message (with its signal report) is decoded whole, the report's
        figures on it. Several (reports sharing a group, or a report beside a two-part
        message) are decoded each alone, timed and placed by the group's first line when
        they say nothing; the other lines are ``non_ais``. AIS lines of no complete
        message are orphans in a group given up, undecodable in a complete one."""
        c = self.counters
        ais = [p for p in parts if p.payload is not None]
        if ais and whole_message(ais):
            return self._message(parts, feed, nlines, parts)
        messages, left = complete_messages(ais)
        if messages:
            c.non_ais += nlines - len(ais)
        elif not ais and not given_up:
            c.non_ais += nlines  # a complete group of signal reports alone
            return None
        else:
            left = nlines
        if given_up:
            c.orphan_fragment += left
        else:
            c.undecodable += left
        out: list[Record] | None = None
        for msg in messages:
            out = _join(out, self._message(msg, feed, len(msg), parts))
        return out

    def _message(
        self, parts: list[Fragment], feed: str, nlines: int, group: list[Fragment]
    ) -> list[Record] | None:
        ais = [p for p in parts if p.payload is not None]
        payload = "".join(p.payload for p in ais if p.payload is not None)
        extras: dict[str, float] | None = None
        for p in parts:
            if p.extras:
                extras = {**(extras or {}), **p.extras}
        # a tag block's c: and s: often ride on the group's first line only
        t_msg = next((p.time for p in (*parts, *group) if p.time is not None), None)
        if t_msg is None:
            self.counters.untimed += 1
            t_msg = self._receipt(parts[0].received)
        src = next((p.station for p in (*parts, *group) if p.station is not None), feed)
        raw = tuple(p.line for p in parts)
        return self._decode(payload, ais[-1].fill, t_msg, src, raw, nlines, extras)

    def _give_up(self, dropped: list[PendingMessage]) -> list[Record] | None:
        """Messages that will not complete (timed out, displaced, or at the end of the
        input): decode every complete AIS message they hold (a group that lost only its
        signal report, or one of several reports sharing it), count the rest's lines as
        orphans."""
        out: list[Record] | None = None
        for pend in dropped:
            parts = [pend.parts[k] for k in sorted(pend.parts)]
            out = _join(out, self._salvage(parts, pend.feed, len(parts), given_up=True))
        self.counters.pending_evicted = self._reasm.evicted
        return out

    def _decode(
        self,
        payload: str,
        fill: int,
        t: float,
        source: str,
        raw: tuple[str, ...],
        nlines: int,
        extras: dict[str, float] | None = None,
    ) -> list[Record] | None:
        c = self.counters
        c.messages += 1
        try:
            recs = decode_payload(payload, fill, t, source, raw)
        except UnsupportedType:
            c.unsupported_type += nlines
            return None
        except Undecodable:
            c.undecodable += nlines
            return None
        if not is_valid_mmsi(recs[0].mmsi):  # one message, one sender
            c.bad_mmsi += nlines
            return None
        c.decoded_lines += nlines
        c.records += len(recs)
        for r in recs:
            if type(r) is StaticData:
                self.registry.update(r)
            elif extras and type(r) is Position:
                r.extras = extras
        return recs

    def _expire(self, now: float, now_t: float | None) -> list[Record] | None:
        oldest = self._reasm.oldest()
        if oldest is None:
            return None
        limit = self.fragment_timeout_s
        started, started_t = oldest
        if started < now - limit or (
            now_t is not None and started_t is not None and started_t < now_t - limit
        ):
            out = self._give_up(self._reasm.expire(now, now_t))
            self._arm()
            return out
        return None


def _join(a: list[Record] | None, b: list[Record] | None) -> list[Record] | None:
    if not a:
        return b
    if not b:
        return a
    return a + b
