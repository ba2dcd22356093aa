"""Vessels' static data in the store, both dialects: each vessel's latest, and its
identity history (issue 34): one row per change of its static data
(alerts/identity/history.py), keyed by (MMSI, time, field), and per vessel and UTC day
how many changes the pipeline counted.

Both are written in one transaction (``upsert_vessels``): a kill between the two cannot
keep one without the other. A
change already stored is left as it is (a capture ingested twice, a spool replayed
after a kill, a broker message delivered again: stored once). A vessel whose history is
judged again from a time on (a late record) has its rows from then on replaced. At most
:data:`~vigia.alerts.identity.history.DAY_CAP` rows per vessel and UTC day are kept,
whatever the pipeline sends: a worker restarted mid-day numbers that day's changes
afresh, and the table stays bounded all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Connection,
    Float,
    Index,
    Integer,
    Text,
    and_,
    delete,
    func,
    or_,
    select,
    tuple_,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Mapped, mapped_column

from vigia.alerts.identity.history import DAY_CAP, HistoryOut, IdentityChange, utc_day
from vigia.ingest.mmsi import is_valid_mmsi
from vigia.ingest.records import VesselInfo
from vigia.service.db.codec import VESSEL_COLUMNS, vessel_row
from vigia.service.db.models import Base, Vessel
from vigia.service.db.protocol import IdentityHistory

#: (MMSI, day) pairs per query when reading what is already stored (bound parameters)
_PAIRS = 400


class IdentityChangeRow(Base):
    """One change of a vessel's static data (``field`` ``before`` -> ``after``)."""

    __tablename__ = "identity_history"
    __table_args__ = (Index("ix_identity_history_mmsi_day", "mmsi", "day"),)

    mmsi: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    t: Mapped[float] = mapped_column(Float, primary_key=True)
    field: Mapped[str] = mapped_column(Text, primary_key=True)
    #: UTC day of ``t`` (days since 1970-01-01): the unit of the cap
    day: Mapped[int] = mapped_column(Integer)
    before: Mapped[Any] = mapped_column(JSON, nullable=True)
    after: Mapped[Any] = mapped_column(JSON, nullable=True)
    msg_type: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(Text)


class IdentityDayRow(Base):
    """How many changes the pipeline counted for a vessel in a UTC day (kept or not)."""

    __tablename__ = "identity_history_days"

    mmsi: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    day: Mapped[int] = mapped_column(Integer, primary_key=True)
    changes: Mapped[int] = mapped_column(Integer)


_H, _D = IdentityChangeRow, IdentityDayRow


def _row(c: IdentityChange) -> dict[str, Any]:
    return {
        "mmsi": c.mmsi, "t": c.t, "field": c.field, "day": c.day, "before": c.before,
        "after": c.after, "msg_type": c.msg_type, "source": c.source,
    }  # fmt: skip


def write_history(conn: Connection, pg: bool, history: HistoryOut | None) -> None:
    """Apply what the pipeline handed out, in its order, inside the caller's transaction:
    the replaced stretches, then the new changes (each day's first ``DAY_CAP``), then
    the day counts (the highest wins: a count replayed twice is the same count)."""
    if not history:
        return
    insert = pg_insert if pg else sqlite_insert
    for mmsi, t in history.redo.items():
        # its counts from t's day on are given again in ``days`` below
        conn.execute(delete(_H).where(_H.mmsi == mmsi, _H.t >= t))
        conn.execute(delete(_D).where(_D.mmsi == mmsi, _D.day >= utc_day(t)))
    changes = [c for c in history.changes if is_valid_mmsi(c.mmsi)]
    if changes:
        # what each (vessel, day) already holds: a change stored is not stored again,
        # and a day that holds DAY_CAP takes no more
        held: dict[tuple[int, int], set[tuple[float, str]]] = {}
        pairs = sorted({(c.mmsi, c.day) for c in changes})
        for i in range(0, len(pairs), _PAIRS):
            q = select(_H.mmsi, _H.day, _H.t, _H.field).where(
                tuple_(_H.mmsi, _H.day).in_(pairs[i : i + _PAIRS])
            )
            for m, d, t, f in conn.execute(q):  # (a row's .t is its tuple: unpacked)
                held.setdefault((m, d), set()).add((float(t), f))
        rows = []
        for c in changes:
            keys = held.setdefault((c.mmsi, c.day), set())
            if (c.t, c.field) in keys or len(keys) >= DAY_CAP:
                continue
            keys.add((c.t, c.field))
            rows.append(_row(c))
        if rows:
            ins = insert(_H).on_conflict_do_nothing(index_elements=["mmsi", "t", "field"])
            conn.execute(ins, rows)
    days = [
        {"mmsi": m, "day": d, "changes": n}
        for (m, d), n in sorted(history.days.items())
        if is_valid_mmsi(m)
    ]
    if days:
        ins = insert(_D)
        conn.execute(
            ins.on_conflict_do_update(
                index_elements=["mmsi", "day"],
                set_={"changes": ins.excluded.changes},
                where=_D.changes < ins.excluded.changes,
            ),
            days,
        )


