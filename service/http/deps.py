"""FastAPI dependencies shared by every router: the repository and role checks.

The app (``service/app.py``) puts the repository on ``app.state.repository``; routers
never reach for globals.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from fastapi import Header, Request

from vigia.service.db.protocol import ApiKeyRecord, Repository
from vigia.service.errors import AuthenticationError, PermissionDeniedError

ROLES: dict[str, int] = {"viewer": 1, "inspector": 2, "admin": 3}


def hash_key(key: str) -> str:
    """The stored form of an API key (SHA-256 hex; keys are long random tokens)."""
    return hashlib.sha256(key.encode()).hexdigest()


def get_repository(request: Request) -> Repository:
    """The app's repository."""
    repo: Repository = request.app.state.repository
    return repo


def require_role(role: str) -> Callable[..., ApiKeyRecord]:
    """A dependency that admits a request whose key (``X-API-Key``, or ``Authorization:
    Bearer <key>`` for GIS clients that cannot set other headers) has at least ``role``."""
    needed = ROLES[role]

    def dependency(
        request: Request,
        x_api_key: str | None = Header(default=None, alias="X-API-Key"),
        authorization: str | None = Header(default=None, include_in_schema=False),
    ) -> ApiKeyRecord:
        if not x_api_key and authorization:
            scheme, _, token = authorization.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                x_api_key = token.strip()
        if not x_api_key:
            raise AuthenticationError("missing X-API-Key header (or Authorization: Bearer)")
        record = get_repository(request).find_api_key(hash_key(x_api_key))
        if record is None or record.revoked:
            raise AuthenticationError("unknown or revoked API key")
        if ROLES.get(record.role, 0) < needed:
            raise PermissionDeniedError(
                f"this route needs the {role} role; the key is {record.role}"
            )
        return record

    return dependency
