"""Static data that changes under one MMSI (issue 34): the identity history a vessel's
static reports make, and the few changes that are leads.

Each static report is compared, in the vessel's own time order, with what was known of
it before (the pipeline's registry row): a name, call sign, IMO number, ship type, length
or beam that changes goes into the vessel's history, and so does an IMO number whose
check digit fails (the IMO rule: seven digits, the first six weighted 7 to 2, the sum's
last digit is the seventh; IMO Res. A.1117(30), annex). A history is evidence: ships are
renamed, transponders reprogrammed and typos corrected, and an inspector sent to each of
those would lose a day. A change is a lead only when one ship could not explain it:

- ``ID-STATIC-CHANGE`` within :data:`WINDOW_S`: the identity (name, call sign, IMO)
  returns to one it had before it changed (A, B, A: two ships taking turns on one MMSI);
  or the IMO changes between two numbers that both pass the check digit (an IMO number
  stays with the hull for life); or the name and the call sign change in one report.
- ``ID-MID-FLAG``: the call sign and the MMSI's MID name different flags, Brazil's one of
  them (alerts/identity/mid.py).

A run of such events ends after :data:`QUIET_S` without another; its lead is given out
once the lateness bound has passed that, like ``ID-MMSI-SHARED`` (alerts/settling.py),
so it is the same however the data arrives. A bad check digit alone, a type or
dimensions that change, and a MID no administration holds are history, never a lead.
"""

from __future__ import annotations

import math
from typing import Any

from vigia.alerts.identity.history import FIELDS as _FIELDS
from vigia.alerts.identity.history import IMO_CHECK, HistoryOut, IdentityChange, utc_day
from vigia.alerts.identity.mid import country, flag_conflict
from vigia.alerts.lead import EvidencePoint, Lead, build_lead, vessel_json
from vigia.ingest.records import Position, StaticData, VesselInfo, iso_utc

STATIC_RULE = "ID-STATIC-CHANGE"
FLAG_RULE = "ID-MID-FLAG"
WINDOW_S = 86_400.0
QUIET_S = 1_800.0
#: changes kept with the vessel's state (the latest): a late record judged again from a
#: copy hands out again those of the copy's own time (alerts/identity/history.py)
HISTORY_CAP = 50

#: (time, rule, what, where: the latest fix before it, else the first after it)
Event = tuple[float, str, dict[str, Any], EvidencePoint | None]


def imo_valid(imo: int) -> bool:
    """Whether ``imo`` is an IMO ship number with a right check digit (see docstring):
    9074729 is (9*7 + 0*6 + 7*5 + 4*4 + 7*3 + 2*2 = 139, last digit 9)."""
    if not 1_000_000 <= imo <= 9_999_999:
        return False
    d = [int(c) for c in str(imo)]
    return sum(x * w for x, w in zip(d[:6], range(7, 1, -1), strict=True)) % 10 == d[6]


