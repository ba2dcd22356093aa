"""Draft zones, their history and lead budgets in the store (issue 36), both dialects.

A draft keeps the uploaded FeatureCollection as validated (a draft is not live, so it
needs no geometry index), its state (draft, published, dropped) and the report of its
latest backtest, cleared by an edit so that what is published is what was tried.
Every step is an event of its own, never rewritten.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection, Engine

from vigia.service.db.draft_models import DraftZoneEvent, DraftZoneRow, ZoneBudgetRow
from vigia.service.errors import ConflictError, NotFoundError

DRAFT, PUBLISHED, DROPPED = "draft", "published", "dropped"
_D, _E, _B = DraftZoneRow, DraftZoneEvent, ZoneBudgetRow


def _event(
    conn: Connection,
    draft_id: int,
    by: str,
    action: str,
    reason: str | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    row = {"draft_id": draft_id, "at": time.time(), "by": by, "action": action}
    conn.execute(insert(_E).values(**row, reason=reason, detail=detail))


class DraftStore:
    """The drafts of one store (its SQLAlchemy engine)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def create(self, name: str, features: dict[str, Any], by: str) -> dict[str, Any]:
        """A new draft (its features already validated); returns it."""
        now = time.time()
        row = {"name": name, "features": features, "state": DRAFT, "created_by": by}
        with self._engine.begin() as conn:
            draft_id = int(
                conn.execute(
                    insert(_D).values(**row, created_at=now, updated_at=now).returning(_D.id)
                ).scalar_one()
            )
            _event(conn, draft_id, by, "created", detail={"zones": _ids(features)})
        return self.get(draft_id)

    def get(self, draft_id: int) -> dict[str, Any]:
        """One draft with its history, oldest event first; NotFoundError when none."""
        with self._engine.connect() as conn:
            row = conn.execute(select(*_D.__table__.columns).where(_D.id == draft_id)).first()
            if row is None:
                raise NotFoundError(f"no draft {draft_id}")
            events = conn.execute(
                select(*_E.__table__.columns).where(_E.draft_id == draft_id).order_by(_E.id)
            ).all()
        out = dict(row._mapping)
        out["history"] = [
            {k: v for k, v in e._mapping.items() if k not in ("id", "draft_id")} for e in events
        ]
        return out

    def all(self) -> list[dict[str, Any]]:
        """Every draft, newest first, without features or history."""
        cols = [c for c in _D.__table__.columns if c.name != "features"]
        with self._engine.connect() as conn:
            rows = conn.execute(select(*cols).order_by(_D.id.desc())).all()
        return [dict(r._mapping) for r in rows]

    def _open(self, conn: Connection, draft_id: int) -> Any:
        row = conn.execute(select(_D.state).where(_D.id == draft_id)).first()
        if row is None:
            raise NotFoundError(f"no draft {draft_id}")
        if row.state != DRAFT:
            raise ConflictError(f"draft {draft_id} is {row.state}: it can no longer change")
        return row

    def edit(self, draft_id: int, features: dict[str, Any], by: str) -> dict[str, Any]:
        """Replace a draft's features; its backtest no longer holds, so it goes."""
        with self._engine.begin() as conn:
            self._open(conn, draft_id)
            conn.execute(
                update(_D)
                .where(_D.id == draft_id)
                .values(features=features, backtest=None, updated_at=time.time())
            )
            _event(conn, draft_id, by, "edited", detail={"zones": _ids(features)})
        return self.get(draft_id)

    def tried(
        self, draft_id: int, features: dict[str, Any], report: dict[str, Any], by: str
    ) -> bool:
        """Keep a backtest's report, if the draft still holds the features it tried."""
        with self._engine.begin() as conn:
            row = conn.execute(select(_D.features, _D.state).where(_D.id == draft_id)).first()
            if row is None or row.state != DRAFT or row.features != features:
                return False  # edited, published or dropped meanwhile
            conn.execute(update(_D).where(_D.id == draft_id).values(backtest=report))
            summary = {k: report.get(k) for k in ("since", "until", "leads", "difference")}
            _event(conn, draft_id, by, "tried", detail=summary)
        return True

    def close(
        self, draft_id: int, state: str, by: str, reason: str | None, detail: dict[str, Any]
    ) -> dict[str, Any]:
        """Mark a draft published or dropped, with the reason given."""
        with self._engine.begin() as conn:
            self._open(conn, draft_id)
            conn.execute(
                update(_D).where(_D.id == draft_id).values(state=state, updated_at=time.time())
            )
            _event(conn, draft_id, by, state, reason, detail)
        return self.get(draft_id)

    def zone_history(self, zone_id: str) -> list[dict[str, Any]]:
        """The draft events that named a zone (publications with their reasons among them)."""
        with self._engine.connect() as conn:
            rows = conn.execute(select(*_E.__table__.columns).order_by(_E.id)).all()
        return [dict(r._mapping) for r in rows if zone_id in ((r.detail or {}).get("zones") or ())]

    def set_budget(self, zone_id: str, leads_per_day: int, by: str) -> None:
        """How many leads a day the zone may raise (replacing any earlier budget)."""
        with self._engine.begin() as conn:
            conn.execute(delete(_B).where(_B.zone_id == zone_id))
            conn.execute(
                insert(_B).values(
                    zone_id=zone_id, leads_per_day=leads_per_day, set_by=by, set_at=time.time()
                )
            )

    def budgets(self, zone_ids: Iterable[str]) -> dict[str, int]:
        """The budgets set for these zones (a zone without one has no limit)."""
        ids = list(zone_ids)
        with self._engine.connect() as conn:
            rows = conn.execute(
                select(_B.zone_id, _B.leads_per_day).where(_B.zone_id.in_(ids))
            ).all()
        return {r.zone_id: int(r.leads_per_day) for r in rows}


def _ids(features: dict[str, Any]) -> Sequence[str]:
    return [str((f.get("properties") or {}).get("id")) for f in features.get("features", [])]
