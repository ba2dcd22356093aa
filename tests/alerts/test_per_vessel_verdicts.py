"""Each vessel's verdicts depend only on its own records, whatever else the stream holds
(issue 23): a vessel's leads are the same when its records are interleaved with traffic
of another era (two archives replayed one after the other, years apart, or mixed) as when
they are fed alone. The oracle is the pipeline fed that vessel alone: the claim is that
nothing outside the vessel's own records changes its verdicts.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scripts import aisgen
from tests.alerts.scenario_kit import T0, find_zone, to_positions
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Record, StaticData, iso_utc
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex

YEARS_2_5 = 78_894_000.0  # 2.5 Julian years in seconds


def _track(
    mmsi: int, t0: float, x: float, y: float, legs: list[tuple[float, float, float]]
) -> list[Record]:
    """A fishing boat around a platform: each leg (gap s, distance m, bearing) is a fix
    that long after the previous one, that far from the platform's point."""
    fixes = []
    t = t0
    for gap, dist, bearing in legs:
        t += gap
        lon, lat = aisgen.fwd(x, y, bearing, dist)
        sog = 0.2 if dist < 150 else 6.0
        fixes.append(aisgen.Fix(t, lon, lat, sog, bearing, 0))
    static = StaticData(mmsi, t0 - 60, 5, name="SYNTH", ship_type=30, length_m=18.0)
    return [static, *to_positions(mmsi, fixes)]


def _leads(index: ZoneIndex, stream: list[Record], batch: int) -> dict[int, list[Any]]:
    """Every lead of feeding ``stream`` in its order, by MMSI, as the user sees them."""
    pipe = LeadPipeline(index, VesselRegistry())
    out: list[Lead] = []
    for i in range(0, len(stream), batch):
        out += pipe.process(stream[i : i + batch])
        out += pipe.expire(pipe.stream_time)  # as vigia replay and broker mode do
    out += pipe.finish()
    by: dict[int, list[Any]] = {}
    for lead in out:
        by.setdefault(lead.mmsi, []).append(lead.to_json())
    return {m: sorted(v, key=lambda x: (x["started_at"], x["id"])) for m, v in by.items()}


legs = st.lists(
    st.tuples(
        st.sampled_from([10.0, 60.0, 100.0, 590.0, 610.0, 1300.0, 4000.0]),
        st.sampled_from([30.0, 120.0, 480.0, 560.0, 900.0, 3000.0]),
        st.sampled_from([0.0, 90.0, 200.0]),
    ),
    min_size=3,
    max_size=25,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mine=legs,
    theirs=st.lists(legs, min_size=1, max_size=3),
    era=st.sampled_from([-YEARS_2_5, YEARS_2_5, -3 * 365 * 86_400.0]),
    how=st.sampled_from(["mine first", "theirs first", "mixed"]),
    seed=st.randoms(use_true_random=False),
    batch=st.sampled_from([1, 7, 50]),
)
def test_a_vessels_leads_do_not_depend_on_another_eras_traffic(
    bundled: ZoneIndex,
    mine: list[tuple[float, float, float]],
    theirs: list[list[tuple[float, float, float]]],
    era: float,
    how: str,
    seed: Any,
    batch: int,
) -> None:
    _, platform = find_zone(bundled, "platform", "FPSO CIDADE DE ANCHIETA")
    x, y = platform.geometry.x, platform.geometry.y  # type: ignore[attr-defined]
    me = _track(710_300_001, T0, x, y, mine)
    others = [_track(710_300_100 + k, T0 + era, x, y, their) for k, their in enumerate(theirs)]
    if how == "mine first":
        stream = me + [r for o in others for r in o]
    elif how == "theirs first":
        stream = [r for o in others for r in o] + me
    else:
        # each vessel's records in their own order, the two eras shuffled together
        queues = [list(me), *(list(o) for o in others)]
        stream = []
        while any(queues):
            q = seed.choice([q for q in queues if q])
            stream.append(q.pop(0))
    together = _leads(bundled, stream, batch)
    # my leads as if the other era did not exist, and theirs as if I did not: within one
    # era the stream's clock is shared (a vessel falls silent while others report), so
    # the other era's vessels are compared with their own era's traffic fed alone
    assert together.get(me[0].mmsi, []) == _leads(bundled, me, batch).get(me[0].mmsi, [])
    their_stream = [r for r in stream if r.mmsi != me[0].mmsi]
    theirs_alone = _leads(bundled, their_stream, batch)
    assert {m: v for m, v in together.items() if m != me[0].mmsi} == theirs_alone


def test_the_issue_case_an_earlier_archive_replayed_after_a_later_one(
    bundled: ZoneIndex,
) -> None:
    """Hand-made: a boat stopped 30 m off the FPSO for 20 minutes, in an archive replayed
    after one 2.5 years later. Alone it is one lead from its first fix; after the later
    archive, a single clock made it look silent between every two fixes."""
    _, platform = find_zone(bundled, "platform", "FPSO CIDADE DE ANCHIETA")
    x, y = platform.geometry.x, platform.geometry.y  # type: ignore[attr-defined]
    later = _track(710_300_200, T0 + YEARS_2_5, x, y, [(60.0, 3000.0, 90.0)] * 5)
    boat = _track(710_300_201, T0, x, y, [(60.0, 30.0, 90.0)] * 20)
    alone = _leads(bundled, boat, 7)[710_300_201]
    assert len(alone) == 1 and alone[0]["started_at"] == iso_utc(T0 + 60)
    assert alone[0]["ended_at"] is None  # still there when the archive ends
    assert _leads(bundled, later + boat, 7)[710_300_201] == alone
