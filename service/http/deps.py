"""FastAPI dependencies shared by every router: the repository and role checks.

The app (``service/app.py``) puts the repository on ``app.state.repository``; routers
never reach for globals.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from typing import Any

from fastapi import Depends, Header, Request

from vigia.service.db.protocol import ApiKeyRecord, Repository, Scope
from vigia.service.errors import AuthenticationError, PermissionDeniedError, StoreUnavailableError
from vigia.service.http import stream_token

ROLES: dict[str, int] = {"viewer": 1, "inspector": 2, "admin": 3}


def hash_key(key: str) -> str:
    """The stored form of an API key (SHA-256 hex; keys are long random tokens)."""
    return hashlib.sha256(key.encode()).hexdigest()


def get_repository(request: Request) -> Repository:
    """The app's repository."""
    repo: Repository = request.app.state.repository
    return repo


class KeyCache:
    """The last record seen for each recently used key, consulted only while the store
    is down, so that ``/metrics`` and ``/healthz``-like routes still admit their callers
    when operators need them most. Bounded; a revocation drops the key at once."""

    def __init__(self, size: int = 1024) -> None:
        self._size = size
        self._records: OrderedDict[str, ApiKeyRecord] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, digest: str, record: ApiKeyRecord | None) -> None:
        """Keep what the store just said about a key (forget it if unknown or revoked)."""
        with self._lock:
            if record is None or record.revoked:
                self._records.pop(digest, None)
                return
            self._records[digest] = record
            self._records.move_to_end(digest)
            while len(self._records) > self._size:
                self._records.popitem(last=False)

    def recall(self, digest: str) -> ApiKeyRecord | None:
        """The last record seen for a key, if any."""
        with self._lock:
            return self._records.get(digest)

    def forget_id(self, key_id: int) -> None:
        """Drop a key (by id) after it is revoked."""
        with self._lock:
            for digest in [d for d, r in self._records.items() if r.id == key_id]:
                del self._records[digest]


def find_key(state: Any, key: str) -> ApiKeyRecord | None:
    """The active record of an API key, or None; while the store is down, the record last
    seen for it (a StoreUnavailableError if it was never seen)."""
    digest = hash_key(key)
    cache: KeyCache | None = getattr(state, "key_cache", None)
    try:
        record = state.repository.find_api_key(digest)
    except StoreUnavailableError:
        remembered = None if cache is None else cache.recall(digest)
        if remembered is None:
            raise
        return remembered
    if cache is not None:
        cache.remember(digest, record)
    return None if record is None or record.revoked else record


@cache
def require_role(role: str) -> Callable[..., ApiKeyRecord]:
    """A dependency that admits a request whose key (``X-API-Key``, or ``Authorization:
    Bearer <key>`` for GIS clients that cannot set other headers) has at least ``role``;
    on the stream alone, a stream token (``?token=``) stands for the key that asked for it.

    One dependency per role (cached): a route that asks for the same role at the router
    and in a parameter looks the key up once per request, as FastAPI runs an identical
    dependency once (the lead stream did two store reads for every connection)."""
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
        record: ApiKeyRecord | None
        if not x_api_key and _takes_token(request):
            record = token_caller(request, request.query_params["token"])
        elif not x_api_key:
            raise AuthenticationError("missing X-API-Key header (or Authorization: Bearer)")
        else:
            record = find_key(request.app.state, x_api_key)
        if record is None:
            raise AuthenticationError("unknown or revoked API key")
        if ROLES.get(record.role, 0) < needed:
            raise PermissionDeniedError(
                f"this route needs the {role} role; the key is {record.role}"
            )
        return record

    return dependency


def require_scope(role: str) -> Callable[..., Scope]:
    """A dependency giving the ``Scope`` of a caller whose key has at least ``role``: the
    key's authority, or every authority for an unlimited key. Routes hand it to the
    repository, whose lead, event, silence and watch-list methods require one, so the
    authority rule is applied in the store and no route can forget it."""
    check = require_role(role)

    # a default, not Annotated: the annotation is a string here (PEP 563) and ``check``
    # is local, so FastAPI could not resolve it
    def dependency(caller: ApiKeyRecord = Depends(check)) -> Scope:  # noqa: B008
        return Scope(caller.authority)

    return dependency


def _takes_token(request: Request) -> bool:
    """Whether this request may authenticate with ``?token=``: only a route of
    ``stream_token.TOKEN_PATHS`` (the stream), so a token never opens anything else."""
    route = request.scope.get("route")
    path = getattr(route, "path", None)
    return path in stream_token.TOKEN_PATHS and "token" in request.query_params


def token_caller(request: Request, token: str) -> ApiKeyRecord:
    """The caller a stream token stands for, if the key that asked for it is still active
    (a key revoked since gets nothing more, as it would with its header)."""
    state = request.app.state
    caller = stream_token.verify(token, state.stream_token_secret, time.time())
    if not any(k.id == caller.id and not k.revoked for k in state.repository.list_api_keys()):
        raise AuthenticationError("the key this stream token was issued to is revoked")
    return caller
