"""Issue 10: bather strips and notices in force only at recurring local times."""

from __future__ import annotations

from pathlib import Path

import pytest
from shapely.geometry import LineString

from scripts import aisgen
from tests.alerts.scenario_kit import (
    T0,
    beach_frame,
    beach_run,
    feature,
    find_zone,
    index_from,
    run_pipeline,
    square,
    to_positions,
)
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import ZoneError

SUMMER_WEEKENDS = {"months": [12, 1, 2, 3], "weekdays": [6, 7], "hours": ["08:00", "18:00"]}
DAY = 86_400.0


def _beach(bundled: ZoneIndex, tmp_path: Path, recurrence: object) -> ZoneIndex:
    _, copa = find_zone(bundled, "bather_beach", "copacabana")
    return index_from(
        [feature(copa.geometry, id="beach-copacabana", kind="bather_beach", recurrence=recurrence)],
        tmp_path,
    )


@pytest.mark.parametrize(
    ("offset_s", "expected"),
    [
        (0.0, []),  # Thu 1 Jan 2026, 07:00 in Rio: a weekday
        (2 * DAY + 3 * 3600, ["BATH-MOTOR"]),  # Sat 3 Jan, 10:00 local
        (2 * DAY - 2 * 3600, []),  # Sat 3 Jan, 05:00 local: before bathers' hours
        (2 * DAY + 12 * 3600, []),  # Sat 3 Jan, 19:00 local: after them
        (150 * DAY + 3 * 3600, []),  # a Saturday in June: out of season
    ],
)
def test_a_beach_applies_only_in_its_recurring_periods(
    bundled: ZoneIndex, tmp_path: Path, offset_s: float, expected: list[str]
) -> None:
    index = _beach(bundled, tmp_path, SUMMER_WEEKENDS)
    fixes = beach_run(index, 120.0, 12.0, t0=T0 + offset_s)
    leads = run_pipeline(index, to_positions(710_300_001, fixes))
    assert [x.rule for x in leads] == expected


def test_a_notice_can_recur_inside_its_validity_window(tmp_path: Path) -> None:
    area = square(-43.15, -22.95, 500.0)
    notice = feature(
        area,
        id="n",
        kind="special_area",
        valid_from="2026-01-01T00:00:00-03:00",
        valid_to="2026-01-31T23:59:59-03:00",
        recurrence={"weekdays": [1, 2, 3, 4, 5], "hours": ["22:00", "04:00"]},  # nights
        notice="AVISO 1/26 (synthetic)",
    )
    index = index_from([notice], tmp_path)

    def crossing(t0: float) -> list[aisgen.Fix]:
        return aisgen.run(-43.16, -22.95, course=90, sog_kn=8.0, t0=t0, dt_s=10, n=60)

    # Thu 1 Jan 23:00 local (02:00Z Fri): in force; Thu 1 Jan 12:00 local: not
    night = T0 + 16 * 3600
    noon = T0 + 5 * 3600
    assert [x.rule for x in run_pipeline(index, to_positions(1, crossing(night)))] == []
    assert [x.rule for x in run_pipeline(index, to_positions(710_300_002, crossing(night)))] == [
        "SEC-NOTICE"
    ]
    assert run_pipeline(index, to_positions(710_300_003, crossing(noon))) == []


@pytest.mark.parametrize(
    "bad",
    [
        {"tz": "Mars/Olympus"},
        {"months": [13]},
        {"weekdays": []},
        {"hours": ["8h", "18:00"]},
        {"hours": ["08:00", "08:00"]},
        {"every": "day"},
        "weekends",
    ],
)
def test_a_malformed_recurrence_refuses_the_zone(
    bundled: ZoneIndex, tmp_path: Path, bad: object
) -> None:
    with pytest.raises(ZoneError, match="recurrence"):
        _beach(bundled, tmp_path, bad)


def test_beach_frame_is_still_south_facing(bundled: ZoneIndex) -> None:
    _, copa = find_zone(bundled, "bather_beach", "copacabana")
    assert 90 < beach_frame(copa)[3] < 270
    assert isinstance(copa.geometry, LineString)
