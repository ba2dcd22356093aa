"""The repository's administrative part: API keys (hashes only) and ballast audits, the
records an admin or an auditor reaches and nothing in the evaluation path touches."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from vigia.service.db.models import ApiKey, BallastAudit
from vigia.service.db.protocol import ApiKeyRecord, Scope
from vigia.service.db.zones_leads import in_scope
from vigia.service.errors import ConflictError

#: audits are kept at least this long (NORMAM-20 record keeping); 5 x 365.25 days
AUDIT_RETENTION_S = 157_788_000.0


class AdminStore:
    """Mixed into SqlRepository: needs ``_tx()`` and ``_pg``."""

    _pg: bool
    _tx: Callable[[], AbstractContextManager[Connection]]

    def add_api_key(
        self, name: str, role: str, key_hash: str, authority: str | None = None
    ) -> ApiKeyRecord:
        """Store a new API key's hash (optionally limited to one authority's leads)."""
        now = time.time()
        with self._tx() as conn:
            key_id = conn.execute(
                insert(ApiKey)
                .values(
                    name=name,
                    role=role,
                    key_hash=key_hash,
                    created_at=now,
                    revoked=False,
                    authority=authority,
                )
                .returning(ApiKey.id)
            ).scalar_one()
        return ApiKeyRecord(int(key_id), name, role, key_hash, now, False, authority)

    def _keys(self, *conds: Any) -> list[ApiKeyRecord]:
        cols = (ApiKey.id, ApiKey.name, ApiKey.role, ApiKey.key_hash, ApiKey.created_at)
        with self._tx() as conn:
            rows = conn.execute(
                select(*cols, ApiKey.revoked, ApiKey.authority).where(*conds).order_by(ApiKey.id)
            )
            return [
                ApiKeyRecord(*r[:5], revoked=bool(r.revoked), authority=r.authority) for r in rows
            ]

    def find_api_key(self, key_hash: str) -> ApiKeyRecord | None:
        """Look up a key by its hash."""
        found = self._keys(ApiKey.key_hash == key_hash)
        return found[0] if found else None

    def list_api_keys(self) -> list[ApiKeyRecord]:
        """Every stored key (hashes only), oldest first."""
        return self._keys()

    def revoke_api_key(self, key_id: int) -> bool:
        """Revoke a key; False if there is no such key. Revoking the last active admin key
        is a ConflictError: two admins revoking each other at once leave one, not none."""
        active_admins = select(ApiKey.id).where(ApiKey.role == "admin", ApiKey.revoked.is_(False))
        with self._tx() as conn:
            if self._pg:
                # lock every active admin row, in id order: a concurrent revocation waits
                # here and then sees this one's result
                conn.execute(active_admins.order_by(ApiKey.id).with_for_update()).all()
            else:
                # SQLite: take the write lock first (busy_timeout waits for another writer)
                conn.execute(
                    update(ApiKey).where(ApiKey.id == key_id).values(revoked=ApiKey.revoked)
                )
            target = conn.execute(
                select(ApiKey.role, ApiKey.revoked).where(ApiKey.id == key_id)
            ).first()
            if target is None:
                return False
            if target.role == "admin" and not target.revoked:
                others = conn.execute(
                    select(func.count()).select_from(
                        active_admins.where(ApiKey.id != key_id).subquery()
                    )
                ).scalar()
                if not others:
                    raise ConflictError("that key is the last admin key; create another first")
            conn.execute(update(ApiKey).where(ApiKey.id == key_id).values(revoked=True))
            return True

    def save_audit(self, audit: dict[str, Any], scope: Scope) -> str:
        """Store a ballast audit (kept at least five years) as ``scope``'s; returns its id."""
        audit_id = uuid.uuid4().hex
        row = {"id": audit_id, "created_at": time.time(), "document": audit}
        with self._tx() as conn:
            conn.execute(insert(BallastAudit).values(**row, authority=scope.authority))
        return audit_id

    def get_audit(self, audit_id: str, scope: Scope) -> dict[str, Any] | None:
        """One stored ballast audit, as it was saved; None when absent or outside
        ``scope`` (the authority of the key that made it)."""
        mine = in_scope(BallastAudit.authority, scope)
        with self._tx() as conn:
            doc = conn.execute(
                select(BallastAudit.document).where(BallastAudit.id == audit_id, *mine)
            ).scalar()
        return None if doc is None else dict(doc)

    def purge_audits(self, older_than: float) -> int:
        """Delete audits created before ``older_than`` (Unix time), clamped so nothing
        younger than five years (and a day, for clock skew) is ever deleted; a database
        trigger refuses such deletes too. Returns how many were deleted."""
        cutoff = min(older_than, time.time() - AUDIT_RETENTION_S - 86_400.0)
        with self._tx() as conn:
            res = conn.execute(delete(BallastAudit).where(BallastAudit.created_at < cutoff))
            return int(res.rowcount)
