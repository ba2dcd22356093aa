"""One capture file delivered in other orders, message by message (a multi-sentence
message's lines stay together and in order, as a receiver forwards them)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from scripts.satfeed import deliver
from vigia.alerts.lead import Lead
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import Position, RawLine, Record

Message = tuple[int, float, list[str]]  # (mmsi, time, its lines)
T = TypeVar("T")


def messages(path: Path) -> list[Message]:
    """The file's messages in file order, each with its MMSI, time and lines."""
    ing = Ingestor()
    out: list[Message] = []
    group: list[str] = []
    for text in path.read_text(encoding="utf-8").splitlines():
        if not text.strip() or text.startswith("#"):
            continue
        group.append(text)
        # received "later" than any tag time, so no tag time is clamped to the receipt
        recs = ing.feed(RawLine(text, 4_000_000_000.0, "order"))
        if recs:
            out.append((recs[0].mmsi, recs[0].t, group))
            group = []
    return out


def write(path: Path, msgs: list[Message]) -> Path:
    path.write_text("".join(line + "\n" for _, _, lines in msgs for line in lines))
    return path


def by_source(msgs: list[Message]) -> list[Message]:
    """Two receivers' files concatenated: odd MMSIs' messages, then even ones' (each
    vessel's own still in order)."""
    return [m for m in msgs if m[0] % 2] + [m for m in msgs if not m[0] % 2]


def shuffled_across_vessels(items: Sequence[T], seed: int, key: Callable[[T], int]) -> list[T]:
    """Vessels (``key``) interleaved at random, each vessel's own items in order."""
    rng = random.Random(seed)
    queues: dict[int, list[T]] = {}
    for m in items:
        queues.setdefault(key(m), []).append(m)
    left = [list(reversed(q)) for q in queues.values()]
    out: list[T] = []
    while left:
        q = rng.choice(left)
        out.append(q.pop())
        if not q:
            left.remove(q)
    return out


def staggered_fleets(records: Sequence[Record], copies: int) -> list[Record]:
    """``copies`` fleets sailing a capture at once, 7 minutes apart (MMSI + 1000 k),
    merged by time: many vessels and leads, and ties across vessels."""
    out = [
        dataclasses.replace(r, mmsi=r.mmsi + 1_000 * k, t=r.t + 420.0 * k)  # type: ignore[type-var]
        for k in range(copies)
        for r in records
    ]
    out.sort(key=lambda r: r.t)
    return out


def satellite(msgs: list[Message], seed: int, max_delay_s: float = 5_400.0) -> list[Message]:
    """Late batches per vessel (0-90 min), interleaved, a few percent twice."""
    ordered = sorted(msgs, key=lambda m: m[1])
    return deliver(
        ordered, key=lambda m: m[0], time=lambda m: m[1], seed=seed, max_delay_s=max_delay_s
    )


def late_and_twice(watch: Any, recs: Sequence[Position], rng: random.Random,
                   twice: int = 40, late_s: float = 1_800.0) -> list[Lead]:  # fmt: skip
    """What an interference watch (``feed``/``expire``) gives when each fix of ``recs``
    comes late by up to ``late_s``, ``twice`` of them twice, in batches of 1 to 60,
    the clock being the latest fix yet; then the final expiry."""
    shuffled = sorted([*recs, *rng.sample(list(recs), twice)],
                      key=lambda r: r.t + rng.uniform(0, late_s))  # fmt: skip
    out: list[Lead] = []
    i = 0
    while i < len(shuffled):
        k = rng.randint(1, 60)
        watch.feed(shuffled[i : i + k])
        out += watch.expire(max(r.t for r in shuffled[: i + k]))
        i += k
    return out + watch.expire(max(r.t for r in recs), final=True)


def in_order(watch: Any, recs: Sequence[Position], batch: int = 40) -> list[Lead]:
    """What an interference watch gives for ``recs`` sorted by time, in batches of
    ``batch``, the clock at each batch's last fix; then the final expiry."""
    recs = sorted(recs, key=lambda r: r.t)
    out: list[Lead] = []
    for i in range(0, len(recs), batch):
        watch.feed(recs[i : i + batch])
        out += watch.expire(recs[min(i + batch, len(recs)) - 1].t)
    return out + watch.expire(recs[-1].t, final=True)
