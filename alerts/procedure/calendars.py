"""Procedural deadlines: day counting and the calendar of the authority's seat.

Two counting rules, as the regulations write them:

- LESTA (NORMAM-07 0306): defence and appeals in *working days* ("dias úteis"),
  judgment and payment in calendar days ("dias corridos").
- Pollution (NORMAM-07 0404 a) III, Lei 9.966/2000): *consecutive days, excluding the
  first day and including the last* ("excluindo-se o dia do começo e incluindo-se o do
  vencimento").

Both exclude the day the term starts from (the day of knowledge, of the decision, ...).
A calendar-day deadline is not moved off a weekend: neither article says so.

Working days skip Saturdays, Sundays, the public holidays the maintained ``holidays``
package knows for Brazil, the state of the authority's seat and (where the package has
one, today only São Paulo capital) its municipality, and the two Carnival days, on which
federal offices such as a Capitania do not open (ponto facultativo; the package files
them as "optional", and already as public in states that made Carnival Tuesday a
holiday, such as Rio de Janeiro).
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import holidays

#: full days the federal administration does not open although the law names no
#: holiday; matched on the package's English names so a translation cannot break it
_FEDERAL_CLOSED_OPTIONAL = frozenset({"Carnival"})
#: municipalities the package has as Brazilian subdivisions, by (state, name)
_MUNICIPAL_SUBDIVS = {("SP", "SAO PAULO"): "São Paulo Capital"}


def _fold(text: str) -> str:
    table = str.maketrans("ÁÀÂÃÉÊÍÓÔÕÚÇáàâãéêíóôõúç", "AAAAEEIOOOUCaaaaeeiooouc")
    return " ".join(text.translate(table).upper().split())


#: the subdivisions the package knows for Brazil: states by code, and municipalities
BRAZIL_SUBDIVISIONS: frozenset[str] = frozenset(holidays.list_supported_countries()["BR"])
STATES: tuple[str, ...] = tuple(sorted(s for s in BRAZIL_SUBDIVISIONS if len(s) == 2))


def _calendar(subdiv: str | None, year: int, category: str) -> holidays.HolidayBase:
    return holidays.country_holidays(
        "BR", subdiv=subdiv, years=year, language="en_US", categories=(category,)
    )


@lru_cache(maxsize=256)
def _closed_days(state: str | None, municipality: str | None, year: int) -> frozenset[dt.date]:
    days: set[dt.date] = set(_calendar(state, year, "public"))
    optional = _calendar(state, year, "optional")
    days.update(d for d, name in optional.items() if name in _FEDERAL_CLOSED_OPTIONAL)
    subdiv = _MUNICIPAL_SUBDIVS.get((state or "", _fold(municipality or "")))
    if subdiv is not None:
        days.update(_calendar(subdiv, year, "public"))
    return frozenset(days)


@dataclass(frozen=True, slots=True)
class SeatCalendar:
    """The working-day calendar of an authority's seat (state as its two-letter code)."""

    state: str | None = None
    municipality: str | None = None

    def __post_init__(self) -> None:
        if self.state is not None and self.state not in STATES:
            raise ValueError(f"unknown Brazilian state {self.state!r}")

    def is_working_day(self, day: dt.date) -> bool:
        """Whether the authority's office opens on ``day``."""
        if day.weekday() >= 5:
            return False
        return day not in _closed_days(self.state, self.municipality, day.year)

    def closed_between(self, start: dt.date, end: dt.date) -> list[dt.date]:
        """The weekdays the office is closed in [start, end] (for explanations)."""
        out: list[dt.date] = []
        day = start
        while day <= end:
            if day.weekday() < 5 and not self.is_working_day(day):
                out.append(day)
            day += dt.timedelta(days=1)
        return out


def add_working_days(start: dt.date, days: int, seat: SeatCalendar) -> dt.date:
    """The ``days``-th working day after ``start`` (the start day itself never counts)."""
    if days < 1:
        raise ValueError("a term in working days has at least one day")
    day, left = start, days
    while left:
        day += dt.timedelta(days=1)
        if seat.is_working_day(day):
            left -= 1
    return day


def add_consecutive_days(start: dt.date, days: int) -> dt.date:
    """Consecutive days, excluding the first and including the last (0404 a) III)."""
    if days < 1:
        raise ValueError("a term has at least one day")
    return start + dt.timedelta(days=days)


def months_before(day: dt.date, months: int) -> dt.date:
    """The same day ``months`` calendar months earlier (clamped to that month's end)."""
    total = day.year * 12 + (day.month - 1) - months
    year, month0 = divmod(total, 12)
    last = calendar.monthrange(year, month0 + 1)[1]
    return dt.date(year, month0 + 1, min(day.day, last))


@dataclass(frozen=True, slots=True)
class Deadline:
    """One computed deadline, with the article it comes from and how it was counted."""

    name: str
    due: dt.date
    basis: str
    counted_from: dt.date
    days: int
    counting: str  # "working_days" | "calendar_days" | "consecutive_days" | "entered"
    pending: bool  # still open in the lead's current state
    met_on: dt.date | None = None  # the date the act was done, when it was
    actor: str = ""  # who must act by the due date

    def to_json(self) -> dict[str, object]:
        """The contract's deadline item plus the counting details."""
        return {
            "name": self.name,
            "due": self.due.isoformat(),
            "basis": self.basis,
            "counted_from": self.counted_from.isoformat(),
            "days": self.days,
            "counting": self.counting,
            "pending": self.pending,
            "met_on": None if self.met_on is None else self.met_on.isoformat(),
            "late": None if self.met_on is None else self.met_on > self.due,
            "actor": self.actor,
        }


def soonest(deadlines: Iterable[Deadline]) -> dt.date | None:
    """The earliest pending due date, for sorting leads by "due soonest"."""
    dues = [d.due for d in deadlines if d.pending]
    return min(dues) if dues else None
