"""The lead event log (outbox), written inside the transaction that writes the lead.

Any writer of leads (the ingest writer, a bus consumer, the workflow route) goes through
``upsert_leads`` / ``set_lead_status`` in ``zones_leads``, which call ``append`` here, so
an event exists exactly when its lead change was committed.

Ids must be read in commit order: an SSE client resuming after id N must never find a
smaller id committed later. SQLite serialises writers already; on PostgreSQL every event
writer first takes one transaction-scoped advisory lock, so ids are drawn and committed
in the same order.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, select, text
from sqlalchemy.engine import Connection

from vigia.alerts.lead import Lead
from vigia.alerts.priority import priority
from vigia.service.db.outbox_models import LeadEventRow
from vigia.service.db.protocol import Scope

OPENED, UPDATED, STATUS = "lead.opened", "lead.updated", "lead.status"
LEAD_EVENT_TYPES = (OPENED, UPDATED, STATUS)
# any constant works: it only has to be the same in every writer ("vigi")
_LOCK_KEY = 0x76696769
_COLS = tuple(LeadEventRow.__table__.columns)


@dataclass(slots=True, frozen=True)
class LeadEvent:
    """One stored event: its id, type, the lead's routing fields and the lead JSON."""

    id: int
    type: str
    lead_id: str
    rule: str
    zone_id: str | None
    authority: str | None
    priority: int
    created_at: float
    data: dict[str, Any]


def lock(conn: Connection, pg: bool) -> None:
    """Serialise event writers until this transaction ends (PostgreSQL only)."""
    if pg:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})


def digest(row: dict[str, Any]) -> str:
    """A hash of a lead row's content, without its workflow status and write time."""
    content = {k: v for k, v in row.items() if k not in ("status", "updated_at", "digest")}
    blob = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def payload(lead: Lead, status: str | None = None) -> dict[str, Any]:
    """The event data: the lead JSON (with the stored status) and its priority."""
    data = lead.to_json()
    if status is not None:
        data["status"] = status
    data["priority"] = priority(lead.rule)
    return data


def append(
    conn: Connection,
    items: Sequence[tuple[str, Lead, str | None]],
    now: float,
    extra: dict[str, Any] | None = None,
) -> int:
    """Store events ``(type, lead, stored status)``, the most urgent first so they get
    the smaller ids and go out first; returns the highest id written (0 if none)."""
    if not items:
        return 0
    ordered = sorted(items, key=lambda it: -priority(it[1].rule))
    top = 0
    for kind, lead, status in ordered:
        new_id = conn.execute(
            insert(LeadEventRow)
            .values(
                created_at=now,
                type=kind,
                lead_id=lead.id,
                rule=lead.rule,
                zone_id=lead.zone_id,
                authority=lead.authority,
                priority=priority(lead.rule),
                payload={**payload(lead, status), **(extra or {})},
            )
            .returning(LeadEventRow.id)
        ).scalar_one()
        top = max(top, int(new_id))
    return top


def _event(r: Any) -> LeadEvent:
    return LeadEvent(
        id=int(r.id),
        type=r.type,
        lead_id=r.lead_id,
        rule=r.rule,
        zone_id=r.zone_id,
        authority=r.authority,
        priority=int(r.priority),
        created_at=float(r.created_at),
        data=dict(r.payload),
    )


def after(conn: Connection, after_id: int, limit: int, scope: Scope) -> list[LeadEvent]:
    """Events of leads in ``scope`` with an id above ``after_id``, oldest first (each
    event carries its lead's authority, so the filter is one indexed-id range scan)."""
    e = LeadEventRow
    conds = [e.id > after_id]
    if scope.authority is not None:
        conds.append(e.authority == scope.authority)
    rows = conn.execute(select(*_COLS).where(*conds).order_by(e.id).limit(limit))
    return [_event(r) for r in rows]


def by_ids(conn: Connection, ids: Sequence[int]) -> dict[int, LeadEvent]:
    """Events by id."""
    rows = conn.execute(select(*_COLS).where(LeadEventRow.id.in_(list(ids))))
    return {int(r.id): _event(r) for r in rows}


def head(conn: Connection) -> int:
    """The highest event id (0 when there is none)."""
    return int(conn.execute(select(func.max(LeadEventRow.id))).scalar() or 0)