def _change(mmsi: int, r: Any) -> IdentityChange:
    t, field, before, after, msg_type, source = r
    return IdentityChange(mmsi, float(t), field, before, after, int(msg_type), source)


class StaticStore:
    """Mixed into SqlRepository: needs ``_tx()`` and ``_pg``."""

    _pg: bool
    _tx: Callable[[], AbstractContextManager[Connection]]

    def upsert_vessels(
        self, vessels: Sequence[VesselInfo], history: HistoryOut | None = None
    ) -> None:
        """Insert or update the latest static data per MMSI (an older report never wins;
        an MMSI that is no station's identity is not kept, as at ingest) and, in the
        same transaction, the identity history handed out with it."""
        newest: dict[int, VesselInfo] = {}
        for v in vessels:
            if not is_valid_mmsi(v.mmsi):
                continue
            seen = newest.get(v.mmsi)
            if seen is None or (v.updated_at or 0.0) >= (seen.updated_at or 0.0):
                newest[v.mmsi] = v
        if not newest and not history:
            return
        ins = (pg_insert if self._pg else sqlite_insert)(Vessel)
        stmt = ins.on_conflict_do_update(
            index_elements=["mmsi"],
            set_={c: ins.excluded[c] for c in VESSEL_COLUMNS if c != "mmsi"},
            where=(Vessel.updated_at.is_(None))
            | (ins.excluded.updated_at.is_(None))
            | (Vessel.updated_at <= ins.excluded.updated_at),
        )
        with self._tx() as conn:
            if newest:
                conn.execute(stmt, [vessel_row(v) for v in newest.values()])
            write_history(conn, self._pg, history)

    def identity_history(
        self, mmsi: int, limit: int, before: tuple[float, str] | None = None
    ) -> IdentityHistory:
        """The vessel's stored changes, newest first (at most ``limit``; after the
        change ``before`` (t, field) in that order when given), how many are stored,
        and the days whose changes were not all kept."""
        q = (
            select(_H.t, _H.field, _H.before, _H.after, _H.msg_type, _H.source)
            .where(_H.mmsi == mmsi)
            .order_by(_H.t.desc(), _H.field)
            .limit(limit)
        )
        if before is not None:
            # the primary key (mmsi, t, field) orders every change: a keyset page
            bt, bf = before
            q = q.where(or_(_H.t < bt, and_(_H.t == bt, _H.field > bf)))
        kept_q = select(_H.day, func.count()).where(_H.mmsi == mmsi).group_by(_H.day)
        days_q = select(_D.day, _D.changes).where(_D.mmsi == mmsi).order_by(_D.day)
        with self._tx() as conn:
            changes = [_change(mmsi, r) for r in conn.execute(q)]
            kept = {int(d): int(n) for d, n in conn.execute(kept_q)}
            counted = [(int(d), int(n)) for d, n in conn.execute(days_q)]
        short = [(d, n, kept.get(d, 0)) for d, n in counted if n > kept.get(d, 0)]
        return IdentityHistory(changes, sum(kept.values()), short)
