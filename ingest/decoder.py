"""The ingest loop: raw lines in, typed records out, every bad line counted and skipped."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from vigia.ingest.ais import Undecodable, UnsupportedType, decode_payload
from vigia.ingest.counters import IngestCounters
from vigia.ingest.nmea import (
    Fragment,
    Reassembler,
    TagBlock,
    TagBlockError,
    nmea_checksum,
    parse_tag_block,
)
from vigia.ingest.records import RawLine, Record, StaticData
from vigia.ingest.registry import VesselRegistry

_HEXVAL = {
    a + b: int(a + b, 16) for a in "0123456789ABCDEFabcdef" for b in "0123456789ABCDEFabcdef"
}
_AIS_TYPES = frozenset(("VDM", "VDO"))
_SMALL = {str(i): i for i in range(10)}
# every 4096 lines pending fragments are checked against the timeout even if no new
# fragment arrives
_EXPIRE_MASK = 4095
_TAG_CACHE = 1024  # parsed tag blocks kept (cleared whole when full)


class Ingestor:
    """Turns raw NMEA lines into records; never raises on anything in the input."""

    def __init__(
        self,
        registry: VesselRegistry | None = None,
        *,
        fragment_timeout_s: float = 60.0,
        max_pending_messages: int = 10_000,
    ) -> None:
        self.registry = registry if registry is not None else VesselRegistry()
        self.counters = IngestCounters()
        self.fragment_timeout_s = fragment_timeout_s
        self._reasm = Reassembler(fragment_timeout_s, max_pending_messages)
        # a station stamps every message of one second with the same tag block, so a
        # small cache of parsed blocks saves most of the parsing on a live feed
        self._tags: dict[str, TagBlock] = {}

    def feed(self, line: RawLine) -> list[Record]:
        """Ingest one line; return the records it completes (often one, maybe none)."""
        return self._feed(line.text, line.received_at, line.source) or []

    def feed_many(self, lines: Iterable[RawLine]) -> Iterator[Record]:
        """Ingest lines as they come, yielding records as messages complete."""
        feed = self._feed
        for line in lines:
            recs = feed(line.text, line.received_at, line.source)
            if recs:
                yield from recs

    def flush(self) -> list[Record]:
        """End of input: pending fragments will never complete, count them as orphans."""
        self.counters.orphan_fragment += self._reasm.drain()
        return []

    @property
    def pending_fragments(self) -> int:
        """Fragments waiting for the rest of their message."""
        return self._reasm.pending_fragments()

    def _feed(self, text: str, received_at: float, source: str) -> list[Record] | None:
        c = self.counters
        c.lines += 1
        try:
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
                c.non_ais += 1
                return None
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

            t = received_at
            feed_name = source
            if tag is not None:
                if tag.time is not None:
                    t = tag.time
                if tag.station is not None:
                    source = tag.station

            if total == 1 and (tag is None or tag.group_total <= 1):
                if not c.lines & _EXPIRE_MASK and self._reasm.pending:
                    self._expire(t)
                return self._decode(fields[5], fill, t, source, (line,), 1)
            return self._fragment(fields, num, total, fill, line, tag, t, feed_name)
        except Exception:  # a bug must not stop the feed: count it, skip the line
            c.internal_error += 1
            return None

    def _fragment(
        self,
        fields: list[str],
        num: int,
        total: int,
        fill: int,
        line: str,
        tag: TagBlock | None,
        t: float,
        feed_name: str,
    ) -> list[Record] | None:
        c = self.counters
        self._expire(t)
        # fragments are matched within one feed (its own name, not the s: station, which
        # only the first line of a tag group may carry)
        if tag is not None and tag.group_total > 1:
            # tag-block grouping: the group id ties lines together, whatever the sentence says
            key: tuple[str, ...] = ("g", feed_name, tag.group_id)
            num, total = tag.group_num, tag.group_total
        else:
            key = ("s", feed_name, fields[3], fields[4], fields[1])
        frag = Fragment(
            num,
            fields[5],
            fill,
            line,
            tag.time if tag is not None else None,
            tag.station if tag is not None else None,
            t,
        )
        parts, orphaned = self._reasm.add(key, total, frag, t)
        c.orphan_fragment += orphaned
        if parts is None:
            return None
        payload = "".join(p.payload for p in parts)
        times = [p.time for p in parts if p.time is not None]
        stations = [p.station for p in parts if p.station is not None]
        t_msg = times[0] if times else parts[0].received
        src = stations[0] if stations else feed_name
        raw = tuple(p.line for p in parts)
        return self._decode(payload, parts[-1].fill, t_msg, src, raw, len(parts))

    def _decode(
        self,
        payload: str,
        fill: int,
        t: float,
        source: str,
        raw: tuple[str, ...],
        nlines: int,
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
        c.decoded_lines += nlines
        c.records += len(recs)
        for r in recs:
            if type(r) is StaticData:
                self.registry.update(r)
        return recs

    def _expire(self, now: float) -> None:
        oldest = self._reasm.oldest()
        if oldest is not None and oldest < now - self.fragment_timeout_s:
            self.counters.orphan_fragment += self._reasm.expire(now)
