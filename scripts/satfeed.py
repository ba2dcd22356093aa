"""A satellite-like delivery of a capture: late batches, interleaved, with duplicates.

Offshore, where the ballast lines and most platforms are, the only coverage is satellite
AIS. A satellite stores what it hears over a pass and downlinks it minutes to hours
later; passes overlap, and coast stations hear some of the same transmissions at once.
So a vessel's records reach the centre in batches (a pass's worth of one vessel's
reports), each batch late by its own delay, batches of many vessels interleaved, and a
few records twice. This module turns an in-order record list into such a delivery, for
tests and benchmarks; the records themselves are unchanged (a duplicate is the same
record again), so the right answer is always the time-sorted input's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def deliver(
    records: Sequence[T],
    *,
    key: Callable[[T], int],
    time: Callable[[T], float],
    seed: int = 0,
    pass_s: float = 600.0,
    max_delay_s: float = 5_400.0,
    terrestrial: float = 0.5,
    duplicates: float = 0.03,
) -> list[T]:
    """``records`` (in time order) as a satellite-like feed would deliver them.

    Each vessel (``key``) is heard by a coast station (delivered at once, in order)
    with probability ``terrestrial``, otherwise by satellites: its records are cut into
    passes of ``pass_s`` and each pass arrives ``0..max_delay_s`` after its last record.
    A fraction ``duplicates`` of the records arrives a second time, in another pass's
    delivery (overlapping satellites). The result is ordered by arrival time."""
    rng = random.Random(seed)
    heard_by_coast: dict[int, bool] = {}
    arrivals: list[tuple[float, int, T]] = []
    seq = 0
    passes: dict[tuple[int, int], list[T]] = {}
    for r in records:
        k = key(r)
        if k not in heard_by_coast:
            heard_by_coast[k] = rng.random() < terrestrial
        if heard_by_coast[k]:
            arrivals.append((time(r), seq, r))
            seq += 1
        else:
            passes.setdefault((k, int(time(r) // pass_s)), []).append(r)
    for group in passes.values():
        at = time(group[-1]) + rng.uniform(0.0, max_delay_s)
        for r in group:
            arrivals.append((at, seq, r))
            seq += 1
    for r in records:
        if rng.random() < duplicates:
            arrivals.append((time(r) + rng.uniform(0.0, max_delay_s), seq, r))
            seq += 1
    arrivals.sort(key=lambda a: (a[0], a[1]))
    return [a[2] for a in arrivals]
