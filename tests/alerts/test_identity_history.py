"""The identity history the pipeline hands out (issue 34): every change of name, call
sign, IMO, ship type, length and beam, and an IMO failing its check digit, in the
vessel's own time order; the day's cap; and the same stored history however the records
arrive (late batches, duplicates, twice over), checked against the hand-built capture
of tests/support/identity_capture.py through a model of the store's rules."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scripts import aisgen
from scripts.satfeed import deliver
from tests.alerts.scenario_kit import to_positions
from tests.support import identity_capture as cap
from tests.support.orders import shuffled_across_vessels
from vigia.alerts.identity.history import DAY_CAP, HistoryOut, IdentityChange, utc_day
from vigia.alerts.identity.static import Ident
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Record, StaticData
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex

INDEX = ZoneIndex([])
Row = tuple[float, str, Any, Any]


class Store:
    """The store's rules (service/db/identity_history.py) on dicts: replaced stretches,
    a change kept once, at most DAY_CAP rows per vessel and day, the highest count."""

    def __init__(self) -> None:
        self.rows: dict[tuple[int, float, str], tuple[Any, Any]] = {}
        self.days: dict[tuple[int, int], int] = {}

    def apply(self, h: HistoryOut) -> None:
        for m, t in h.redo.items():
            self.rows = {k: v for k, v in self.rows.items() if k[0] != m or k[1] < t}
            self.days = {k: n for k, n in self.days.items() if k[0] != m or k[1] < utc_day(t)}
        for c in h.changes:
            day = [k for k in self.rows if k[0] == c.mmsi and utc_day(k[1]) == c.day]
            if (c.mmsi, c.t, c.field) not in self.rows and len(day) < DAY_CAP:
                self.rows[(c.mmsi, c.t, c.field)] = (c.before, c.after)
        for k, n in h.days.items():
            self.days[k] = max(self.days.get(k, 0), n)

    def history(self) -> dict[int, list[Row]]:
        out: dict[int, list[Row]] = {}
        for (m, t, f), (a, b) in sorted(self.rows.items(), key=lambda x: (x[0][1], x[0][0])):
            out.setdefault(m, []).append((t, f, a, b))
        return out


def run(records: Sequence[Record], sizes: Sequence[int] = (500,)) -> Store:
    """The records through a pipeline that stores its history, taken after each batch
    (as the worker does) and applied to a store."""
    pipe = LeadPipeline(INDEX, VesselRegistry())
    pipe.record_identity()
    store = Store()
    i = k = 0
    while i < len(records):
        n = sizes[k % len(sizes)]
        pipe.process(records[i : i + n])
        pipe.expire(pipe.stream_time)
        store.apply(pipe.take_identity())
        i, k = i + n, k + 1
    pipe.finish()
    store.apply(pipe.take_identity())
    return store


CAPTURE = cap.records()
SORTED = run(CAPTURE)


def test_the_capture_leaves_the_history_written_down_by_hand() -> None:
    got = SORTED.history()
    assert sorted(got) == [cap.A, cap.B, cap.C, cap.D]
    for mmsi, want in cap.EXPECTED.items():
        # changes of one report share its time: compared as sets per time
        assert sorted(got[mmsi], key=str) == sorted(want, key=str), mmsi
    assert SORTED.days == cap.EXPECTED_DAYS


def test_a_change_says_its_message_type_and_source() -> None:
    pipe = LeadPipeline(INDEX, VesselRegistry())
    pipe.record_identity()
    pipe.process([
        StaticData(cap.A, cap.T0, 5, name="A", source="tcp:rx1"),
        StaticData(cap.A, cap.T0 + 60, 24, name="B", part="A", source="tcp:rx2"),
    ])  # fmt: skip
    (c,) = pipe.take_identity().changes
    assert c == IdentityChange(cap.A, cap.T0 + 60, "name", "A", "B", 24, "tcp:rx2", 1)
    assert c.to_json() == {
        "t": "2026-01-01T22:31:00Z", "field": "name", "before": "A", "after": "B",
        "msg_type": 24, "source": "tcp:rx2",
    }  # fmt: skip
    assert not pipe.take_identity()  # taken once


def test_the_day_cap_is_the_first_fifty_and_the_next_day_counts_afresh() -> None:
    day = {m: n for (m, _), n in SORTED.days.items() if m == cap.C}
    assert day == {cap.C: 119}
    kept = SORTED.history()[cap.C]
    assert len(kept) == DAY_CAP == 50
    assert kept[-1][0] == cap.T0 + 30.0 * 50  # the 50th change kept, the 51st not
    # D's changes either side of midnight are the first of their days
    assert SORTED.days[(cap.D, utc_day(cap.MIDNIGHT))] == 1


def test_a_replay_that_stores_nothing_keeps_nothing() -> None:
    pipe = LeadPipeline(INDEX, VesselRegistry())
    pipe.process(CAPTURE)
    assert pipe.identity_out() is None and not pipe.take_identity()


def test_a_late_report_replaces_what_was_handed_out_after_it() -> None:
    pipe = LeadPipeline(INDEX, VesselRegistry())
    pipe.record_identity()
    sd = [StaticData(cap.A, cap.T0 + 60 * k, 5, name=n) for k, n in enumerate("ABCD")]
    pipe.process([sd[0], sd[1], sd[3]])  # A, B, D: A->B at 60, B->D at 180
    first = pipe.take_identity()
    assert [(c.t - cap.T0, c.before, c.after) for c in first.changes] == [
        (60, "A", "B"), (180, "B", "D"),
    ]  # fmt: skip
    pipe.process([sd[2]])  # C at 120, late: from then on B->C, C->D
    late = pipe.take_identity()
    # judged again from the copy of the vessel's state before its first record (a copy
    # is taken every 5 min): its history from then on is replaced
    assert late.redo == {cap.A: cap.T0}
    assert [(c.t - cap.T0, c.before, c.after, c.n) for c in late.changes] == [
        (60, "A", "B", 1), (120, "B", "C", 2), (180, "C", "D", 3),
    ]  # fmt: skip
    store = Store()
    store.apply(first)
    store.apply(late)
    assert [(t - cap.T0, a, b) for t, _, a, b in store.history()[cap.A]] == [
        (60, "A", "B"), (120, "B", "C"), (180, "C", "D"),
    ]  # fmt: skip
    # the two held as one by a writer give the same
    held = HistoryOut()
    held.merge(first)
    held.merge(late)
    other = Store()
    other.apply(held)
    assert other.rows == store.rows and other.days == store.days == {(cap.A, utc_day(cap.T0)): 3}


def test_a_vessel_forgotten_and_heard_again_the_same_day_goes_on_counting() -> None:
    # E renamed at 10:00 UTC, then silent while another ship sails on for four hours
    # (past the bound and the forget time: the sweep forgets E), renamed again at 14:00
    t0, e, other = 1_767_261_600.0, 710_000_711, 710_000_712
    far = [aisgen.Fix(t0 + 60.0 * k, -38.0, -30.0, 10.0, 90.0) for k in range(241)]
    records: list[Record] = [
        StaticData(e, t0 - 60, 5, name="ECO"), StaticData(e, t0, 5, name="ECO I"),
        *to_positions(other, far), StaticData(e, t0 + 4 * 3600 + 30, 5, name="ECO II"),
    ]  # fmt: skip
    records.sort(key=lambda r: r.t)
    for sizes in ((1,), (len(records),)):  # swept in between, or never
        got = run(records, sizes)
        assert got.days == {(e, utc_day(t0)): 2}, sizes
        assert [(t - t0, b) for t, _, _, b in got.history()[e]] == [
            (0, "ECO I"),
            (14_430, "ECO II"),
        ]


def test_an_ident_checkpointed_before_the_history_was_stored_loads() -> None:
    old = Ident()
    old.history = [(cap.T0, "name", "A", "B")]  # type: ignore[list-item]
    state = {k: getattr(old, k) for k in ("events", "history", "last_t", "seen")}
    new = Ident.__new__(Ident)
    new.__setstate__((None, state))
    assert new.history == [] and (new.day, new.day_n) == (0, 0)
    again = pickle.loads(pickle.dumps(new))
    assert again.number(cap.T0) == 1 and again.number(cap.T0 + 1) == 2


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.lists(st.integers(1, 400), min_size=1, max_size=3))
def test_any_order_late_batches_and_duplicates_store_the_same_history(
    seed: int, sizes: list[int]
) -> None:
    want = (SORTED.rows, SORTED.days)
    shuffled = shuffled_across_vessels(CAPTURE, seed, key=lambda r: r.mmsi)
    got = run(shuffled, sizes)
    assert (got.rows, got.days) == want
    # a satellite-like feed: per-vessel batches 0-90 min late, a few percent twice
    fed = deliver(CAPTURE, key=lambda r: r.mmsi, time=lambda r: r.t, seed=seed)
    got = run(fed, sizes)
    assert (got.rows, got.days) == want
    twice = [dataclasses.replace(r) for r in CAPTURE] + list(CAPTURE)
    got = run(sorted(twice, key=lambda r: r.t), sizes)
    assert (got.rows, got.days) == want
