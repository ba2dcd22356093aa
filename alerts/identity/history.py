"""A vessel's identity history as the store keeps it (issue 34): the changes of its
static data, handed out as the pipeline sees them, in the vessel's own time order.

Each static report that changes a name, call sign, IMO number, ship type, length or beam
(or carries an IMO number whose check digit fails) is an :class:`IdentityChange`
(alerts/identity/static.py finds them). The pipeline hands them out at once, with the
report that made them, so the store can keep them in the same transaction as the static
data they belong to; a kill loses none that was accepted.

A late record (within the lateness bound) makes the pipeline judge the vessel's records
again from a copy of its state before it (alerts/rejudge.py); the changes from then on
may come out otherwise. So the hand-out says so: "this vessel's history from time ``t``
on is what follows" (:meth:`HistoryOut.replace_from`). Applied in order, the stored
history is the one the vessel's records give in time order, however they arrived.

Bounded: a vessel's changes are numbered within its UTC day; the first :data:`DAY_CAP`
are handed out, the rest only counted (the day's count). A transponder that renames its
ship every message fills 50 rows a day, not one per message.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from vigia.ingest.records import iso_utc

#: changes kept per vessel per UTC day; past it they are counted, not kept
DAY_CAP = 50
#: the static fields whose change is history, in the order a report lists them
FIELDS = ("name", "callsign", "imo", "ship_type", "length_m", "beam_m")
#: an IMO number whose check digit fails (``after`` is the number, ``before`` null)
IMO_CHECK = "imo_check"

Value = str | int | float | None


def utc_day(t: float) -> int:
    """Days since 1970-01-01 (UTC) of the instant ``t``."""
    return math.floor(t / 86_400.0)


def day_text(day: int) -> str:
    """A :func:`utc_day` as its date, ``YYYY-MM-DD``."""
    return (date(1970, 1, 1) + timedelta(days=day)).isoformat()


@dataclass(frozen=True, slots=True)
class IdentityChange:
    """One change of a vessel's static data: ``field`` went from ``before`` to ``after``
    at ``t`` (the report's time), in a report of ``msg_type`` heard by ``source``; ``n``
    is its number within the vessel's UTC day (1 for the first)."""

    mmsi: int
    t: float
    field: str
    before: Value
    after: Value
    msg_type: int
    source: str
    n: int = 1

    @property
    def day(self) -> int:
        return utc_day(self.t)

    def to_json(self) -> dict[str, Any]:
        return {
            "t": iso_utc(self.t), "field": self.field, "before": self.before,
            "after": self.after, "msg_type": self.msg_type, "source": self.source,
        }  # fmt: skip


class HistoryOut:
    """What the pipeline handed out since it was last taken: changes to keep, the
    vessels whose history is replaced from a time on, and the changes counted per vessel
    and UTC day (kept or not). Merging a later one into an earlier one gives what the
    two give applied in turn, so a writer may hold several as one."""

    __slots__ = ("changes", "days", "redo")

    def __init__(self) -> None:
        self.changes: list[IdentityChange] = []
        # mmsi -> time from which its stored history (and day counts) are replaced by
        # what follows
        self.redo: dict[int, float] = {}
        # (mmsi, UTC day) -> changes the pipeline counted that day (the highest number)
        self.days: dict[tuple[int, int], int] = {}

    def __bool__(self) -> bool:
        return bool(self.changes or self.redo or self.days)

    def add(self, change: IdentityChange) -> None:
        """One change: kept if it is among its day's first :data:`DAY_CAP`, counted."""
        if change.n <= DAY_CAP:
            self.changes.append(change)
        key = (change.mmsi, change.day)
        self.days[key] = max(self.days.get(key, 0), change.n)

    def replace_from(self, mmsi: int, t: float, counted: int = 0) -> None:
        """The vessel's history at and after ``t`` is judged again (``counted``: its
        changes on ``t``'s UTC day before ``t``): what was handed out for it from then
        on is void, here and, through ``redo``, in the store (whose day counts from
        ``t``'s day on are then those given after this)."""
        day = utc_day(t)
        self.changes = [c for c in self.changes if c.mmsi != mmsi or c.t < t]
        self.days = {k: n for k, n in self.days.items() if k[0] != mmsi or k[1] < day}
        if counted:
            self.days[(mmsi, day)] = counted
        self.redo[mmsi] = min(self.redo.get(mmsi, math.inf), t)

    def merge(self, later: HistoryOut) -> None:
        """Fold ``later`` (handed out after this) into this one (``later.days`` holds
        the counts its replacements start from)."""
        for mmsi, t in later.redo.items():
            self.replace_from(mmsi, t)
        self.changes += later.changes
        for key, n in later.days.items():
            self.days[key] = max(self.days.get(key, 0), n)


class IdentityStage:
    """The pipeline's side (a mixin of LeadPipeline): a consumer that stores the history
    asks for it with :meth:`record_identity`, then takes it after each batch. A replay
    or a backtest never asks, and holds none of it."""

    def record_identity(self) -> None:
        """Keep the changes from now on, for :meth:`take_identity`."""
        self.__dict__.setdefault("_ident_out", HistoryOut())

    def identity_out(self) -> HistoryOut | None:
        """Where changes go (None: nobody stores them)."""
        return self.__dict__.get("_ident_out")

    def take_identity(self) -> HistoryOut:
        """The changes since the last call (empty when nobody asked for them)."""
        out: HistoryOut | None = self.__dict__.get("_ident_out")
        if out is None:
            return HistoryOut()
        self.__dict__["_ident_out"] = HistoryOut()
        return out


def judged_again(out: HistoryOut | None, mmsi: int, ident: Any, t: float) -> None:
    """The vessel's records from ``t`` on are judged again (alerts/rejudge.py) from a
    copy of its state (``ident`` the copy's Ident, or None): its history from ``t`` on
    is replaced. Changes of that copy at ``t`` itself (a report of the same time just
    before the copy) come out again, since the replacement covers their time too."""
    if out is None:
        return
    ties = [c for c in ident.history if c.t >= t] if ident is not None else []
    # the copy's count on t's day, less the changes at t that come out again below
    counted = ident.day_n if ident is not None and ident.day == utc_day(t) else 0
    out.replace_from(mmsi, t, counted - len(ties))
    for c in ties:
        out.add(c)
