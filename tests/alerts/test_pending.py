"""The interference watch's unsettled fixes (alerts/identity/pending.py): a vessel keeps
the first and the last fix of each 30 s by (time, lon, lat), whatever order they come
in. The oracle groups the fixes by ``t // 30`` itself and takes min and max."""

from __future__ import annotations

import pickle
import random

import pytest

from vigia.alerts.identity.pending import Pending, bucket_of

Fix = tuple[float, float, float]


def oracle(fixes: list[Fix]) -> list[Fix]:
    by: dict[int, list[Fix]] = {}
    for f in fixes:
        by.setdefault(int(f[0] // 30), []).append(f)
    return sorted({x for g in by.values() for x in (min(g), max(g))})


def held(p: Pending) -> list[Fix]:
    return list(zip(p.t, p.lon, p.lat, strict=True))


@pytest.mark.parametrize("seed", range(30))
def test_first_and_last_of_each_30_s_in_any_order(seed: int) -> None:
    rng = random.Random(seed)
    # half-second times (exact in binary), clustered so buckets hold 0 to many fixes,
    # some times and some whole fixes repeated
    fixes = [(rng.randrange(0, 400) / 2, float(rng.randrange(3)), float(rng.randrange(3)))
             for _ in range(rng.randrange(1, 80))]  # fmt: skip
    fixes += rng.sample(fixes, len(fixes) // 4)
    want = oracle(fixes)
    for _ in range(5):
        rng.shuffle(fixes)
        p = Pending()
        for f in fixes:
            before = len(p)
            thinned, earliest = p.add(*f)
            assert len(p) == before + (not thinned)  # one held more, or one thinned
            if earliest:  # a new earliest time: the watch's heap needs its entry
                assert p.t[0] == f[0] and f[0] == min(x[0] for x in held(p))
        assert held(p) == want


def test_bucket_boundaries() -> None:
    assert bucket_of(29.999999999999996) == 0 and bucket_of(30.0) == 1
    assert bucket_of(-0.5) == -1 and bucket_of(0.0) == 0
    t0 = 1_767_261_600.0  # a multiple of 30
    assert bucket_of(t0) == t0 // 30 and bucket_of(t0 - 1e-6) == t0 // 30 - 1
    p = Pending()
    for t in (t0 - 1e-6, t0, t0 + 15, t0 + 29.5, t0 + 30):
        p.add(t, 0.0, 0.0)
    # t0 + 15 lies between the first and last of its 30 s; the others open or end one
    assert list(p.t) == [t0 - 1e-6, t0, t0 + 29.5, t0 + 30]


def test_settling_takes_them_in_order_and_a_state_round_trips() -> None:
    p = Pending()
    for f in [(60.0, 1.0, 2.0), (0.0, 3.0, 4.0), (10.0, 5.0, 6.0)]:
        p.add(*f)
    q = pickle.loads(pickle.dumps(p, pickle.HIGHEST_PROTOCOL))
    assert held(q) == held(p) == [(0.0, 3.0, 4.0), (10.0, 5.0, 6.0), (60.0, 1.0, 2.0)]
    assert q.pop_first() == (0.0, 3.0, 4.0) and len(q) == 2


def test_a_checkpoint_from_before_the_packing_loads_and_gives_the_same_lead() -> None:
    """A worker's checkpoint from stop 45 held every unsettled fix in one heap of
    tuples and each circle run's fixes as a list: it loads, and the run goes on."""
    from tests.alerts.test_circles import circling
    from vigia.alerts.identity.circles import Run
    from vigia.alerts.identity.interference import InterferenceWatch

    recs = circling(3.5)
    half = len(recs) // 2

    def run(old_format: bool) -> list[dict[str, object]]:
        w = InterferenceWatch(7_200.0)
        w.feed(recs[:half])
        out = w.expire(recs[half - 1].t)
        state = pickle.loads(pickle.dumps(w)).__dict__
        if old_format:
            state["_pending"] = sorted(
                (t, m, lon, lat)
                for m, p in state["_pending"].items()
                for t, lon, lat in zip(p.t, p.lon, p.lat, strict=True)
            )
            del state["_heap"]
            for m, r in list(state["_circles"]._runs.items()):
                old = Run.__new__(Run)
                fixes = r.fixes
                old.__setstate__((None, {"heading": r.heading, "last": r.last,
                                         "turned": r.turned, "fixes": fixes}))  # fmt: skip
                assert old.fixes == fixes
                state["_circles"]._runs[m] = old
        w = InterferenceWatch.__new__(InterferenceWatch)
        w.__setstate__(state)
        w.feed(recs[half:])
        out += w.expire(recs[-1].t, final=True)
        return [x.details for x in out]

    new = run(False)
    assert len(new) == 1 and run(True) == new
