"""A track drawn as circles (issue 34): three laps of a near perfect circle are one
``ID-CIRCLE`` lead; a turning trial, a ship at anchor, an ellipse or a circle too small
or too large are not. Tracks are made on a sphere by hand (the centre, a radius, an
angle a fix), so the expected radius, centre and laps are the ones that drew them."""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import pytest

from tests.support.orders import in_order, late_and_twice
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.identity.circles import RULE, fit_circle
from vigia.alerts.identity.interference import InterferenceWatch
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Position
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex

T0 = 1_767_261_600.0  # 2026-01-01T10:00:00Z
C = (-40.0, -23.0)  # open sea off Cabo Frio
R = 6_371_008.8
SHIP = 710_000_501


def on_circle(radius: float, angle_deg: float, squash: float = 1.0) -> tuple[float, float]:
    """The point ``angle_deg`` clockwise from north on a circle about C (an ellipse when
    ``squash`` shrinks the east-west axis), in degrees."""
    a = math.radians(angle_deg)
    east, north = radius * math.sin(a) * squash, radius * math.cos(a)
    return (C[0] + math.degrees(east / (R * math.cos(math.radians(C[1])))),
            C[1] + math.degrees(north / R))  # fmt: skip


def circling(laps: float, radius: float = 500.0, step_deg: float = 6.0, dt: float = 30.0,
             squash: float = 1.0, mmsi: int = SHIP) -> list[Position]:  # fmt: skip
    """Fixes every ``dt`` s, ``step_deg`` further round each time, through ``laps``
    turns of the track (the legs turn by ``step_deg`` a fix: n fixes, n - 2 turns). One
    fix a 30 s by default: the interference watch keeps the first and last fix of each
    vessel's 30 s (alerts/identity/pending.py), so none of these is thinned."""
    n = round(laps * 360.0 / step_deg) + 2
    return [
        Position(mmsi, T0 + dt * i, 1, *on_circle(radius, step_deg * i, squash), 10.0, 0.0, 0, 0)
        for i in range(n)
    ]


def watch(recs: list[Position], batch: int = 40) -> tuple[list[Lead], InterferenceWatch]:
    w = InterferenceWatch(7_200.0)
    return in_order(w, recs, batch), w


def circles(recs: list[Position]) -> list[Lead]:
    return [x for x in watch(recs)[0] if x.rule == RULE]


def test_three_and_a_half_laps_of_a_circle_are_one_lead() -> None:
    (lead,) = circles(circling(3.5))
    d = lead.details
    assert d["radius_m"] == pytest.approx(500.0, abs=1.0)
    assert d["centre"] == [pytest.approx(C[0], abs=1e-5), pytest.approx(C[1], abs=1e-5)]
    assert d["laps"] == pytest.approx(3.5, abs=0.01) and d["direction"] == "clockwise"
    assert d["fit_rms_m"] < 1.0 and lead.mmsi == SHIP and lead.zone_id is None
    # the lead runs from the first fix to the last: 212 fixes, 30 s apart
    assert (lead.started_at, lead.ended_at) == (T0, T0 + 30.0 * 211)


@pytest.mark.parametrize(("laps", "leads"), [(2.9, 0), (3.0, 1), (3.1, 1)])
def test_three_full_turns_at_least(laps: float, leads: int) -> None:
    assert len(circles(circling(laps))) == leads


@pytest.mark.parametrize(("radius", "leads"), [(90.0, 0), (110.0, 1), (4_900.0, 1), (5_100.0, 0)])
def test_the_radius_from_100_m_to_5_km(radius: float, leads: int) -> None:
    # the step keeps every leg over 20 m and the turns under 90 degrees
    step = max(6.0, math.degrees(30.0 / radius))
    assert len(circles(circling(3.2, radius, step_deg=step))) == leads


