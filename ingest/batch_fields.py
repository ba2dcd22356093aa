"""Every field Vigia reads, pulled out of a batch of payloads as columns.

Each rule follows pyais exactly (``pyais.bit_vector`` and the message classes in
``pyais.messages``), since the batch decoder must give what the per-line path gives:

* the bit vector is the payload's 6-bit characters less the ``fill`` bits at the end;
* a field that starts past the end is absent; one cut by the end is the bits that are
  there, read as a narrower number (the last character of a short text likewise);
* positions are ``round(raw / 600000, 6)`` (type 27: ``/ 600``) computed as pyais does,
  ``((10 * raw + 3) // 6) / 1e6``, which is the same float; speed and course ``raw / 10``;
* text is 6-bit ASCII with trailing ``@`` and surrounding blanks cut;
* ship types of types 5 and 19 go through ``pyais.constants.ShipType``, whose reserved
  values fold onto a neighbour; type 24 part B's is the raw number.

The "not available" values and ranges are :mod:`vigia.ingest.ais`'s: lon 181 and lat 91
(anything out of range) are None, speed 102.3 (type 27: 63) None, course 360 and above
(type 27: 511) None, heading 511 None, 0 ship type, IMO or dimension sum None.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pyais.constants import ShipType

from vigia.ingest.records import BaseStation, Position, Record, StaticData

NDArray = np.ndarray[Any, Any]

#: the 6-bit value of each armoured payload character (others 0; callers check first)
SIXBIT = np.zeros(256, dtype=np.uint8)
for _o in [*range(48, 88), *range(96, 120)]:
    SIXBIT[_o] = _o - 48 if _o < 88 else _o - 56

# pyais's public enum decides the fold of reserved values (ShipType.from_value never
# gives None for an int)
_SHIP_TYPE = np.array([int(ShipType.from_value(v) or 0) for v in range(256)], dtype=np.int64)
# the 6-bit text alphabet: 0-31 are '@'..'_', 32-63 are ' '..'?'
_TEXT = np.array([v + 64 if v < 32 else v for v in range(64)], dtype=np.uint8)


class Bits:
    """The payloads of a batch as 6-bit characters, one row per payload, with the fill
    bits and everything past the end zero; fields are read from whole characters."""

    def __init__(
        self, buf: NDArray, start: NDArray, length: NDArray, fill: NDArray, width: int
    ) -> None:
        chars = (width + 5) // 6 + 1  # one more: a field may end inside the next one
        col = np.arange(chars, dtype=np.int64)
        s = SIXBIT[buf[np.minimum(start[:, None] + col, len(buf) - 1)]].astype(np.int64)
        s[col >= length[:, None]] = 0
        nbits = length * 6 - fill
        # zero the fill bits, which pyais shifts out: keep the bits before nbits
        last = nbits // 6
        keep = nbits - 6 * last  # bits of the last, cut character that are data
        rows = np.flatnonzero((keep > 0) & (last < chars))
        s[rows, last[rows]] &= ~((np.int64(1) << (6 - keep[rows])) - 1)
        rows = np.flatnonzero((keep == 0) & (last < chars))
        s[rows, last[rows]] = 0
        self.s = s
        self.nbits = nbits
        self.least = int(nbits.min()) if len(nbits) else 0  # no field ending here is cut

    def uint(self, start: int, width: int) -> NDArray:
        """Unsigned field; cut by the end, the bits that are there (pyais ``get``)."""
        c0, c1 = start // 6, (start + width - 1) // 6
        acc = self.s[:, c0].copy()
        for c in range(c0 + 1, c1 + 1):
            acc <<= 6
            acc |= self.s[:, c]
        acc >>= 6 * (c1 + 1) - start - width
        acc &= (1 << width) - 1
        if start + width <= self.least:
            return acc
        avail = np.clip(self.nbits - start, 0, width)
        return np.asarray(acc >> (width - avail), dtype=np.int64)

    def signed(self, start: int, width: int) -> NDArray:
        """Signed field (two's complement); callers only read whole signed fields."""
        v = self.uint(start, width)
        return np.where(v >= 1 << (width - 1), v - (1 << width), v)

    def text(self, start: int, width: int) -> list[str | None]:
        """6-bit text, trailing '@' and blanks cut, '' as None (Vigia's ``_text``)."""
        n = width // 6
        a, r = divmod(start, 6)
        pair = (self.s[:, a : a + n] << 6) | self.s[:, a + 1 : a + n + 1]
        codes = (pair >> (6 - r)) & 63
        # the character cut by the end is its bits that are there (pyais ``get``)
        cut = np.clip(start + 6 * np.arange(1, n + 1) - self.nbits[:, None], 0, 6)
        codes >>= cut
        chars = np.ascontiguousarray(_TEXT[codes]).view(f"S{n}").ravel()
        return [s.rstrip(b"@").strip().decode() or None for s in chars.tolist()]


def _obj(values: NDArray, valid: NDArray) -> list[Any]:
    """Python floats/ints where ``valid``, None elsewhere."""
    out: list[Any] = values.tolist()
    for i in np.flatnonzero(~valid).tolist():
        out[i] = None
    return out


def _lonlat(b: Bits, at: int, width: int, scale: int) -> tuple[list[Any], list[Any]]:
    lon = b.signed(at, width)
    lat = b.signed(at + width, width - 1)
    lon_f = ((scale * lon + 3) // 6) / 1e6
    lat_f = ((scale * lat + 3) // 6) / 1e6
    return (
        _obj(lon_f, (lon_f >= -180.0) & (lon_f <= 180.0)),
        _obj(lat_f, (lat_f >= -90.0) & (lat_f <= 90.0)),
    )


def _dims(b: Bits, at: int) -> tuple[list[Any], list[Any]]:
    length = b.uint(at, 9) + b.uint(at + 9, 9)
    beam = b.uint(at + 18, 6) + b.uint(at + 24, 6)
    return _obj(length.astype(np.float64), length > 0), _obj(beam.astype(np.float64), beam > 0)


def _positions(b: Bits, k: NDArray, status: list[Any] | None, at: int) -> list[Position]:
    """Types 1-3 (``at`` = 50) and 18/19 (``at`` = 46): speed, accuracy, lon, lat,
    course and heading in that order from bit ``at``."""
    n = len(k)
    speed = b.uint(at, 10)
    course = b.uint(at + 66, 12)
    heading = b.uint(at + 78, 9)
    lon, lat = _lonlat(b, at + 11, 28, 10)
    return list(
        map(
            Position,
            b.uint(8, 30).tolist(),
            [0.0] * n,
            k.tolist(),
            lon,
            lat,
            _obj(speed / 10.0, speed <= 1022),
            _obj(course / 10.0, course < 3600),
            _obj(heading, heading < 360),
            status if status is not None else [None] * n,
            (b.uint(at + 10, 1) == 1).tolist(),
        )
    )


def _type27(b: Bits, k: NDArray) -> list[Position]:
    n = len(k)
    speed = b.uint(79, 6)
    course = b.uint(85, 9)
    lon, lat = _lonlat(b, 44, 18, 10000)
    return list(
        map(
            Position,
            b.uint(8, 30).tolist(),
            [0.0] * n,
            k.tolist(),
            lon,
            lat,
            _obj(speed.astype(np.float64), speed < 63),
            _obj(course.astype(np.float64), course < 360),
            [None] * n,
            b.uint(40, 4).tolist(),
            (b.uint(38, 1) == 1).tolist(),
        )
    )


def _type4(b: Bits, k: NDArray) -> list[BaseStation]:
    n = len(k)
    lon, lat = _lonlat(b, 79, 28, 10)
    return list(map(BaseStation, b.uint(8, 30).tolist(), [0.0] * n, k.tolist(), lon, lat))


def _statics(mmsi: list[int], k: NDArray, **cols: list[Any]) -> list[StaticData]:
    n = len(mmsi)
    t = [0.0] * n
    ks = k.tolist()
    names = list(cols)
    return [StaticData(mmsi[i], t[i], ks[i], **{f: cols[f][i] for f in names}) for i in range(n)]


def _type5(b: Bits, k: NDArray) -> list[StaticData]:
    imo = b.uint(40, 30)
    ship = _SHIP_TYPE[b.uint(232, 8)]
    length, beam = _dims(b, 240)
    return _statics(
        b.uint(8, 30).tolist(),
        k,
        name=b.text(112, 120),
        callsign=b.text(70, 42),
        imo=_obj(imo, imo != 0),
        ship_type=_obj(ship, ship != 0),
        length_m=length,
        beam_m=beam,
        destination=b.text(302, 120),
    )


def _type24(b: Bits, k: NDArray) -> list[StaticData]:
    mmsi = b.uint(8, 30)
    part_a = b.uint(38, 2) == 0
    aux = (mmsi >= 980_000_000) & (mmsi <= 989_999_999)  # pyais's auxiliary craft
    ship = b.uint(40, 8)
    length, beam = _dims(b, 132)
    none = [None] * len(k)
    dims = ~part_a & ~aux
    return _statics(
        mmsi.tolist(),
        k,
        name=[n if a else None for n, a in zip(b.text(40, 120), part_a.tolist(), strict=True)],
        callsign=[None if a else s for s, a in zip(b.text(90, 42), part_a, strict=True)],
        ship_type=_obj(ship, ~part_a & (ship != 0)),
        length_m=[x if d else None for x, d in zip(length, dims, strict=True)] if len(k) else none,
        beam_m=[x if d else None for x, d in zip(beam, dims, strict=True)] if len(k) else none,
        part=["A" if a else "B" for a in part_a.tolist()],
    )


def _type19_static(b: Bits, k: NDArray) -> list[StaticData]:
    ship = _SHIP_TYPE[b.uint(263, 8)]
    length, beam = _dims(b, 271)
    return _statics(
        b.uint(8, 30).tolist(),
        k,
        name=b.text(143, 120),
        ship_type=_obj(ship, ship != 0),
        length_m=length,
        beam_m=beam,
    )


# bits read per type: the widest field's end
_WIDTH = {1: 137, 2: 137, 3: 137, 4: 134, 18: 133, 19: 301, 27: 94, 5: 422, 24: 162}
_GROUPS: tuple[tuple[tuple[int, ...], Any], ...] = (
    ((1, 2, 3), lambda b, k: _positions(b, k, b.uint(38, 4).tolist(), 50)),
    ((18, 19), lambda b, k: _positions(b, k, None, 46)),
    ((27,), _type27),
    ((5,), _type5),
    ((24,), _type24),
    ((4,), _type4),
)
#: message types decoded in columns
COLUMN_TYPES = frozenset(k for types, _ in _GROUPS for k in types)
_GROUP_OF = np.full(64, -1, dtype=np.int64)
for _g, (_types, _) in enumerate(_GROUPS):
    _GROUP_OF[list(_types)] = _g


def decode_columns(
    buf: NDArray, start: NDArray, length: NDArray, fill: NDArray, mtype: NDArray
) -> tuple[list[Record | None], list[Record | None]]:
    """Records of a batch of payloads, the ``length`` armoured characters from each
    ``start`` in ``buf`` less ``fill`` bits (times, sources and raw lines are left to
    the caller):
    the first record of each payload (None for a type not decoded here), and the second
    (type 19's static part) or None."""
    n = len(mtype)
    first: NDArray = np.full(n, None, dtype=object)
    second: list[Record | None] = [None] * n
    group = _GROUP_OF[mtype]
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(_GROUPS) + 1))
    for g, (types, build) in enumerate(_GROUPS):
        sel = order[bounds[g] : bounds[g + 1]]
        if not len(sel):
            continue
        b = Bits(buf, start[sel], length[sel], fill[sel], _WIDTH[types[0]])
        k = mtype[sel]
        first[sel] = build(b, k)
        if types == (18, 19):
            is19 = k == 19
            if is19.any():
                at = sel[is19]
                b19 = Bits(buf, start[at], length[at], fill[at], _WIDTH[19])
                for i, rec in zip(at.tolist(), _type19_static(b19, k[is19]), strict=True):
                    second[i] = rec
    return list(first.tolist()), second


class Slot:
    """Stands in the output for a multi-sentence message decoded at the end of the block."""

    __slots__ = ("n", "second")

    def __init__(self, n: int, second: bool) -> None:
        self.n = n
        self.second = second


Deferred = tuple[str, int, float, str, tuple[str, ...], "dict[str, float] | None"]


def payload_buffer(payloads: list[str]) -> tuple[NDArray, NDArray, NDArray]:
    """Payload strings (already checked against the alphabet) as one buffer with the
    start and length of each."""
    data = np.frombuffer("".join(payloads).encode("ascii"), dtype=np.uint8)
    lengths = np.fromiter(map(len, payloads), dtype=np.int64, count=len(payloads))
    starts = np.zeros(len(payloads), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    buf = np.zeros(len(data) + 8, dtype=np.uint8)
    buf[: len(data)] = data
    return buf, starts, lengths


def fill_slots(deferred: list[Deferred], out: list[Any], slots: list[int]) -> None:
    """Decode the multi-sentence messages of a block in columns and put their records
    in the places (``slots`` in ``out``) held for them."""
    buf, starts, lengths = payload_buffer([d[0] for d in deferred])
    fills = np.fromiter((d[1] for d in deferred), dtype=np.int64, count=len(deferred))
    mtype = SIXBIT[buf[starts]].astype(np.int64)
    first, second = decode_columns(buf, starts, lengths, fills, mtype)
    for i in slots:
        slot = out[i]
        _, _, t, source, raw, extras = deferred[slot.n]
        r = second[slot.n] if slot.second else first[slot.n]
        assert r is not None  # deferred only for types decoded here
        r.t = t
        r.source = source
        r.raw = raw
        if extras and type(r) is Position:
            r.extras = extras
        out[i] = r
