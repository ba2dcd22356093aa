"""What goes on the bus: subject names, the MMSI -> partition map, and the record codec.

A bus message carries one partition's slice of one ingest batch (JSON, one array per
record) so a vessel's records keep their order and the broker sees hundreds of records
per publish instead of one. Decoding trusts nothing: a malformed record is skipped and
counted, never raised into the worker.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from vigia.alerts.eras import MAX_ERAS
from vigia.alerts.gaps.coverage import Heard, square_ok
from vigia.ingest.records import Position, Record, StaticData

#: message format version; a worker skips (and counts) messages of a version it does not know
FORMAT = 1
_MAX_RAW = 8  # sentences per record (a type 5 has two; anything more is not AIS)
_MAX_TEXT = 1_000


def earlier(name: str, epoch: int) -> bool:
    """Whether a consumer named ``<bare>-e<rev>`` (or ``<bare>``, from before epochs)
    was made by a holder that claimed before ``epoch``."""
    _, sep, rev = name.rpartition("-e")
    return not sep or not rev.isdigit() or int(rev) < epoch


@dataclass(frozen=True, slots=True)
class Subjects:
    """Every name one deployment uses, derived from its prefix."""

    prefix: str = "vigia"

    @property
    def stream(self) -> str:
        return f"{self.prefix.upper()}_REC"

    def records(self, partition: int) -> str:
        return f"{self.prefix}.rec.{partition}"

    @property
    def records_all(self) -> str:
        return f"{self.prefix}.rec.>"

    @property
    def lead_stream(self) -> str:
        return f"{self.prefix.upper()}_LEADS"

    def lead(self, rule: str, status: str) -> str:
        return f"{self.prefix}.lead.{status}.{rule}"

    @property
    def leads_all(self) -> str:
        return f"{self.prefix}.lead.>"

    def durable(self, partition: int, epoch: int) -> str:
        """The partition's consumer for one holder: named by the state revision the
        holder claimed, so a previous holder's pending fetches (bound by name) reach a
        deleted consumer instead of taking messages from the new one."""
        return f"{self.prefix}-p{partition}-e{epoch}"

    def is_older_durable_of(self, name: str, partition: int, epoch: int) -> bool:
        """Whether ``name`` is a consumer of the partition of a holder that claimed it
        before ``epoch`` (the bare name counts as the earliest). A later holder's is
        never: a holder woken from a pause must not delete the consumer of the one that
        took the partition from it."""
        return self.is_durable_of(name, partition) and earlier(name, epoch)

    def is_durable_of(self, name: str, partition: int) -> bool:
        """Whether ``name`` is one of the partition's consumers, of any holder (the
        bare name is how they were named before holders had epochs)."""
        bare = f"{self.prefix}-p{partition}"
        return name == bare or name.startswith(bare + "-e")

    @property
    def state_bucket(self) -> str:
        return f"{self.prefix}-state"

    @property
    def lease_bucket(self) -> str:
        return f"{self.prefix}-leases"

    @property
    def member_bucket(self) -> str:
        return f"{self.prefix}-members"


def partition_of(mmsi: int, partitions: int) -> int:
    """The fixed MMSI -> partition map every process of a deployment shares."""
    return mmsi % partitions


def _p(r: Position) -> list[Any]:
    return [
        "P", r.mmsi, r.t, r.msg_type, r.lon, r.lat, r.sog, r.cog, r.heading,
        r.nav_status, r.accuracy, r.source, list(r.raw),
    ]  # fmt: skip


def _s(r: StaticData) -> list[Any]:
    return [
        "S", r.mmsi, r.t, r.msg_type, r.name, r.callsign, r.imo, r.ship_type, r.length_m,
        r.beam_m, r.destination, r.part, r.source, list(r.raw),
    ]  # fmt: skip


def encode(
    records: Sequence[Record],
    wall: float,
    clocks: Sequence[float] = (),
    heard: Heard | None = None,
) -> bytes:
    """One bus message body for these records (positions and static data only), with
    the ingest's clock when it read them (how a worker tells a live feed from a replay),
    the whole stream's era clocks then (``Eras.clocks``: a partition sees only its own
    vessels' times, and would otherwise end an era's episodes later than one process
    reading everything) and what the whole stream heard (coverage for gap judging: a
    partition hears only its own vessels, issue 33)."""
    rows = [_p(r) if type(r) is Position else _s(r) for r in records]  # type: ignore[arg-type]
    doc: dict[str, Any] = {"v": FORMAT, "w": wall, "k": list(clocks), "r": rows}
    if heard is not None and (heard.squares or heard.sources):
        names = sorted({src for src, _, _ in heard.sources})
        at = {name: i for i, name in enumerate(names)}
        doc["h"] = {
            "c": heard.squares,
            "n": names,
            "s": [(at[src], bucket, vessel) for src, bucket, vessel in heard.sources],
        }
    return json.dumps(doc, separators=(",", ":")).encode()


def wanted(record: Record) -> bool:
    """Whether a record travels on the bus (evaluation needs nothing else)."""
    return type(record) is Position or type(record) is StaticData


_BIG = 2**62  # integers past this are no AIS value (and a float() of a huge one overflows)


def _int(v: Any, lo: int = -_BIG, hi: int = _BIG) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise ValueError("bad integer")
    return v


def _opt_int(v: Any) -> int | None:
    if v is None or (type(v) is int and -_BIG <= v <= _BIG):
        return v
    raise ValueError("bad integer")


def _num(v: Any) -> float:
    # v - v is 0.0 for every finite float and NaN for inf and NaN; ints are bounded
    # first, so float() cannot overflow on a 400-digit one
    if type(v) is float:
        if v - v == 0.0:
            return v
    elif type(v) is int and -_BIG <= v <= _BIG:
        return float(v)
    raise ValueError("bad number")


def _opt_num(v: Any) -> float | None:
    return None if v is None else _num(v)


def _opt_str(v: Any) -> str | None:
    if v is None or (type(v) is str and len(v) <= _MAX_TEXT):
        return v
    raise ValueError("bad text")


def _str(v: Any) -> str:
    if type(v) is str and len(v) <= _MAX_TEXT:
        return v
    raise ValueError("bad text")


def _raw(v: Any) -> tuple[str, ...]:
    if type(v) is not list or len(v) > _MAX_RAW:
        raise ValueError("bad raw sentences")
    for x in v:  # a loop, not a generator: this runs once per record
        if type(x) is not str or len(x) > _MAX_TEXT:
            raise ValueError("bad raw sentence")
    return tuple(v)


def _opt_bool(v: Any) -> bool | None:
    if v is None or type(v) is bool:
        return v
    raise ValueError("bad flag")


def _record(row: Any) -> Record:
    # the worker's hottest loop (one call per record): arguments positional, the row
    # unpacked once
    if type(row) is not list or not row:
        raise ValueError("not a record")
    if row[0] == "P" and len(row) == 13:
        _, mmsi, t, mt, lon, lat, sog, cog, hd, ns, acc, src, raw = row
        return Position(
            _int(mmsi, 0, 999_999_999), _num(t), _int(mt, 0, 63),
            _opt_num(lon), _opt_num(lat), _opt_num(sog), _opt_num(cog),
            _opt_int(hd), _opt_int(ns), _opt_bool(acc), _str(src), _raw(raw),
        )  # fmt: skip
    if row[0] == "S" and len(row) == 14:
        return StaticData(
            mmsi=_int(row[1], 0, 999_999_999), t=_num(row[2]), msg_type=_int(row[3], 0, 63),
            name=_opt_str(row[4]), callsign=_opt_str(row[5]), imo=_opt_int(row[6]),
            ship_type=_opt_int(row[7]), length_m=_opt_num(row[8]), beam_m=_opt_num(row[9]),
            destination=_opt_str(row[10]), part=_opt_str(row[11]), source=_str(row[12]),
            raw=_raw(row[13]),
        )  # fmt: skip
    raise ValueError("unknown record kind")


class Decoded(NamedTuple):
    """One bus message, as a worker takes it (see :func:`decode`)."""

    records: list[Record]
    #: records skipped as malformed or misrouted (a malformed message counts one)
    bad: int
    #: the ingest clock it carries (None when absent or not a finite number)
    wall: float | None
    #: the stream's era clocks when it was sent, ascending (empty when absent or malformed)
    clocks: list[float]
    #: what the whole stream heard since the partition's last message (rows that are not
    #: well-formed are dropped: coverage is a count, never a crash)
    heard: Heard = Heard([], [])


def decode(body: bytes, partition: int, partitions: int) -> Decoded:
    """Records of one bus message and what it says of the stream.

    A record whose MMSI does not belong to ``partition`` is skipped too: evaluating it
    here would split that vessel's state over two workers.
    """
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return Decoded([], 1, None, [])
    if type(doc) is not dict or doc.get("v") != FORMAT or type(doc.get("r")) is not list:
        return Decoded([], 1, None, [])
    wall: Any = doc.get("w")
    if type(wall) not in (int, float) or not math.isfinite(wall):
        wall = None
    out: list[Record] = []
    bad = 0
    for row in doc["r"]:
        try:
            rec = _record(row)
        except (ValueError, TypeError):
            bad += 1
            continue
        if partition_of(rec.mmsi, partitions) != partition:
            bad += 1
            continue
        out.append(rec)
    return Decoded(
        out, bad, None if wall is None else float(wall), _clocks(doc.get("k")), _heard(doc.get("h"))
    )


#: rows of coverage one message may carry (the publisher splits above it)
MAX_HEARD_ROWS = 20_000
_MAX_SOURCES = 1_000


def _int_in(v: Any, lo: int, hi: int) -> bool:
    return type(v) is int and lo <= v <= hi


def _heard(v: Any) -> Heard:
    if type(v) is not dict:
        return Heard([], [])
    squares, names, rows = v.get("c"), v.get("n"), v.get("s")
    got = Heard([], [])
    if type(squares) is list and len(squares) <= MAX_HEARD_ROWS:
        got.squares.extend(
            (sq, b, m)
            for sq, b, m in (x for x in squares if type(x) is list and len(x) == 3)
            if _int_in(sq, 0, 2**40) and square_ok(sq) and _int_in(b, 0, 2**40)
            and _int_in(m, 0, 999_999_999)
        )  # fmt: skip
    if (
        type(names) is list
        and len(names) <= _MAX_SOURCES
        and all(type(n) is str and len(n) <= _MAX_TEXT for n in names)
        and type(rows) is list
        and len(rows) <= MAX_HEARD_ROWS
    ):
        got.sources.extend(
            (names[i], b, m)
            for i, b, m in (x for x in rows if type(x) is list and len(x) == 3)
            if _int_in(i, 0, len(names) - 1) and _int_in(b, 0, 2**40)
            and _int_in(m, 0, 999_999_999)
        )  # fmt: skip
    return got


def _clocks(v: Any) -> list[float]:
    # bounded like the eras themselves; anything else is ignored (the records still count)
    if type(v) is not list or len(v) > MAX_ERAS + 1:
        return []
    try:
        return sorted(_num(x) for x in v)
    except (ValueError, TypeError):
        return []


def split(records: Iterable[Record], partitions: int) -> dict[int, list[Record]]:
    """Records grouped by partition, each group in arrival order."""
    out: dict[int, list[Record]] = {}
    for r in records:
        if wanted(r):
            out.setdefault(partition_of(r.mmsi, partitions), []).append(r)
    return out