def _norm(field: str, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        text = " ".join(value.replace("@", " ").upper().split())
        return text or None
    if field == "imo" and value == 0:
        return None  # 0 is "not available" in a type 5
    return value


class Ident:
    """One vessel's identity history and its lead events waiting for the bound."""

    __slots__ = ("day", "day_n", "events", "history", "last_t", "seen")

    def __init__(self) -> None:
        self.history: list[IdentityChange] = []
        self.events: list[Event] = []
        # identities (name, call sign, IMO) it has had, with when each was last heard
        self.seen: list[tuple[float, tuple[Any, ...]]] = []
        # its latest static report's time
        self.last_t = -math.inf
        # the UTC day of its latest change, and how many changes it made that day
        self.day, self.day_n = 0, 0

    def __setstate__(self, state: Any) -> None:
        # a partition checkpointed before the history was stored: no day counted yet,
        # and its history (plain tuples then) was only ever shown, never stored
        self.__init__()  # type: ignore[misc]
        slots = state[1] if isinstance(state, tuple) else state
        for k, v in (slots or {}).items():
            setattr(self, k, v)
        self.history = [c for c in self.history if isinstance(c, IdentityChange)]

    def clone(self) -> Ident:
        c = Ident()
        c.history, c.events, c.seen = list(self.history), list(self.events), list(self.seen)
        c.last_t, c.day, c.day_n = self.last_t, self.day, self.day_n
        return c

    def number(self, t: float) -> int:
        """The number of a change at ``t`` within the vessel's UTC day (its reports come
        in its time order, so a new day starts the count again)."""
        day = utc_day(t)
        if day != self.day:
            self.day, self.day_n = day, 0
        self.day_n += 1
        return self.day_n

    def place(self, pos: Position) -> None:
        """A fix places the events that have none yet (those since the latest fix)."""
        evs = self.events
        if not evs or evs[-1][3] is not None:
            return  # nearly always: one comparison on the hot path
        assert pos.lon is not None and pos.lat is not None
        fix = EvidencePoint.of(pos, None, pos.lon, pos.lat)
        k = len(evs)
        while k and evs[k - 1][3] is None:
            k -= 1
        evs[k:] = [(t, r, w, fix) for t, r, w, _ in evs[k:]]


def learn(pipe: Any, vs: Any, st: StaticData) -> None:
    """A static report in the vessel's time order (``pipe`` the LeadPipeline, ``vs`` the
    vessel's state or None: typed Any, no import back): checked against what was known
    before it, then merged into what is known. The vessel's :class:`Ident` is kept with
    its state, or alone only when it has something to say (no timeline: bound 0)."""
    ident = vs.ident if vs is not None else None
    fresh = ident is None
    if ident is None:
        ident = Ident()
    fix = None
    if vs is not None and vs.last_t is not None:
        fix = EvidencePoint(vs.last_t, vs.last_lon, vs.last_lat, None, None, None)
    forget = pipe.config.forget_after_s
    out = pipe.identity_out()
    if note(ident, pipe._known.get(st.mmsi), st, fix, forget, out) or ident.history or vs:
        if vs is None:
            vs = pipe._new_vessel(st.mmsi)
        if fresh:
            vs.ident = ident
        if ident.events:
            pipe._gapping.add(st.mmsi)  # settled once the bound is past (settling.py)
    pipe._known.update(st)


def note(
    ident: Ident,
    prev: VesselInfo | None,
    st: StaticData,
    fix: EvidencePoint | None,
    forget: float,
    out: HistoryOut | None = None,
) -> bool:
    """Compare one static report with what was known before; True when it raised a
    lead event (the caller keeps the vessel for settling). ``fix`` is the vessel's latest
    before it; ``forget`` the pipeline's forget time: identities heard before a silence
    of static data that long are dropped, as forgetting the vessel would drop them
    (so the verdict never depends on when the expiry sweep ran). Its changes go into the
    vessel's history and, when the pipeline stores them, to ``out``."""
    t = st.t
    if t - ident.last_t > forget:
        ident.seen = []
    ident.last_t = t
    changed: dict[str, tuple[Any, Any]] = {}
    for f in _FIELDS:
        new = _norm(f, getattr(st, f))
        old = _norm(f, getattr(prev, f)) if prev is not None else None
        if new is not None and old is not None and new != old:
            changed[f] = (old, new)
    found = [(f, old, new) for f, (old, new) in changed.items()]
    imo = _norm("imo", st.imo)
    if imo is not None and not imo_valid(imo) and (prev is None or _norm("imo", prev.imo) != imo):
        found.append((IMO_CHECK, None, imo))
    for f, old, new in found:
        c = IdentityChange(st.mmsi, t, f, old, new, st.msg_type, st.source, ident.number(t))
        ident.history.append(c)
        if out is not None:
            out.add(c)
    del ident.history[:-HISTORY_CAP]
    raised = False
    why = []
    if "imo" in changed and all(imo_valid(x) for x in changed["imo"]):
        why.append("IMO changed between two valid numbers")
    if "name" in changed and "callsign" in changed:
        why.append("name and call sign changed in one report")
    key = tuple(
        _norm(f, getattr(st, f)) if getattr(st, f) is not None
        else (_norm(f, getattr(prev, f)) if prev else None)
        for f in ("name", "callsign", "imo")
    )  # fmt: skip
    prior = [k for s, k in ident.seen if t - s <= WINDOW_S]
    if prior and not _same(prior[-1], key) and any(_same(k, key) for k in prior[:-1]):
        why.append("returned to an identity it had within the day")
    ident.seen = [(s, k) for s, k in ident.seen if t - s <= WINDOW_S and k != key]
    ident.seen.append((t, key))
    if why:
        ident.events.append((t, STATIC_RULE, {"why": why, "changes": _json(changed)}, fix))
        raised = True
    if "callsign" in changed or prev is None or prev.callsign is None:
        conflict = flag_conflict(st.mmsi, st.callsign)
        if conflict is not None:
            ident.events.append((t, FLAG_RULE, {"why": [conflict]}, fix))
            raised = True
    return raised


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Two identities are one where both say something (a missing field agrees)."""
    return all(x is None or y is None or x == y for x, y in zip(a, b, strict=True))


def _json(changed: dict[str, tuple[Any, Any]]) -> dict[str, Any]:
    return {f: {"from": a, "to": b} for f, (a, b) in changed.items()}


def day_count(ident: Ident | None) -> tuple[int, int] | None:
    """What a forgotten vessel keeps of its identity: its UTC day's count of changes
    (None when it has none), so a vessel forgotten and heard again the same day goes on
    numbering them (alerts/identity/history.py caps them per day)."""
    return (ident.day, ident.day_n) if ident is not None and ident.day_n else None


def resume(count: tuple[int, int] | None) -> Ident | None:
    """The identity of a vessel heard again after it was forgotten (see :func:`day_count`)."""
    if count is None:
        return None
    ident = Ident()
    ident.day, ident.day_n = count
    return ident


def last_event_t(ident: Ident | None) -> float | None:
    return ident.events[-1][0] if ident is not None and ident.events else None


def settle(
    mmsi: int, ident: Ident, w: float, info: VesselInfo | None, done: set[Any]
) -> list[Lead]:
    """The leads of the run of events the bound (``w``) has passed by :data:`QUIET_S`;
    none until a fix places them (then they wait: a static report alone has no place)."""
    evs = ident.events
    # the first run: events each within QUIET_S of the one before (the same runs
    # however the settling passes fall)
    n = 1
    while n < len(evs) and evs[n][0] - evs[n - 1][0] <= QUIET_S:
        n += 1
    if not evs or w - evs[n - 1][0] <= QUIET_S:
        return []
    if all(e[3] is None for e in evs[:n]):
        if w - evs[n - 1][0] > WINDOW_S:
            del evs[:n]  # no fix placed them in a day: nowhere to send anyone
        return []
    events = evs[:n]
    del evs[:n]
    # placed at the run's first placed event: the latest fix before it, or the first after
    fix = next(e[3] for e in events if e[3] is not None)
    out = []
    for rule in (STATIC_RULE, FLAG_RULE):
        mine = [e for e in events if e[1] == rule]
        if not mine:
            continue
        key = (rule, -3, mine[0][0])
        if key in done:
            continue
        done.add(key)
        out.append(_lead(mmsi, rule, mine, fix, info))
    return out + settle(mmsi, ident, w, info, done)


def _lead(
    mmsi: int, rule: str, events: list[Event], fix: EvidencePoint, info: VesselInfo | None
) -> Lead:
    mid, iso = country(mmsi)
    start, end = events[0][0], events[-1][0]
    return build_lead(
        mmsi=mmsi, rule=rule, zone=None, started_at=start, ended_at=end, key_point=fix,
        points=[fix], cap=1, vessel=vessel_json(mmsi, info), max_sog_kn=None,
        details={
            "events": [{"t": iso_utc(t), **what} for t, _, what, _ in events],
            "mid": mid, "mid_country": iso,
            "rule": f"within {WINDOW_S / 3600:.0f} h: an identity that returns, an IMO "
            "between two valid numbers, name and call sign at once; or a MID and call "
            "sign of different flags, Brazil's one of them",
        },
    )  # fmt: skip
