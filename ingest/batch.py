"""The batch decoder: a whole read of lines framed and decoded in columns.

:class:`BatchIngestor` is an :class:`~vigia.ingest.decoder.Ingestor` that takes lines a
block at a time. The block is framed with numpy (:mod:`vigia.ingest.batch_frame`); the
plain single-sentence reports of the covered types (1, 2, 3, 5, 18, 19, 24, 27) are
decoded as columns (:mod:`vigia.ingest.batch_fields`) straight into records. Every other
line goes through the per-line path unchanged, in its place in the stream, and the
multi-sentence messages it completes (type 5 above all) are decoded in columns too, at
the end of the block. The per-line state (times of untimed messages, duplicate reads,
``$PGHP`` headers, reassembly and its timeouts) is walked line by line in the original
order, so the records, their order and every counter are those of :meth:`Ingestor.feed`
line after line (the suite checks it on every fixture and on fuzzed input).

Static reports reach the registry in record order. :meth:`feed_batch` applies them when
the block is done; :meth:`feed_blocks`, which yields lazily, applies those of each line
just before yielding that line's first record, as the per-line path does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import repeat
from typing import Any

import numpy as np

from vigia.ingest.ais import (
    _BAD_CHAR,
    MIN_BITS,
    Undecodable,
    UnsupportedType,
    decode_payload,
    payload_mmsi,
)
from vigia.ingest.ais import message_type as _message_type
from vigia.ingest.batch_fields import COLUMN_TYPES, Deferred, Slot, decode_columns, fill_slots
from vigia.ingest.batch_frame import (
    MAX_PAYLOAD,
    frame,
)
from vigia.ingest.decoder import _EXPIRE_MASK, _RX_STEP, _TAG_CACHE, Ingestor
from vigia.ingest.mmsi import is_valid_mmsi
from vigia.ingest.nmea import TagBlock, TagBlockError, parse_tag_block
from vigia.ingest.records import Position, RawLine, Record, StaticData


class BatchIngestor(Ingestor):
    """An :class:`Ingestor` fed a block of lines at a time (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deferred: list[Deferred] | None = None  # set while a block is fed
        self.column_lines = 0  # lines framed and decoded in columns (the rest per line)
        #: receipt time of the line whose records held the last position of the last
        #: block fed (what a per-line caller would pair with that position), or None
        self.last_position_received_at: float | None = None
        self._made_position = False  # set by _decode when a decode gives a position

    def feed_batch(self, lines: list[RawLine]) -> list[Record]:
        """Ingest a block of lines; the records they complete, in order."""
        out, spans = self._block(
            [ln.text for ln in lines],
            [ln.received_at for ln in lines],
            [ln.source for ln in lines],
            [ln.peer for ln in lines],
        )
        update = self.registry.update
        for s, e in spans:
            for r in out[s:e]:
                if type(r) is StaticData:
                    update(r)
        return out

    def feed_blocks(self, blocks: Iterable[list[RawLine]]) -> Iterator[Record]:
        """Ingest blocks as they come, yielding records as messages complete."""
        for lines in blocks:
            yield from self._lazy(
                [ln.text for ln in lines],
                [ln.received_at for ln in lines],
                [ln.source for ln in lines],
                [ln.peer for ln in lines],
            )

    def feed_texts(
        self, blocks: Iterable[tuple[list[str], float]], source: str, peer: str = ""
    ) -> Iterator[Record]:
        """:meth:`feed_blocks` for blocks of one source and peer, each line's text with
        the block's receipt time (``FileSource.text_blocks``): no RawLine is made."""
        for texts, received_at in blocks:
            yield from self._lazy(texts, repeat(received_at), repeat(source), repeat(peer))

    def _lazy(
        self, texts: list[str], rxs: Iterable[float], sources: Iterable[str], peers: Iterable[str]
    ) -> Iterator[Record]:
        """The records of a block, each line's static reports in the registry before that
        line's first record is yielded."""
        update = self.registry.update
        out, spans = self._block(texts, rxs, sources, peers)
        at = 0
        for s, e in spans:
            statics = [r for r in out[s:e] if type(r) is StaticData]
            if statics:
                yield from out[at:s]
                at = s
                for r in statics:
                    update(r)
        yield from out[at:]

    def _block(
        self, texts: list[str], rxs: Iterable[float], sources: Iterable[str], peers: Iterable[str]
    ) -> tuple[list[Record], list[tuple[int, int]]]:
        """Records of a block (each line's text, receipt time, source and peer), and the
        (start, end) in them of every line's records that may hold a static report."""
        fr = frame(texts, self.max_line_chars)
        n = len(texts)
        col = np.full(n, -1, dtype=np.int64)
        first: list[Any] = []
        second: list[Any] = []
        tag_end: list[int] = []
        pay_start: list[int] = []
        pay_end: list[int] = []
        pairs: list[list[int]] = []
        if fr is not None:
            col[fr.rows] = np.arange(len(fr.rows))
            col[fr.pairs] = -2 - np.arange(len(fr.pairs))  # -1: per line; <= -2: a pair
            pairs = fr.pair_cols.tolist()
            first, second = decode_columns(
                fr.buf, fr.line_start + fr.pay_start, fr.pay_len, fr.fill, fr.msg_type
            )
            tag_end = fr.tag_end.tolist()
            pay_start = fr.pay_start.tolist()
            pay_end = (fr.pay_start + fr.pay_len).tolist()
        out: list[Any] = []
        spans: list[tuple[int, int]] = []
        slots: list[int] = []
        deferred: list[Deferred] = []
        self._deferred = deferred
        try:
            cols = (first, second, tag_end, pay_start, pay_end, pairs)
            # the repeat()s of feed_texts are endless: texts and columns set the length
            lines = zip(texts, rxs, sources, peers, col.tolist(), strict=False)
            self._walk(lines, cols, out, spans, slots)
        finally:
            self._deferred = None
        if deferred:
            fill_slots(deferred, out, slots)
        return out, spans

    def _walk(
        self,
        lines: Iterator[tuple[str, float, str, str, int]],
        cols: tuple[list[Any], list[Any], list[int], list[int], list[int], list[list[int]]],
        out: list[Any],
        spans: list[tuple[int, int]],
        slots: list[int],
    ) -> None:
        """The lines in order: per-line state, and the records of the framed ones.

        The framed lines' counters are summed locally and added at the end (they are
        only ever added to); ``lines`` stays exact, as the reassembly timeout reads it.
        """
        c = self.counters
        first, second, tag_end, pay_start, pay_end, pairs = cols
        reasm = self._reasm
        timeout = self.fragment_timeout_s
        tags = self._tags
        header = self._header
        dups = self._dups
        max_ahead = self.max_ahead_s
        max_behind = self.max_behind_s
        append = out.append
        n_sent = n_msg = n_unsup = n_dec = n_rec = n_untimed = n_ahead = n_stale = n_bad_id = 0
        n_cleaned = 0
        pos_rx: float | None = None
        try:
            for text, rx, source, peer, j in lines:
                try:
                    tag: TagBlock | None = None
                    if j >= 0:
                        te = tag_end[j]
                        if te:
                            tt = text[1:te]
                            tag = tags.get(tt)
                            if tag is None:
                                try:
                                    tag = parse_tag_block(tt)
                                except TagBlockError:
                                    j = -1  # counted by the per-line path
                                else:
                                    if len(tags) >= _TAG_CACHE:
                                        tags.clear()
                                    tags[tt] = tag
                            if tag is not None and tag.group_total > 1:
                                j = -1  # a tag-block group: reassembled per line
                            elif tag is not None and tag.cleaned:
                                n_cleaned += 1  # as Ingestor._feed (a -1 line is fed there)
                    if j <= -2:
                        # a two-sentence message on two lines: when nothing is pending and no
                        # header waits, the reassembly would hold part 1 and hand both back
                        # at part 2, the message timed by part 1's receipt
                        p1a, p1b, p2a, p2b, k1a, k1b, k2a, k2b, fill2 = pairs[-2 - j]
                        text2, rx2, source2, peer2, _ = next(lines)
                        if (
                            header
                            or reasm.pending
                            or source2 != source
                            or peer2 != peer
                            or rx < rx2 - timeout
                            or text[k1a:k1b] != text2[k2a:k2b]
                        ):
                            for each in ((text, rx, source, peer), (text2, rx2, source2, peer2)):
                                self._made_position = False
                                recs = self._feed(*each)
                                if recs:
                                    self._take(recs, out, spans, slots)
                                    if self._made_position:
                                        pos_rx = each[1]
                            continue
                        c.lines += 2
                        n_sent += 2
                        n_untimed += 1
                        self._made_position = False
                        recs = self._decode(
                            text[p1a:p1b] + text2[p2a:p2b],
                            fill2,
                            self._receipt(rx),
                            source,
                            (text, text2),
                            2,
                        )
                        if recs:
                            self._take(recs, out, spans, slots)
                            if self._made_position:
                                pos_rx = rx2
                        continue
                    if j < 0:
                        self._made_position = False
                        recs = self._feed(text, rx, source, peer)
                        if recs:
                            self._take(recs, out, spans, slots)
                            if self._made_position:
                                pos_rx = rx
                        continue
                    c.lines += 1
                    n_sent += 1
                    t: float | None = None
                    station: str | None = None
                    if tag is not None:
                        t = tag.time
                        station = tag.station
                    if t is None and header:
                        t = header.pop((source, peer), None)
                    if t is not None:
                        if t > rx + max_ahead:
                            n_ahead += 1
                            t = rx
                        elif (
                            max_behind is not None
                            and t < rx - max_behind
                            and source not in self.historical_sources
                        ):
                            n_stale += 1
                            continue
                    mark = -1  # where salvaged records start, if any
                    if reasm.pending and (rx > self._due_rx or not c.lines & _EXPIRE_MASK):
                        mark = len(out)
                        self._made_position = False
                        salvaged = self._expire(rx, t)
                        if salvaged:
                            self._take(salvaged, out, None, slots)
                            if self._made_position:
                                pos_rx = rx
                    if t is None:
                        n_untimed += 1
                        if rx != self._dups_read:
                            dups.clear()
                            self._dups_read = rx
                        payload = text[pay_start[j] : pay_end[j]]
                        t = dups.get(payload)
                        if t is None:
                            t = rx
                            if t <= self._last_rx:
                                t = self._last_rx + _RX_STEP
                            self._last_rx = t
                            if len(dups) >= _TAG_CACHE:
                                dups.clear()
                            dups[payload] = t
                    n_msg += 1
                    r = first[j]
                    if r is None:  # a valid type that makes no record
                        n_unsup += 1
                        continue
                    if not is_valid_mmsi(r.mmsi):
                        n_bad_id += 1
                        continue
                    n_dec += 1
                    src = station or source
                    raw = (text,)
                    r.t = t
                    r.source = src
                    r.raw = raw
                    r2 = second[j]
                    if type(r) is Position:
                        pos_rx = rx
                    if r2 is None:
                        n_rec += 1
                        if type(r) is StaticData or mark >= 0:
                            at = mark if mark >= 0 else len(out)
                            spans.append((at, len(out) + 1))  # one registry step, as a feed()
                        append(r)
                    else:
                        n_rec += 2
                        r2.t = t
                        r2.source = src
                        r2.raw = raw
                        spans.append((mark if mark >= 0 else len(out), len(out) + 2))
                        append(r)
                        append(r2)
                except Exception:  # a bug must not stop the feed: count it, skip the line
                    c.internal_error += 1
        finally:
            c.sentences += n_sent
            c.messages += n_msg
            c.unsupported_type += n_unsup
            c.decoded_lines += n_dec
            c.records += n_rec
            c.untimed += n_untimed
            c.time_ahead += n_ahead
            c.time_stale += n_stale
            c.bad_mmsi += n_bad_id
            c.tag_cleaned += n_cleaned
            self.column_lines += n_sent  # every framed line is a sentence
            self.last_position_received_at = pos_rx

    @staticmethod
    def _take(
        recs: list[Any], out: list[Any], spans: list[tuple[int, int]] | None, slots: list[int]
    ) -> None:
        at = len(out)
        out.extend(recs)
        if spans is not None:
            spans.append((at, len(out)))
        for i, r in enumerate(recs):
            if type(r) is Slot:
                slots.append(at + i)

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
        deferred = self._deferred
        if deferred is None:
            return super()._decode(payload, fill, t, source, raw, nlines, extras)
        c = self.counters
        k = _message_type(payload)
        if (
            k in COLUMN_TYPES
            and len(payload) <= MAX_PAYLOAD
            and len(payload) * 6 - fill >= MIN_BITS[k]
            and _BAD_CHAR.search(payload) is None
            and (k != 24 or _message_type(payload[6]) & 12 <= 4)
        ):
            c.messages += 1
            if not is_valid_mmsi(payload_mmsi(payload)):  # as Ingestor._decode
                c.bad_mmsi += nlines
                return None
            c.decoded_lines += nlines
            if k != 5 and k != 24:
                self._made_position = True
            n = len(deferred)
            deferred.append((payload, fill, t, source, raw, extras))
            if k == 19:
                c.records += 2
                return [Slot(n, False), Slot(n, True)]  # type: ignore[list-item]
            c.records += 1
            return [Slot(n, False)]  # type: ignore[list-item]
        # as Ingestor._decode, less the registry: static reports reach it in record order
        c.messages += 1
        try:
            recs = decode_payload(payload, fill, t, source, raw)
        except UnsupportedType:
            c.unsupported_type += nlines
            return None
        except Undecodable:
            c.undecodable += nlines
            return None
        if not is_valid_mmsi(recs[0].mmsi):
            c.bad_mmsi += nlines
            return None
        c.decoded_lines += nlines
        c.records += len(recs)
        for r in recs:
            if type(r) is Position:
                self._made_position = True
                if extras:
                    r.extras = extras
        return recs
