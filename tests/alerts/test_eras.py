"""Each vessel's verdicts depend only on its own records (issue 23): a capture replayed
after another era's traffic (time going back years) raises exactly the leads it raises
alone, whatever the batching, as broker mode's partitions would."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.bus_rig import batches, demo_records, reference_leads
from vigia.ingest.records import Record
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex

INDEX = ZoneIndex(load_zones([bundled_zones_dir()]))
CAPTURE = demo_records()
YEARS_2_5 = 2.5 * 365.25 * 86_400.0


def _run(chunks: Sequence[Sequence[Record]]) -> dict[str, dict[str, object]]:
    return {k: v.to_json() for k, v in reference_leads(chunks, route_them=False).items()}


def _other_era(shift_s: float, mmsi_offset: int) -> list[Record]:
    return [
        dataclasses.replace(r, t=r.t + shift_s, mmsi=r.mmsi + mmsi_offset)  # type: ignore[type-var]
        for r in CAPTURE
    ]


ALONE = _run(batches(CAPTURE, 50))


def test_the_capture_raises_leads_alone() -> None:
    assert len(ALONE) >= 5  # the test below would prove nothing on a quiet capture


@settings(max_examples=12, deadline=None)
@given(
    size=st.sampled_from([1, 7, 50, 333, 2000]),
    years_ahead=st.sampled_from([2.5, 1.0, 0.01]),
)
def test_a_capture_after_a_later_era_raises_the_same_leads(size: int, years_ahead: float) -> None:
    """Another fleet years later, then this capture (time going back): this capture's
    leads are the ones it raises alone (the later era's are left out of the compare)."""
    later = _other_era(years_ahead * 365.25 * 86_400.0, 1_000)
    got = _run(batches(later + CAPTURE, size))
    mine = {k: v for k, v in got.items() if v["mmsi"] in {r.mmsi for r in CAPTURE}}
    assert mine == ALONE
