"""The repository's leads: their upsert from the pipeline, their reads, and the moves of
their administrative procedure, each with its event in the same transaction.

Mixed into ``SqlRepository`` like the other stores; kept apart from ``repository`` so the
path a lead takes through the store (routing, the outbox, the retried procedure move) can
be read in one place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy.engine import Connection

from vigia.alerts.lead import Lead
from vigia.alerts.procedure.repeats import PriorCase
from vigia.alerts.procedure.workflow import Actor, Move, ProcedureConflictError
from vigia.service.db import events as ev
from vigia.service.db import procedure_store as ps
from vigia.service.db import silences as sl
from vigia.service.db import zones_leads as zl
from vigia.service.db.protocol import LeadQuery, Scope

# a move is read and applied again when a concurrent edit committed first; each retry
# follows a commit by someone else, so this bounds only a pathological storm of edits
_MOVE_ATTEMPTS = 50


class LeadStore:
    """Mixed into SqlRepository: needs ``_tx()``, ``_pg`` and ``_notify_events()``."""

    _pg: bool
    _tx: Callable[[], AbstractContextManager[Connection]]
    _notify_events: Callable[[int], None]

    def upsert_leads(self, leads: Sequence[Lead], *, seq: int | None = None) -> None:
        """Insert leads, or update open ones as their episodes grow; a closed lead is
        never rewritten, and an open lead's workflow status is kept. A lead without an
        authority is routed by the stored jurisdiction zones (ballast leads by their AIS
        destination port first, NORMAM-20 2.1.2). Each real change is also a lead event
        in the same transaction (the outbox); silenced leads are stored but not pushed.
        ``seq``: broker mode's commit sequence (see ``zones_leads.upsert_leads``)."""
        with self._tx() as conn:
            last_id = zl.upsert_leads(
                conn, self._pg, sl.prepare_leads(conn, self._pg, leads), time.time(), seq
            )
        self._notify_events(last_id)

    def get_lead(self, lead_id: str, scope: Scope) -> Lead | None:
        """One lead with its evidence (None when absent or outside ``scope``)."""
        with self._tx() as conn:
            return zl.get_lead(conn, lead_id, scope)

    def list_leads(
        self, query: LeadQuery, limit: int, offset: int = 0, *, scope: Scope
    ) -> tuple[list[Lead], int]:
        """A page of the leads in ``scope``, newest first, and the total matched."""
        with self._tx() as conn:
            return zl.list_leads(conn, self._pg, query, limit, offset, scope)

    def move_lead(
        self,
        lead_id: str,
        move: Move,
        actor: Actor,
        *,
        scope: Scope,
        if_version: int | None = None,
    ) -> Lead | None:
        """The one way a lead's procedure changes: checked by the state machine, written
        with its history row in one transaction; None if there is no such lead in
        ``scope``. The write compares the version it read: when another edit committed
        in between (SQLite has no row lock), the move is read and applied again on top
        of it, so both edits land and neither is lost; ``if_version`` (a client's
        If-Match) makes a changed version a ``PreconditionFailedError`` instead."""
        for _ in range(_MOVE_ATTEMPTS):
            try:
                return self._move_once(lead_id, move, actor, scope, if_version)
            except ps.StaleVersionError:
                continue
        raise ProcedureConflictError("the lead keeps changing meanwhile; read it again", ())

    def _move_once(
        self, lead_id: str, move: Move, actor: Actor, scope: Scope, if_version: int | None
    ) -> Lead | None:
        with self._tx() as conn:
            ev.lock(conn, self._pg)  # event ids stay in commit order
            now = time.time()
            lead = ps.move_lead(conn, self._pg, lead_id, move, actor, now, scope, if_version)
            # a live client shows who moved the lead and why without a second read
            who = {"moved_by": {"name": actor.name, "role": actor.role}, "move_reason": move.reason}
            last_id = 0 if lead is None else ev.append(conn, [(ev.STATUS, lead, None)], now, who)
        self._notify_events(last_id)
        return lead

    def lead_history(self, lead_id: str, scope: Scope) -> list[dict[str, Any]]:
        """A lead's append-only history, oldest first (empty outside ``scope``)."""
        with self._tx() as conn:
            return ps.history(conn, lead_id, scope)

    def prior_cases(self, lead_id: str, scope: Scope) -> list[PriorCase]:
        """Other closed leads that reached ``infraction`` (repeat-offence candidates);
        those outside ``scope`` under ``OTHER_AUTHORITY``."""
        with self._tx() as conn:
            return ps.prior_cases(conn, lead_id, scope)
