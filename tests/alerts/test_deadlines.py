"""Day counting against dates worked out by hand, and the procedure's state machine."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vigia.alerts.procedure.calendars import (
    SeatCalendar,
    add_consecutive_days,
    add_working_days,
    months_before,
)
from vigia.alerts.procedure.workflow import (
    Move,
    ProcedureConflictError,
    ProcedureDataError,
    allowed_moves,
    apply_move,
)

D = dt.date
RJ, SP, SP_CITY = SeatCalendar("RJ"), SeatCalendar("SP"), SeatCalendar("SP", "São Paulo")


def test_working_days_by_hand() -> None:
    # Fri 6 Feb 2026 + 15 working days: Carnival Mon 16 / Tue 17 Feb are closed -> Tue 3 Mar
    assert add_working_days(D(2026, 2, 6), 15, RJ) == D(2026, 3, 3)
    # without a state the national calendar still closes Carnival (federal offices)
    assert add_working_days(D(2026, 2, 6), 15, SeatCalendar()) == D(2026, 3, 3)
    # Mon 20 Apr 2026 + 5: Tiradentes (Tue 21) everywhere, Saint George (Thu 23) in RJ only
    assert add_working_days(D(2026, 4, 20), 5, RJ) == D(2026, 4, 29)
    assert add_working_days(D(2026, 4, 20), 5, SP) == D(2026, 4, 28)
    # year end: Mon 28 Dec 2026 + 5 skips Fri 1 Jan and a weekend -> Tue 5 Jan 2027
    assert add_working_days(D(2026, 12, 28), 5, RJ) == D(2027, 1, 5)
    # the municipality where the package has one: São Paulo's anniversary, Mon 25 Jan 2027
    assert add_working_days(D(2027, 1, 22), 3, SP) == D(2027, 1, 27)
    assert add_working_days(D(2027, 1, 22), 3, SP_CITY) == D(2027, 1, 28)
    # a term starting on a Saturday counts from Monday
    assert add_working_days(D(2026, 3, 7), 1, RJ) == D(2026, 3, 9)


def test_consecutive_days_and_months() -> None:
    # excluding the first day, including the last; no rollover off a Saturday
    assert add_consecutive_days(D(2026, 12, 20), 20) == D(2027, 1, 9)
    assert add_consecutive_days(D(2027, 2, 5), 5) == D(2027, 2, 10)  # through Carnival
    assert months_before(D(2026, 2, 6), 36) == D(2023, 2, 6)
    assert months_before(D(2028, 2, 29), 36) == D(2025, 2, 28)
    assert months_before(D(2026, 5, 31), 3) == D(2026, 2, 28)
    with pytest.raises(ValueError):
        SeatCalendar("XX")


@given(st.dates(D(2020, 1, 1), D(2030, 12, 31)), st.integers(1, 40))
def test_working_days_count_exactly(start: dt.date, n: int) -> None:
    due = add_working_days(start, n, RJ)
    days = [start + dt.timedelta(days=i) for i in range(1, (due - start).days + 1)]
    # oracle: weekday and not in the package's RJ public list nor a Carnival day
    assert sum(RJ.is_working_day(d) for d in days) == n and RJ.is_working_day(due)
    assert all(d.weekday() < 5 for d in days if RJ.is_working_day(d))


def test_state_machine_refuses_and_names_moves() -> None:
    assert allowed_moves("triaged", "pollution", {}) == ("notified", "infraction", "dismissed")
    assert allowed_moves("triaged", "lesta", {}) == ("notified", "dismissed")
    with pytest.raises(ProcedureConflictError) as err:
        apply_move("SEC-PLATFORM", "new", {}, Move("judged"))
    assert err.value.allowed == ("triaged", "dismissed")
    with pytest.raises(ProcedureDataError, match="reason"):
        apply_move("SEC-PLATFORM", "new", {}, Move("dismissed", "  "))
    status, proc = apply_move("BW-EXCH-200", "new", {}, Move("triaged"))
    assert (status, proc["regime"]) == ("triaged", "pollution")
    with pytest.raises(ProcedureDataError, match="appear_by"):
        apply_move(
            "SEC-PLATFORM",
            "triaged",
            proc | {"regime": "lesta"},
            Move("notified", data={"notice": {"date": "2026-02-05", "appear_by": "2026-02-01"}}),
        )
    # an improcedente decision leaves nothing to appeal; two appeals are the most
    judged = {"regime": "lesta", "decisions": [{"outcome": "improcedente"}], "appeals": []}
    assert allowed_moves("judged", "lesta", judged) == ("closed",)
    twice = {"decisions": [{"outcome": "procedente"}], "appeals": [{}, {}]}
    assert allowed_moves("judged", "lesta", twice) == ("closed",)
