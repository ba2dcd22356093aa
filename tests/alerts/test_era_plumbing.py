"""The plumbing that carries each era's clock (issue 35), with direct oracles: what
``Eras.clocks`` tells a broker partition, and the clock the forget sweep uses. Hand values
with ``back_s`` = 100 s, as in tests/alerts/test_eras.py."""

from __future__ import annotations

import math
from pathlib import Path

from shapely.geometry import Point

from tests.alerts.scenario_kit import T0, feature, index_from, square
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.eras import Eras
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Position
from vigia.ingest.registry import VesselRegistry


def test_clocks_are_every_older_eras_last_time_then_the_callers_now() -> None:
    assert Eras(back_s=100.0).clocks(5_000.0) == []  # nothing seen: nothing to tell
    e = Eras(back_s=100.0)
    e.tick(1_000.0, -math.inf)  # the first record: the latest era starts at 1,000
    assert e.clocks(1_000.0) == [1_000.0]
    e.tick(500.0, 1_000.0)  # 500 s below it (more than 100): an older era, at 500
    e.tick(550.0, 1_000.0)  # that era's time runs on to 550
    e.tick(200.0, 1_000.0)  # 300 s below the 500 era's start: a third, older still
    # ascending: the 200 era's clock (200), the 500 era's (550), then the latest (now)
    assert e.clocks(1_200.0) == [200.0, 550.0, 1_200.0]


# -- the forget sweep (alerts/settling.py), through the pipeline ------------------------

FORGET = 1_800.0  # EpisodeConfig(forget_after_s=...)
LATE = 7_200.0  # EpisodeConfig().lateness_s: the sweep looks that far behind the clock
DAY = 86_400.0  # Eras' back_s: a leap this long starts a new era


def _pipeline(tmp_path: Path) -> LeadPipeline:
    # one platform far from the vessels below: nothing is ever open, every vessel quiet
    index = index_from([feature(Point(-39.7, -21.9), id="far", kind="platform")], tmp_path)
    return LeadPipeline(index, VesselRegistry(), EpisodeConfig(forget_after_s=FORGET))


def _fix(mmsi: int, t: float) -> Position:
    return Position(mmsi=mmsi, t=t, msg_type=1, lon=-43.1, lat=-23.0, sog=0.0, cog=0.0)


def test_a_vessel_silent_exactly_the_forget_time_is_kept_one_second_more_forgotten(
    tmp_path: Path,
) -> None:
    # the sweep's clock is the stream clock less the lateness bound: silent for
    # (now - 7,200) - T0, forgotten only past 1,800 s of that
    for extra, left in ((0.0, 1), (1.0, 0)):
        pipe = _pipeline(tmp_path)
        pipe.process([_fix(710_000_001, T0)])
        pipe.expire(T0 + LATE + FORGET + extra)
        assert pipe.vessel_count == left, extra


def test_the_sweep_judges_an_older_eras_vessel_on_that_eras_clock(tmp_path: Path) -> None:
    """A replay of last year's capture, then this year's: 100 s into the new era, the
    old era's vessel has been silent 0 s on its own era's clock (its last fix is that
    era's latest time), not the ten days between the two."""
    pipe = _pipeline(tmp_path)
    pipe.process([_fix(710_000_001, T0)])
    pipe.process([_fix(710_000_002, T0 + 10 * DAY)])  # a leap past back_s: a new era
    pipe.expire(T0 + 10 * DAY + 100.0)
    assert pipe.vessel_count == 2


def test_the_sweep_keeps_a_silent_vessel_whose_episode_is_still_open(tmp_path: Path) -> None:
    """Silent past the forget time (1,800 s) but not past the hysteresis (3,600 s): its
    episode is still open, so the vessel stays, and the lead closes once the hold is
    over, not before."""
    lon, lat = -39.735712, -21.906566
    index = index_from(
        [
            feature(Point(lon, lat), id="t-plat", kind="platform"),
            feature(square(lon, lat, 20_000), id="t-jur", kind="jurisdiction", authority="CP"),
        ],
        tmp_path,
    )
    config = EpisodeConfig(forget_after_s=FORGET, hold_s=3_600.0)
    pipe = LeadPipeline(index, VesselRegistry(), config)
    fix = Position(mmsi=710_000_003, t=T0, msg_type=1, lon=lon, lat=lat, sog=8.0, cog=90.0)
    pipe.process([fix])
    assert pipe.expire(T0 + LATE + 2_000.0) == []  # silent 2,000 s: forget time passed
    assert pipe.vessel_count == 1 and len(pipe.open_leads()) == 1
    (lead,) = pipe.expire(T0 + LATE + 3_601.0)  # the hold is over: given out closed
    assert lead.ended_at is not None and pipe.open_leads() == []