@pytest.mark.parametrize(("laps", "leads"), [(2.9, 0), (3.1, 1), (3.5, 1)])
def test_a_ship_reporting_every_2_s_is_judged_on_its_thinned_track(laps: float, leads: int) -> None:
    # 1.2 degrees round every 2 s (a lap in 10 minutes): the watch keeps the first and
    # last fix of each 30 s, 2 of 15. By hand: the first 30 s (fixes 0 and 14) become
    # one leg, whose chord points along the tangent 8.4 degrees round instead of 0.6:
    # 7.8 degrees less turn (0.022 laps), and at most as much again at the end
    recs = circling(laps, step_deg=1.2, dt=2.0)
    out = circles(recs)
    assert len(out) == leads
    if leads:
        (lead,) = out
        assert laps - 2 * 7.8 / 360 - 0.005 <= lead.details["laps"] <= laps
        assert lead.details["radius_m"] == pytest.approx(500.0, abs=1.0)
        assert (lead.started_at, lead.ended_at) == (recs[0].t, recs[-1].t)  # ends kept
        assert lead.details["fixes"] <= len(recs) * 2 // 15 + 2


def test_an_ellipse_is_no_circle() -> None:
    # 500 by 250 m: its points lie up to 25 % of the fitted radius off any circle
    assert circles(circling(3.5, squash=0.5)) == []
    _, lat = zip(*(on_circle(500.0, a, 0.9) for a in range(0, 360, 6)), strict=True)
    lon = [on_circle(500.0, a, 0.9)[0] for a in range(0, 360, 6)]
    import numpy as np

    # 500 by 450 m: within 10 % (the rms off the fitted circle, by the fit itself)
    _, _, r, rms = fit_circle(np.array(lon), np.array(lat))
    assert rms / r < 0.1
    assert len(circles(circling(3.5, squash=0.9))) == 1


def test_a_turning_trial_a_ship_at_anchor_and_a_straight_course_raise_nothing() -> None:
    trial = circling(2.0)  # two full turns, as a turning trial makes
    anchor = [  # swinging 15 m about its anchor every minute for two hours
        Position(SHIP + 1, T0 + 60.0 * i, 1, *on_circle(15.0, 37.0 * i), 0.2, 0.0, 0, 5)
        for i in range(120)
    ]
    straight = [
        Position(SHIP + 2, T0 + 10.0 * i, 1, C[0] + 0.0005 * i, C[1], 10.0, 90.0, 90, 0)
        for i in range(720)
    ]
    assert circles(trial + anchor + straight) == []


def test_a_gap_or_a_turn_the_other_way_ends_the_run() -> None:
    laps2 = circling(2.0)
    # the same two laps again after 11 minutes of silence: two runs of two, no lead
    later = [dataclasses.replace(p, t=p.t + laps2[-1].t - T0 + 660.0) for p in laps2]
    assert circles(laps2 + later) == []
    # two laps clockwise, then two counterclockwise: a figure of eight, no lead
    back = [
        dataclasses.replace(p, t=laps2[-1].t + 30.0 * (k + 1), lon=2 * C[0] - p.lon)
        for k, p in enumerate(laps2)
    ]
    assert circles(laps2 + back) == []


def _signature(leads: list[Lead]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(x) for x in sorted(leads, key=lambda x: (x.started_at, x.mmsi))]


def test_the_same_lead_however_the_fixes_arrive() -> None:
    recs = circling(3.5) + circling(1.5, mmsi=SHIP + 9)
    want = _signature(watch(recs)[0])
    assert [x["rule"] for x in want] == [RULE]
    rng = random.Random(34)
    for _ in range(40):
        # each fix late by up to 30 min, in batches of any size, some twice
        assert _signature(late_and_twice(InterferenceWatch(7_200.0), recs, rng)) == want


def test_through_the_replay_pipeline() -> None:
    pipe = LeadPipeline(ZoneIndex([]), VesselRegistry(), EpisodeConfig())
    recs = circling(3.5)
    out = pipe.process(recs) + pipe.expire(pipe.stream_time) + pipe.finish()
    assert [x.rule for x in out] == [RULE]
