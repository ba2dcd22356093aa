"""Event-id epochs: an id never names two events, across a restore from a backup.

A store restored from a backup has the events up to the backup; the lost store went on
issuing ids after it, which SSE clients and webhook receivers have seen. Had the
restored store carried on from the backup's last id, those ids would now name other
events: a receiver that deduplicates by ``webhook-id`` drops new events, an SSE client
resuming after its last id skips everything up to it.

So a restore starts a new epoch: the id sequence jumps to the restore's time in
microseconds (1.7e15 in 2025, below JavaScript's 2^53 until the year 2255), and at least
``MIN_GAP`` past anything this store ever issued. Whatever the lost store issued after
the backup lay between the two (a million events a second of its life would be needed
to reach the restore's time); two restores of one backup start at their own times. Ids
stay integers that only grow, so every "after id N" read keeps working.

Each epoch is noted in ``store_notes`` (``event_epochs``: the generation, the backup's
last id, the first id of the epoch, when): an id in a gap between a backup's last id and
the next epoch's first is one this store cannot place, nor is one above the newest id.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import insert, select, text, update
from sqlalchemy.engine import Connection, Engine

from vigia.service.db import events as ev
from vigia.service.db.models import StoreNote

NOTE = "event_epochs"
MIN_GAP = 10**9
AHEAD, OTHER_TIMELINE = "ahead_of_store", "not_in_this_store"


@dataclass(frozen=True, slots=True)
class Epoch:
    """One restore: ids from ``first_id`` on; ids above ``backup_head`` and below
    ``first_id`` were never issued by this store's lineage."""

    generation: int
    backup_head: int
    first_id: int
    started_at: float


def epochs(conn: Connection) -> list[Epoch]:
    """The store's epochs, oldest first (none: never restored)."""
    raw = conn.execute(select(StoreNote.value).where(StoreNote.name == NOTE)).scalar()
    return [Epoch(**e) for e in json.loads(raw)] if raw else []


def generation(conn: Connection) -> int:
    """How many restores the store has been through (0: none)."""
    found = epochs(conn)
    return found[-1].generation if found else 0


def unplaceable(conn: Connection, event_id: int) -> str | None:
    """Why the store cannot place ``event_id`` (None: it can, every event after it is
    here): ``AHEAD`` above its newest id, ``OTHER_TIMELINE`` issued after a backup this
    store was restored from, by the store that was lost."""
    for e in epochs(conn):
        if e.backup_head < event_id < e.first_id:
            return OTHER_TIMELINE
    return AHEAD if event_id > ev.head(conn) else None


def _sequence_floor(conn: Connection, pg: bool) -> int:
    """The highest id the sequence has handed out (deleted or rolled-back ones too)."""
    if pg:
        name = conn.execute(text("SELECT pg_get_serial_sequence('lead_events', 'id')")).scalar()
        return int(conn.execute(text(f"SELECT last_value FROM {name}")).scalar() or 0)
    value = conn.execute(text("SELECT seq FROM sqlite_sequence WHERE name = 'lead_events'"))
    return int(value.scalar() or 0)


def _set_sequence(conn: Connection, pg: bool, last: int) -> None:
    if pg:
        conn.execute(
            text("SELECT setval(pg_get_serial_sequence('lead_events', 'id'), :v, true)"),
            {"v": last},
        )
        return
    done = conn.execute(
        text("UPDATE sqlite_sequence SET seq = :v WHERE name = 'lead_events'"), {"v": last}
    ).rowcount
    if not done:  # no event ever written: AUTOINCREMENT reads this row when it comes
        conn.execute(
            text("INSERT INTO sqlite_sequence (name, seq) VALUES ('lead_events', :v)"),
            {"v": last},
        )


def start_epoch(engine: Engine, now: float | None = None) -> Epoch:
    """Begin a new epoch (``vigia restore`` does, before the service writes)."""
    now = time.time() if now is None else now
    pg = engine.dialect.name == "postgresql"
    with engine.begin() as conn:
        ev.lock(conn, pg)
        head = ev.head(conn)
        floor = max(head, _sequence_floor(conn, pg))
        found = epochs(conn)
        first = max(int(now * 1_000_000), floor + MIN_GAP)
        epoch = Epoch(len(found) + 1, head, first, now)
        _set_sequence(conn, pg, first - 1)
        value = json.dumps([asdict(e) for e in [*found, epoch]])
        if found:
            conn.execute(update(StoreNote).where(StoreNote.name == NOTE).values(value=value))
        else:
            conn.execute(insert(StoreNote).values(name=NOTE, value=value))
    return epoch


def describe(conn: Connection) -> dict[str, Any]:
    """The generation and the newest epoch, for a manifest or a report."""
    found = epochs(conn)
    return {
        "generation": found[-1].generation if found else 0,
        "epochs": [asdict(e) for e in found],
        "last_event_id": ev.head(conn),
    }
