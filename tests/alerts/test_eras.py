"""Each vessel's verdicts depend only on its own records (issue 23): a capture replayed
after, before or interleaved with another era's traffic (time going back and forth by
years) raises exactly the leads it raises alone, whatever the batching, as broker mode's
partitions (which see only some of each era) would.

The era bookkeeping is checked first with hand values on both sides of each boundary
(``back_s`` = 100 s to keep the arithmetic visible), then end to end on a real capture.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.bus_rig import batches, demo_records, reference_leads
from vigia.alerts.eras import MAX_ERAS, Eras
from vigia.ingest.records import Record

# -- the bookkeeping, by hand --------------------------------------------------------


def _started(t: float = 1_000.0) -> Eras:
    """A stream whose first record was at ``t`` (the first record always jumps)."""
    e = Eras(back_s=100.0)
    assert e.tick(t, -math.inf) == t
    assert (e.floor, e.count) == (t, 1)
    return e


def test_a_record_back_s_before_the_era_start_is_a_late_record_of_it() -> None:
    e = _started()
    assert e.tick(900.0, 1_000.0) == 1_000.0  # the clock never goes back
    assert (e.floor, e.count) == (900.0, 1)
    assert e.clock(900.0, 1_050.0) == 1_050.0  # on the latest era's clock


def test_a_record_more_than_back_s_before_the_era_start_starts_an_older_era() -> None:
    e = _started()
    e.tick(899.0, 1_000.0)
    assert (e.floor, e.count) == (1_000.0, 2)
    assert e.clock(899.0, 5_000.0) == 899.0  # its clock is its own latest time


def test_an_older_era_runs_forward_on_its_own_records() -> None:
    e = _started()
    e.tick(500.0, 1_000.0)
    e.tick(550.0, 1_000.0)  # 450 s below the latest era: still the older era's time
    assert e.count == 2
    assert e.clock(520.0, 1_000.0) == 550.0
    e.tick(900.0, 1_000.0)  # within back_s of the latest era: joins that one
    assert (e.floor, e.count) == (900.0, 2)
    assert e.clock(550.0, 1_000.0) == 550.0


def test_a_forward_jump_of_back_s_starts_a_new_era_and_one_less_does_not() -> None:
    e = _started()
    assert e.tick(1_099.0, 1_000.0) == 1_099.0  # 99 s: the same era
    assert (e.floor, e.count) == (1_000.0, 1)
    assert e.tick(1_199.0, 1_099.0) == 1_199.0  # exactly back_s: a new era
    assert (e.floor, e.count) == (1_199.0, 2)
    # the earlier era ends where the stream clock was; its vessels expire on that
    assert e.clock(1_050.0, 9_999.0) == 1_099.0
    assert e.clock(1_199.0, 9_999.0) == 9_999.0


def test_an_older_era_quiet_for_back_s_merges_into_the_next() -> None:
    e = _started()
    e.tick(500.0, 1_000.0)  # an older era, last seen at stream time 1 000
    e.settle(1_100.0)  # quiet for exactly back_s: still its own
    assert (e.count, e.clock(500.0, 1_100.0)) == (2, 500.0)
    e.settle(1_101.0)  # quiet for longer: over
    assert (e.floor, e.count) == (500.0, 1)
    assert e.clock(500.0, 1_101.0) == 1_101.0


def test_a_jump_to_a_later_era_is_no_quiet_time_for_the_earlier_ones() -> None:
    # found by the interleaving test below on CI: the capture's era was settled the
    # moment the other era's first position leapt 2.5 years ahead, so every later
    # record of the capture closed its vessel's episode on the other era's clock
    e = _started()
    e.tick(500.0, 1_000.0)  # an older era, seen at progress 0
    assert e.tick(90_000.0, 1_000.0) == 90_000.0  # a jump: [1 000] becomes older too
    e.settle(90_100.0)  # 100 s of stream time since: still apart
    assert (e.count, e.clock(500.0, 90_100.0), e.clock(1_000.0, 90_100.0)) == (3, 500.0, 1_000.0)
    e.settle(90_101.0)  # 101 s: both over
    assert (e.floor, e.count) == (500.0, 1)


def test_a_record_keeps_an_older_era_from_settling() -> None:
    e = _started()
    e.tick(500.0, 1_000.0)
    e.tick(510.0, 1_090.0)  # seen again at stream time 1 090
    e.settle(1_150.0)
    assert (e.count, e.clock(505.0, 1_150.0)) == (2, 510.0)


def test_eras_are_bounded_and_the_oldest_merge_on_the_later_clock() -> None:
    e = _started(1_000_000.0)
    for k in range(1, MAX_ERAS + 11):  # each 1 000 s below the last: its own era
        e.tick(1_000_000.0 - 1_000.0 * k, 1_000_000.0)
    assert e.count == MAX_ERAS + 1  # the older ones plus the latest
    oldest = 1_000_000.0 - 1_000.0 * (MAX_ERAS + 10)
    # the oldest era now reaches up to the end of the ones merged into it
    assert e.clock(oldest, 2e6) == 1_000_000.0 - 1_000.0 * MAX_ERAS


# -- end to end on a real capture ----------------------------------------------------

CAPTURE = demo_records()
MMSIS = {r.mmsi for r in CAPTURE}
YEAR_S = 365.25 * 86_400.0


def _run(chunks: Sequence[Sequence[Record]]) -> dict[str, dict[str, object]]:
    """The capture's own leads (another era's are left out of the compare)."""
    got = reference_leads(chunks, route_them=False)
    return {k: v.to_json() for k, v in got.items() if v.mmsi in MMSIS}


def _other_era(shift_s: float, mmsi_offset: int = 1_000) -> list[Record]:
    return [
        dataclasses.replace(r, t=r.t + shift_s, mmsi=r.mmsi + mmsi_offset)  # type: ignore[type-var]
        for r in CAPTURE
    ]


ALONE = _run(batches(CAPTURE, 50))


def test_the_capture_raises_leads_alone() -> None:
    # the tests below would prove nothing on a quiet capture
    assert len(ALONE) >= 5
    assert _run(batches(CAPTURE, 1)) == ALONE == _run(batches(CAPTURE, 2_000))


@settings(max_examples=15, deadline=None)
@given(
    size=st.sampled_from([1, 7, 50, 333, 2_000]),
    years=st.sampled_from([2.5, 1.0, 0.01, -1.0]),
    capture_first=st.booleans(),
)
def test_a_capture_before_or_after_another_era_raises_the_same_leads(
    size: int, years: float, capture_first: bool
) -> None:
    """Another fleet years later (or earlier), streamed whole before or after this
    capture: time jumps forward or back once between them."""
    other = _other_era(years * YEAR_S)
    stream = CAPTURE + other if capture_first else other + CAPTURE
    assert _run(batches(stream, size)) == ALONE


@settings(max_examples=15, deadline=None)
@given(
    size=st.sampled_from([1, 7, 50, 333, 2_000]),
    years=st.sampled_from([2.5, 0.01, -1.0]),
    picks=st.lists(st.booleans(), min_size=len(CAPTURE) * 2, max_size=len(CAPTURE) * 2),
)
def test_a_capture_interleaved_with_another_era_raises_the_same_leads(
    size: int, years: float, picks: list[bool]
) -> None:
    """Two archives of different years merged record by record in any order that keeps
    each one's own order, as two receivers' replays or a broker partition would see."""
    mine, other = iter(CAPTURE), iter(_other_era(years * YEAR_S))
    stream: list[Record] = []
    for take_mine in picks:
        r = next(mine if take_mine else other, None) or next(other if take_mine else mine, None)
        if r is not None:
            stream.append(r)
    assert len(stream) == 2 * len(CAPTURE)
    assert _run(batches(stream, size)) == ALONE
