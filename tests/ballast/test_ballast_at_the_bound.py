"""NORMAM-20 2.3.1 exactly at its lines (issue 35): "at least 200 nautical miles from the
nearest land and in waters at least 200 metres deep", and 50 nm for the second case.
The other boundary tests try each side; these try the figure itself, where only ``>=``
and ``>`` differ. Expected values are the regulation's words, nothing computed."""

from __future__ import annotations

import numpy as np

from vigia.zones.ballast import meets, zone_of

# 2.3.1's classes, by name
WITHIN_50, BETWEEN_50_200, BEYOND_200 = 0, 1, 2


def test_exactly_50_and_200_nm_from_land_are_on_the_far_side_of_each_line() -> None:
    distances = np.array([49.999, 50.0, 199.999, 200.0])
    assert zone_of(distances).tolist() == [WITHIN_50, BETWEEN_50_200, BETWEEN_50_200, BEYOND_200]


def test_exactly_200_m_deep_is_deep_enough() -> None:
    zone = np.array([BEYOND_200, BEYOND_200, BETWEEN_50_200], dtype=np.int8)
    meets_200, meets_50 = meets(zone, np.array([199.9, 200.0, 200.0]))
    assert meets_200.tolist() == [False, True, False]
    assert meets_50.tolist() == [False, True, True]
