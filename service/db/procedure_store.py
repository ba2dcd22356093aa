"""Moving a lead through the procedure, in one transaction with its history row.

Every status change goes through :func:`move_lead` (``SqlRepository.move_lead``): the
pure state machine decides, this writes the new state and appends the history row in
the caller's transaction, so a change and its record are one commit or none.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection

from vigia.alerts.lead import Lead
from vigia.alerts.procedure.calendars import STATES, soonest
from vigia.alerts.procedure.deadlines import check_dates, compute_deadlines
from vigia.alerts.procedure.register import appeal_office, office_named
from vigia.alerts.procedure.repeats import PriorCase
from vigia.alerts.procedure.workflow import Actor, Move, apply_move
from vigia.ingest.records import iso_utc
from vigia.service.db import zones_leads as zl
from vigia.service.db.models import LeadHistoryRow, LeadRow
from vigia.service.db.protocol import OTHER_AUTHORITY, Scope
from vigia.service.errors import PreconditionFailedError

_H = LeadHistoryRow


def _changed(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    return {k: before.get(k) for k in keys}, {k: after.get(k) for k in keys}


class StaleVersionError(Exception):
    """The lead's row changed between our read and our write (no row lock on SQLite);
    the store reads it again and reapplies the move."""


def move_lead(
    conn: Connection,
    pg: bool,
    lead_id: str,
    move: Move,
    actor: Actor,
    now: float,
    scope: Scope,
    if_version: int | None,
) -> Lead | None:
    """Apply ``move`` to a lead in ``scope`` and append its history row; None if there
    is no such lead. The UPDATE compares the version read, so a concurrent edit makes it
    raise ``StaleVersionError`` instead of overwriting that edit."""
    sel = select(
        LeadRow.status,
        LeadRow.rule,
        LeadRow.procedure,
        LeadRow.authority,
        LeadRow.details,
        LeadRow.version,
    ).where(LeadRow.id == lead_id, *zl.in_scope(LeadRow.authority, scope))
    if pg:
        sel = sel.with_for_update()
    row = conn.execute(sel).first()
    if row is None:
        return None
    if if_version is not None and int(row.version) != if_version:
        raise PreconditionFailedError(
            f"the lead is at version {row.version}, not {if_version}: read it again"
        )
    before_proc: dict[str, Any] = dict(row.procedure or {})
    start = before_proc
    if not before_proc.get("seat_state") and row.authority:
        start = {**before_proc, **_seat(conn, pg, row.authority)}
    if "appeal_authority" not in start and row.authority:
        start = {**start, **_appeal_seat(row.authority)}
    cands = (row.details or {}).get("candidates") or []
    move = replace(move, candidates=tuple(c for c in cands if isinstance(c, dict)))
    status, proc = apply_move(row.rule, row.status, start, move)
    check_dates(row.rule, row.status, status, proc)
    due = soonest(compute_deadlines(row.rule, status, proc))
    res = conn.execute(
        update(LeadRow)
        .where(LeadRow.id == lead_id, LeadRow.version == row.version)
        .values(
            version=LeadRow.version + 1,
            status=status,
            procedure=proc,
            due_on=None if due is None else due.isoformat(),
            infraction_on=(proc.get("auto") or {}).get("date"),
            updated_at=now,
        )
    )
    if res.rowcount != 1:
        raise StaleVersionError(lead_id)
    before, after = _changed(before_proc, proc)
    conn.execute(
        insert(_H).values(
            lead_id=lead_id,
            at=now,
            by_name=actor.name,
            by_role=actor.role,
            from_status=row.status,
            to_status=status,
            reason=move.reason,
            before=before,
            after=after,
        )
    )
    return zl.get_lead(conn, lead_id, scope)


def _seat(conn: Connection, pg: bool, authority: str) -> dict[str, Any]:
    """The seat (state, municipality) its jurisdiction zone gives an authority."""
    for zone in zl.jurisdiction_zones(conn, pg):
        state = zone.properties.get("seat_state")
        if zone.authority == authority and isinstance(state, str) and state in STATES:
            seat: dict[str, Any] = {"seat_state": state}
            town = zone.properties.get("seat_municipality")
            if isinstance(town, str) and town:
                seat["seat_municipality"] = town
            return seat
    office = office_named(authority)
    if office is not None:
        return {"seat_state": office.seat_state, "seat_municipality": office.seat_municipality}
    return {}


def _appeal_seat(authority: str) -> dict[str, Any]:
    """Who decides the first LESTA appeal and where it sits (NORMAM-07 0305 b) II): the
    Capitania above a Delegacia or Agência of the register; nothing for an authority the
    register does not hold (its own seat is then taken)."""
    office = appeal_office(authority)
    if office is None:
        return {}
    return {
        "appeal_authority": office.name,
        "appeal_seat_state": office.seat_state,
        "appeal_seat_municipality": office.seat_municipality,
    }


def history(conn: Connection, lead_id: str, scope: Scope) -> list[dict[str, Any]]:
    """A lead's history, oldest first, as the contract's items (none outside ``scope``)."""
    if scope.authority is not None and zl.get_lead(conn, lead_id, scope) is None:
        return []
    rows = conn.execute(
        select(*_H.__table__.columns).where(_H.lead_id == lead_id).order_by(_H.id)
    ).all()
    return [
        {
            "at": iso_utc(h.at),
            "by": h.by_name,
            "by_role": h.by_role,
            "from": h.from_status,
            "to": h.to_status,
            "reason": h.reason,
            "before": h.before,
            "after": h.after,
        }
        for h in rows
    ]


def prior_cases(conn: Connection, lead_id: str, scope: Scope) -> list[PriorCase]:
    """Every other closed lead that reached ``infraction``: the candidates for a repeat
    offence (alerts/procedure/repeats.py decides which count; few rows: Autos only). A
    lead outside ``scope`` counts (a repeat offence is nationwide) but is not named."""
    rows = conn.execute(
        select(
            LeadRow.id,
            LeadRow.mmsi,
            LeadRow.rule,
            LeadRow.status,
            LeadRow.procedure,
            LeadRow.authority,
        ).where(
            LeadRow.id != lead_id,
            LeadRow.infraction_on.is_not(None),
            LeadRow.status == "closed",
        )
    ).all()
    return [
        PriorCase(
            str(r.id) if scope.admits(r.authority) else OTHER_AUTHORITY,
            int(r.mmsi),
            str(r.rule),
            str(r.status),
            dict(r.procedure or {}),
        )
        for r in rows
    ]
