"""Short-lived, read-only stream tokens: what a browser's ``EventSource`` authenticates
with, since it can send neither a header nor a body (issue 22).

A token is ``<payload>.<signature>``, both base64url: the payload names the key that
asked for it (id, name, authority) and when it expires; the signature is an HMAC-SHA256
of the payload under the service's secret (``VIGIA_AUTH_STREAM_TOKEN_SECRET``, else one
drawn at start). Nothing is stored: the caller is rebuilt from the token as an
``ApiKeyRecord`` with the asking key's authority, so every authority rule that reads the
caller applies to a token exactly as to the key. The role is always ``viewer``: a token
only opens the stream (``TOKEN_PATHS``), it never moves or writes anything.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

from vigia.service.db.protocol import ApiKeyRecord
from vigia.service.errors import AuthenticationError

#: the routes a stream token opens (route templates, as FastAPI matched them)
TOKEN_PATHS = frozenset({"/leads/stream"})
#: what the token is for: a token of another use (a later kind) is never taken as this one
USE = "leads.stream"
VERSION = 1


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(secret: bytes, payload: str) -> str:
    return _b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest())


@dataclass(frozen=True)
class StreamToken:
    """An issued token and the instant (Unix s) it stops opening streams."""

    token: str
    expires_at: float


def issue(caller: ApiKeyRecord, secret: bytes, ttl_s: float, now: float) -> StreamToken:
    """A token for ``caller`` valid ``ttl_s`` from ``now``, carrying its authority."""
    expires = int(now + ttl_s)
    claims = {
        "v": VERSION,
        "use": USE,
        "kid": caller.id,
        "name": caller.name,
        "authority": caller.authority,
        "iat": int(now),
        "exp": expires,
    }
    payload = _b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
    return StreamToken(f"{payload}.{_sign(secret, payload)}", float(expires))


def verify(token: str, secret: bytes, now: float) -> ApiKeyRecord:
    """The caller a genuine, unexpired token stands for; AuthenticationError otherwise."""
    payload, dot, signature = token.partition(".")
    if not dot or not hmac.compare_digest(signature, _sign(secret, payload)):
        raise AuthenticationError("invalid stream token")
    try:
        claims: dict[str, Any] = json.loads(_unb64(payload))
    except (binascii.Error, ValueError) as err:  # signed by us, so only a bug gets here
        raise AuthenticationError("invalid stream token") from err
    if claims.get("v") != VERSION or claims.get("use") != USE:
        raise AuthenticationError("invalid stream token")
    if now >= float(claims["exp"]):
        raise AuthenticationError("stream token expired; ask POST /leads/stream/token again")
    return ApiKeyRecord(
        id=int(claims["kid"]),
        name=str(claims["name"]),
        role="viewer",
        key_hash="",
        created_at=float(claims["iat"]),
        authority=claims["authority"],
    )
