"""Framing a whole read buffer at once: which lines are plain single-sentence AIS.

The batch decoder takes the common case off the per-line path: a line that is exactly
``[\\tag block\\]!xxVDM,1,1,<seq>,<channel>,<payload>,<fill>*hh`` with a right checksum,
a payload of a type the columns cover and enough bits for every field Vigia reads. Every
test here is one numpy pass over the joined buffer (newlines, backslashes, commas, the
XOR checksum as a running XOR, the payload alphabet as a running count), so the cost per
line is a few array element operations. A line that fails any test is not judged here:
it goes to the per-line ingest path (pyais), which counts it exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vigia.ingest.ais import MIN_BITS, PAYLOAD_CHARS
from vigia.ingest.batch_fields import COLUMN_TYPES, SIXBIT, NDArray

#: longest payload decoded in columns (a type 5 is 71 characters); longer ones go per line
MAX_PAYLOAD = 80

_VALID = np.zeros(256, dtype=np.bool_)
_VALID[[ord(ch) for ch in PAYLOAD_CHARS]] = True
_HEX = np.full(256, -1, dtype=np.int16)
for _i, _ch in enumerate("0123456789ABCDEF"):
    _HEX[ord(_ch)] = _i
    _HEX[ord(_ch.lower())] = _i
# bits a payload needs to be framed here: the decoder's minimum for the types decoded in
# columns, none for the types that make no record (they are only counted), and "a
# million" for the rest (14, 21), which go the per-line way
_MIN_BITS = np.zeros(64, dtype=np.int64)
for _k, _bits in MIN_BITS.items():
    _MIN_BITS[_k] = _bits if _k in COLUMN_TYPES else 1 << 20

_BANG, _BACKSLASH, _COMMA, _STAR, _ONE, _TWO, _NL = (ord(c) for c in "!\\,*12\n")


@dataclass(slots=True)
class Framed:
    """The single-sentence AIS lines of a batch, as columns over one byte buffer."""

    buf: NDArray  # the joined lines (uint8), padded so that reads past the end are safe
    rows: NDArray  # index of each framed line in the batch
    line_start: NDArray  # offset of each framed line in ``buf``
    tag_end: NDArray  # offset of the closing backslash in the line, 0 if untagged
    pay_start: NDArray  # offset of the payload in the line
    pay_len: NDArray
    fill: NDArray
    msg_type: NDArray
    #: first lines of two-sentence messages framed whole (parts 1 and 2 on consecutive
    #: untagged lines), and per pair the offsets in its lines (see ``_pairs``)
    pairs: NDArray
    pair_cols: NDArray


def frame(texts: list[str], max_line_chars: int) -> Framed | None:
    """Find the lines of ``texts`` the columns can decode; None if none can."""
    n = len(texts)
    if not n:
        return None
    joined = "\n".join(texts)
    if joined.count("\n") != n - 1:  # a line with a newline inside: leave it all per line
        return None
    if not joined.isascii():
        # non-ASCII lines are left out (blanked); the per-line path counts them
        joined = "\n".join(t if t.isascii() else "" for t in texts)
    raw = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    size = len(raw)
    buf = np.zeros(size + 8, dtype=np.uint8)
    buf[:size] = raw
    nl = np.flatnonzero(raw == _NL)
    starts = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = nl + 1
    ends = np.empty(n, dtype=np.int64)
    ends[:-1] = nl
    ends[-1] = size
    length = ends - starts
    ok = (length >= 20) & (length <= max_line_chars)
    # tag block: a line opening with a backslash ends its block at the next backslash
    tagged = buf[starts] == _BACKSLASH
    bs = np.flatnonzero(raw == _BACKSLASH)
    if len(bs):
        k = np.minimum(np.searchsorted(bs, starts + 1), len(bs) - 1)
        tag_at = bs[k]
        ok &= ~tagged | (tag_at > starts) & (tag_at < ends)
    else:
        tag_at = starts
        ok &= ~tagged
    s0 = np.where(tagged, tag_at + 1, starts)  # the sentence's '!'
    star = ends - 3
    ok &= (buf[s0] == _BANG) & (buf[np.maximum(star, 0)] == _STAR) & (s0 < star)
    rows = np.flatnonzero(ok)
    if not len(rows):
        return None
    s0, star, starts, ends = s0[rows], star[rows], starts[rows], ends[rows]
    tag_at, tagged = tag_at[rows], tagged[rows]
    # checksum: XOR of the characters between '!' and '*' from a running XOR
    xr = np.zeros(size + 1, dtype=np.uint8)
    np.bitwise_xor.accumulate(raw, out=xr[1:])
    hi, lo = _HEX[buf[star + 1]], _HEX[buf[star + 2]]
    ok = (hi >= 0) & (lo >= 0) & ((xr[star] ^ xr[s0 + 1]) == hi * 16 + lo)
    # exactly six commas in the sentence, i.e. seven fields
    commas = np.flatnonzero(raw == _COMMA)
    first = np.searchsorted(commas, s0)  # the sentence's first comma
    ok &= np.searchsorted(commas, star) - first == 6
    cpos = np.append(commas, [size] * 6)
    c = [cpos[first + j] for j in range(6)]
    talker = buf[s0 + 3].astype(np.int64) << 16 | buf[s0 + 4].astype(np.int64) << 8
    talker |= buf[s0 + 5]
    vdm = ord("V") << 16 | ord("D") << 8 | ord("M")
    vdo = ord("V") << 16 | ord("D") << 8 | ord("O")
    ok &= (c[0] - s0 == 6) & ((talker == vdm) | (talker == vdo))
    ok &= (c[1] == c[0] + 2) & (c[2] == c[1] + 2)  # one-digit count and number
    total, num = buf[c[0] + 1], buf[c[1] + 1]
    fill = buf[c[5] + 1].astype(np.int64) - ord("0")
    ok &= (star == c[5] + 2) & (fill >= 0) & (fill <= 5)
    ps, pe = c[4] + 1, c[5]
    plen = pe - ps
    ok &= (plen >= 1) & (plen <= MAX_PAYLOAD)
    bad = np.flatnonzero(~_VALID[raw])
    ok &= np.searchsorted(bad, np.maximum(pe, ps)) == np.searchsorted(bad, ps)
    pairs, pair_cols = _pairs(n, rows, ok & ~tagged & (total == _TWO), num, starts, c, fill)
    ok &= (total == _ONE) & (num == _ONE)  # one sentence, and it is the first
    mtype = SIXBIT[buf[ps]].astype(np.int64)
    ok &= plen * 6 - fill >= _MIN_BITS[mtype]
    # type 24 part numbers 2 and 3 are refused by pyais: left to it to count
    partno = (SIXBIT[buf[ps + 6]] >> 2) & 3
    ok &= (mtype != 24) | (partno <= 1)
    keep = np.flatnonzero(ok)
    if not len(keep) and not len(pairs):
        return None
    ls = starts[keep]
    return Framed(
        pairs=pairs,
        pair_cols=pair_cols,
        buf=buf,
        rows=rows[keep],
        line_start=ls,
        tag_end=np.where(tagged[keep], tag_at[keep] - ls, 0),
        pay_start=ps[keep] - ls,
        pay_len=plen[keep],
        fill=fill[keep],
        msg_type=mtype[keep],
    )


def _pairs(
    n: int,
    rows: NDArray,
    part: NDArray,
    num: NDArray,
    starts: NDArray,
    c: list[NDArray],
    fill: NDArray,
) -> tuple[NDArray, NDArray]:
    """Lines ``i`` that are part 1 of 2 with part 2 of 2 on line ``i + 1``, both framed
    (checksum, seven fields, payload alphabet, fill) and untagged; per pair the offsets
    in the lines of payload 1, payload 2, the ``,seq,channel`` of each (the caller
    checks they match, as the reassembly key does) and the fill of part 2."""
    first = np.zeros(n + 1, dtype=np.bool_)
    second = np.zeros(n + 1, dtype=np.bool_)
    at = np.full(n + 1, -1, dtype=np.int64)
    first[rows[part & (num == _ONE)]] = True
    second[rows[part & (num == _TWO)]] = True
    at[rows] = np.arange(len(rows))
    heads = np.flatnonzero(first[:-1] & second[1:])
    a, b = at[heads], at[heads + 1]
    cols = np.stack(
        [
            c[4][a] + 1 - starts[a],
            c[5][a] - starts[a],
            c[4][b] + 1 - starts[b],
            c[5][b] - starts[b],
            c[2][a] - starts[a],
            c[4][a] - starts[a],
            c[2][b] - starts[b],
            c[4][b] - starts[b],
            fill[b],
        ],
        axis=1,
    )
    return heads, cols
