"""The OGC ``datetime`` parameter as Unix bounds, with hand-computed values:
2025-11-24T00:00:00Z is 1_763_942_400 (20_416 days of 86_400 s since 1970-01-01)."""

from __future__ import annotations

import math

import pytest

from vigia.service.errors import RequestInvalidError
from vigia.service.http.routes.params import parse_interval

MIDNIGHT = 1_763_942_400.0  # 2025-11-24T00:00:00Z
NEXT_MIDNIGHT = MIDNIGHT + 86_400
LAST_OF_DAY = math.nextafter(NEXT_MIDNIGHT, 0.0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-11-24", (MIDNIGHT, LAST_OF_DAY)),
        ("2025-11-24/..", (MIDNIGHT, None)),
        ("../2025-11-24", (None, LAST_OF_DAY)),
        ("2025-11-24/2025-11-24", (MIDNIGHT, LAST_OF_DAY)),
        ("2025-11-23/2025-11-24", (MIDNIGHT - 86_400, LAST_OF_DAY)),
        ("2025-11-24T00:00:00Z", (MIDNIGHT, MIDNIGHT)),
        ("2025-11-24T16:00:00Z/..", (MIDNIGHT + 16 * 3600, None)),
        ("2025-11-24T", (MIDNIGHT, MIDNIGHT)),  # how GDAL sends a date literal
        ("../..", (None, None)),
        ("/2025-11-24T00:00:01Z", (None, MIDNIGHT + 1)),
    ],
)
def test_datetime_bounds(text: str, expected: tuple[float | None, float | None]) -> None:
    assert parse_interval(text) == expected


def test_the_day_ends_before_the_next_midnight() -> None:
    _, end = parse_interval("2025-11-24") or (None, None)
    assert end is not None and end < NEXT_MIDNIGHT and NEXT_MIDNIGHT - end < 1e-5


@pytest.mark.parametrize(
    "text",
    ["2025-02-30", "2025-11-25/2025-11-24", "2025-11-24T00:00:01Z/2025-11-24T00:00:00Z",
     "1969-12-31", "2100-01-01", "24/11/2025", "2025-11-24TT"],
)  # fmt: skip
def test_invalid_datetimes_are_refused(text: str) -> None:
    with pytest.raises(RequestInvalidError):
        parse_interval(text)
