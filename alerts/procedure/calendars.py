"""Procedural deadlines: day counting and the calendar of the authority's seat.

Two counting rules, as the regulations write them:

- LESTA (NORMAM-07 0306): defence and appeals in *working days* ("dias úteis"),
  judgment and payment in calendar days ("dias corridos").
- Pollution (NORMAM-07 0404 a) III, Lei 9.966/2000): *consecutive days, excluding the
  first day and including the last* ("excluindo-se o dia do começo e incluindo-se o do
  vencimento").

Both exclude the day the term starts from (the day of knowledge, of the decision, ...).
Every term, in working or in calendar days, whose last day is not a working day at the
seat, or a day the office closes early, ends on the next working day (Lei 9.784/1999 art.
66 §1º, which governs where the regulations are silent: Lei 9.784 art. 69).

Working days skip Saturdays, Sundays, the public holidays the maintained ``holidays``
package knows for Brazil and the state of the authority's seat, the municipal holidays
of the seat city (the package's where it has them, else the cited table in
:mod:`vigia.alerts.procedure.seat_holidays`) and the federal pontos facultativos on which
federal offices such as a Capitania do not open (a documented, configurable set).
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import holidays

from vigia.alerts.procedure.seat_holidays import (
    FEDERAL_CLOSED,
    FEDERAL_SHORT,
    MUNICIPAL_HOLIDAYS,
    NONE_OF_THEIR_OWN,
    MunicipalHoliday,
    fold_name,
)

#: Lei 9.784/1999 art. 66 §1º: the term moves to the next working day
ROLLOVER_BASIS = "Lei 9.784/1999 art. 66 §1º"

#: municipalities the package has as Brazilian subdivisions, by (state, name)
_MUNICIPAL_SUBDIVS = {("SP", "SAO PAULO"): "São Paulo Capital"}


#: the subdivisions the package knows for Brazil: states by code, and municipalities
BRAZIL_SUBDIVISIONS: frozenset[str] = frozenset(holidays.list_supported_countries()["BR"])
STATES: tuple[str, ...] = tuple(sorted(s for s in BRAZIL_SUBDIVISIONS if len(s) == 2))


def _calendar(subdiv: str | None, year: int, category: str) -> holidays.HolidayBase:
    return holidays.country_holidays(
        "BR", subdiv=subdiv, years=year, language="en_US", categories=(category,)
    )


def _optional(state: str | None, year: int, names: frozenset[str]) -> set[dt.date]:
    return {d for d, name in _calendar(state, year, "optional").items() if name in names}


@lru_cache(maxsize=512)
def _closed_days(
    state: str | None, municipality: str | None, year: int, closed: frozenset[str]
) -> frozenset[dt.date]:
    days: set[dt.date] = set(_calendar(state, year, "public"))
    days.update(_optional(state, year, closed))
    key = (state or "", fold_name(municipality or ""))
    subdiv = _MUNICIPAL_SUBDIVS.get(key)
    if subdiv is not None:
        days.update(_calendar(subdiv, year, "public"))
    days.update(dt.date(year, h.month, h.day) for h in MUNICIPAL_HOLIDAYS.get(key, ()))
    return frozenset(days)


@lru_cache(maxsize=512)
def _short_days(state: str | None, year: int, short: frozenset[str]) -> frozenset[dt.date]:
    return frozenset(_optional(state, year, short))


def has_municipal_calendar(state: str | None, municipality: str | None) -> bool:
    """Whether the seat city's own holidays are known (package or cited table)."""
    key = (state or "", fold_name(municipality or ""))
    return key in _MUNICIPAL_SUBDIVS or key in MUNICIPAL_HOLIDAYS or key in NONE_OF_THEIR_OWN


def calendar_note(state: str | None, municipality: str | None) -> str | None:
    """Why the seat's calendar is incomplete, or None when it is known: a holiday the
    calendar lacks makes a term end early, so a lead, its deadlines and its Auto say so
    instead of presenting the date as certain."""
    if not state:
        return (
            "no seat state entered: terms skip national holidays only and may end later "
            "than shown; enter the seat and confirm its state and municipal holidays"
        )
    if not has_municipal_calendar(state, municipality):
        where = f"{municipality} ({state})" if municipality else f"the seat in {state}"
        return (
            f"the municipal holidays of {where} are not in Vigia's calendars: terms skip "
            "national and state holidays only and may end later than shown; confirm the "
            "seat's municipal holidays"
        )
    doubtful = _doubtful(state, municipality)
    if doubtful:
        return _doubtful_note(state, municipality, doubtful)
    return None


