"""The hand-computed term table in docs/procedure-terms.md holds, row by row."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from vigia.alerts.procedure.calendars import (
    SeatCalendar,
    add_consecutive_days,
    add_working_days,
    term_end,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "procedure-terms.md"
ROW = re.compile(
    r"^\| (\d+) \| (\d{4}-\d\d-\d\d) \| (\d+) \| (\w+) \| ([^|]+) \| ([^|]+) \| (\S+) \|"
)


def rows() -> list[tuple[str, ...]]:
    found = [m.groups() for line in DOC.read_text().splitlines() if (m := ROW.match(line))]
    assert len(found) >= 12, "the docs must keep at least twelve hand-computed terms"
    return found


@pytest.mark.parametrize("row", rows(), ids=lambda r: f"row{r[0]}")
def test_hand_computed_term(row: tuple[str, ...]) -> None:
    _, start, days, counting, seat, article, due = row
    state, town = seat.strip().split("/")
    cal = SeatCalendar(state, None if town == "-" else town)
    begin, n, working = dt.date.fromisoformat(start), int(days), counting == "working"
    assert counting in ("working", "calendar", "consecutive")
    assert term_end(begin, n, working, cal) == dt.date.fromisoformat(due)
    # a row cites art. 66 §1º exactly when the count itself ended on a day a term cannot
    counted = add_working_days(begin, n, cal) if working else add_consecutive_days(begin, n)
    assert ("art. 66 §1º" in article) == (counted != dt.date.fromisoformat(due))
