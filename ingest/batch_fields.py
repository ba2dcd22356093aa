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

_SHIP_TYPE = np.array([int(ShipType.from_value(v)) for v in range(256)], dtype=np.int64)
_SHIFTS = np.arange(5, -1, -1, dtype=np.uint8)
_WEIGHTS6 = np.int64(1) << np.arange(5, -1, -1, dtype=np.int64)
# the 6-bit text alphabet: 0-31 are '@'..'_', 32-63 are ' '..'?'
_TEXT = np.array([v + 64 if v < 32 else v for v in range(64)], dtype=np.uint8)


class Bits:
    """The bits of a batch of payloads of one message type, one row per payload."""

    def __init__(self, sixbit: NDArray, nbits: NDArray, width: int) -> None:
        chars = min((width + 5) // 6, sixbit.shape[1])
        bits = (sixbit[:, :chars, None] >> _SHIFTS) & 1
        bits = bits.reshape(len(sixbit), chars * 6)
        if chars * 6 < width:
            bits = np.concatenate(
                [bits, np.zeros((len(sixbit), width - chars * 6), np.uint8)], axis=1
            )
        bits[np.arange(bits.shape[1]) >= nbits[:, None]] = 0  # fill bits are not data
        self.bits = bits.astype(np.int64)
        self.nbits = nbits

    def uint(self, start: int, width: int) -> NDArray:
        """Unsigned field; cut by the end, the bits that are there (pyais ``get``)."""
        weights = np.int64(1) << np.arange(width - 1, -1, -1, dtype=np.int64)
        full = self.bits[:, start : start + width] @ weights
        avail = np.clip(self.nbits - start, 0, width)
        return np.asarray(full >> (width - avail), dtype=np.int64)

    def int(self, start: int, width: int) -> NDArray:
        """Signed field (two's complement); callers only read whole signed fields."""
        v = self.uint(start, width)
        return np.where(v >= 1 << (width - 1), v - (1 << width), v)

    def text(self, start: int, width: int) -> list[str | None]:
        """6-bit text, trailing '@' and blanks cut, '' as None (Vigia's ``_text``)."""
        n = width // 6
        codes = self.bits[:, start : start + width].reshape(len(self.bits), n, 6) @ _WEIGHTS6
        # the character cut by the end is its bits that are there (pyais ``get``)
        cut = np.clip(start + 6 * np.arange(1, n + 1) - self.nbits[:, None], 0, 6)
        codes >>= cut
        chars = np.ascontiguousarray(_TEXT[codes]).view(f"S{n}").ravel()
        return [s.rstrip(b"@").strip().decode() or None for s in chars.tolist()]


def _obj(values: NDArray, valid: NDArray) -> list[Any]:
    """Python floats/ints where ``valid``, None elsewhere."""
    out = values.astype(object)
    out[~valid] = None
    return list(out.tolist())


def _lonlat(b: Bits, at: int, width: int, scale: int) -> tuple[list[Any], list[Any]]:
    lon = b.int(at, width)
    lat = b.int(at + width, width - 1)
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
    sixbit: NDArray, nbits: NDArray, mtype: NDArray
) -> tuple[list[Record | None], list[Record | None]]:
    """Records of a batch of payloads (times, sources and raw lines left to the caller):
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
        b = Bits(sixbit[sel], nbits[sel], _WIDTH[types[0]])
        k = mtype[sel]
        first[sel] = build(b, k)
        if types == (18, 19):
            is19 = k == 19
            if is19.any():
                at = sel[is19]
                b19 = Bits(sixbit[at], nbits[at], _WIDTH[19])
                for i, rec in zip(at.tolist(), _type19_static(b19, k[is19]), strict=True):
                    second[i] = rec
    return list(first.tolist()), second