def _doubtful(state: str | None, municipality: str | None) -> tuple[MunicipalHoliday, ...]:
    key = (state or "", fold_name(municipality or ""))
    return tuple(h for h in MUNICIPAL_HOLIDAYS.get(key, ()) if not h.confirmed)


def _doubtful_note(
    state: str | None, municipality: str | None, days: Iterable[MunicipalHoliday]
) -> str:
    listed = ", ".join(f"{h.day:02d}/{h.month:02d}" for h in days)
    return (
        f"the municipal holiday(s) {listed} of {municipality} ({state}) come from a "
        "secondary source (a holiday-calendar site or the press), not the municipal act: "
        "they are counted, so a term across them may end on another day than shown; "
        "confirm the seat's municipal holidays"
    )


@dataclass(frozen=True, slots=True)
class SeatCalendar:
    """The working-day calendar of an authority's seat (state as its two-letter code)."""

    state: str | None = None
    municipality: str | None = None
    #: federal pontos facultativos with no office (package "optional" names)
    closed_optional: frozenset[str] = FEDERAL_CLOSED
    #: federal pontos facultativos on which the office closes early
    short_optional: frozenset[str] = FEDERAL_SHORT

    def __post_init__(self) -> None:
        if self.state is not None and self.state not in STATES:
            raise ValueError(f"unknown Brazilian state {self.state!r}")

    @property
    def note(self) -> str | None:
        """What this calendar may lack (:func:`calendar_note`); None when complete."""
        return calendar_note(self.state, self.municipality)

    def term_note(self, start: dt.date, end: dt.date) -> str | None:
        """Why a term counted on this calendar from ``start`` to ``end`` is not certain:
        the seat's holidays are unknown (any term), or a holiday from a secondary source
        falls within it (only those terms: the others are certain, so a seat with one
        doubtful date does not make every deadline doubtful)."""
        if not has_municipal_calendar(self.state, self.municipality) or not self.state:
            return self.note
        doubtful = _doubtful(self.state, self.municipality)
        inside = [
            h
            for h in doubtful
            for year in range(start.year, end.year + 1)
            if start < _on(year, h) <= end
        ]
        return _doubtful_note(self.state, self.municipality, inside) if inside else None

    def is_working_day(self, day: dt.date) -> bool:
        """Whether the authority's office opens on ``day``."""
        if day.weekday() >= 5:
            return False
        closed = _closed_days(self.state, self.municipality, day.year, self.closed_optional)
        return day not in closed

    def can_end_term(self, day: dt.date) -> bool:
        """Whether a term may end on ``day``: a full working day (art. 66 §1º)."""
        short = _short_days(self.state, day.year, self.short_optional)
        return self.is_working_day(day) and day not in short

    def roll_forward(self, day: dt.date) -> dt.date:
        """``day``, or the next day a term may end on (Lei 9.784/1999 art. 66 §1º)."""
        while not self.can_end_term(day):
            day += dt.timedelta(days=1)
        return day

    def closed_between(self, start: dt.date, end: dt.date) -> list[dt.date]:
        """The weekdays the office is closed in [start, end] (for explanations)."""
        out: list[dt.date] = []
        day = start
        while day <= end:
            if day.weekday() < 5 and not self.is_working_day(day):
                out.append(day)
            day += dt.timedelta(days=1)
        return out


def _on(year: int, h: MunicipalHoliday) -> dt.date:
    return dt.date(year, h.month, h.day)


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


def term_end(start: dt.date, days: int, working: bool, seat: SeatCalendar) -> dt.date:
    """The last day of a term: counted, then moved past any day it may not end on."""
    counted = add_working_days(start, days, seat) if working else add_consecutive_days(start, days)
    return seat.roll_forward(counted)


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
    counted_to: dt.date | None = None  # the last day counted, when art. 66 §1º moved it
    #: why the due date is not certain (the seat's calendar is incomplete), else None
    note: str | None = None

    @property
    def certain(self) -> bool:
        """Whether every day the count crossed is known to be a working day or not."""
        return self.note is None

    def to_json(self) -> dict[str, object]:
        """The contract's deadline item plus the counting details."""
        return {
            "certain": self.certain,
            "note": self.note,
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
            "counted_to": None if self.counted_to is None else self.counted_to.isoformat(),
        }


def soonest(deadlines: Iterable[Deadline]) -> dt.date | None:
    """The earliest pending due date, for sorting leads by "due soonest"."""
    dues = [d.due for d in deadlines if d.pending]
    return min(dues) if dues else None
