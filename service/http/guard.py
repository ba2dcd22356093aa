"""The request guard, a pure ASGI middleware in front of every route.

A body is the one thing a stranger can make the server hold, so no body is read before
its sender is known: a request that carries one needs a valid ``X-API-Key`` first
(roles are still checked by the routes). Bodies are then read in chunks and refused with
a 413 the moment they pass ``max_upload_bytes``, chunked uploads included, and refused
with a 422 if they hold a NUL. Every response says ``X-Content-Type-Options: nosniff``.
Before all of that, the request rates of its key and address (``rate_limit.py``) are
checked: a client over either gets a 429 that costs no thread, no store read, no body.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vigia.service.errors import AuthenticationError, StoreUnavailableError, TooManyRequestsError
from vigia.service.http.deps import find_key
from vigia.service.http.problems import error_problem, problem, safe_path
from vigia.service.http.rate_limit import RateLimits

log = logging.getLogger("vigia.api")

_NUL_BODY = (b"\x00", b"\\u0000")
_NOSNIFF = (b"x-content-type-options", b"nosniff")


class _Refused(Exception):
    """A request the guard answers itself."""

    def __init__(self, status: int, code: str, detail: str, *, close: bool = False) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail, self.close = status, code, detail, close


class _Disconnected(Exception):
    """The client went away before its body was complete."""


class RequestGuard:
    """Authenticate before any body is read, cap bodies in bytes, refuse NULs, add
    ``nosniff`` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_nosniff(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() != _NOSNIFF[0]]
                message = {**message, "headers": [*headers, _NOSNIFF]}
            await send(message)

        try:
            _check_rates(scope)
            receive = await self._admit(scope, receive)
        except _Disconnected:
            log.info("client closed the connection during its upload to %s", safe_path(scope))
            return
        except _Refused as refused:
            response = problem(refused.status, refused.code, refused.detail, scope["path"])
            close = refused.close
        except TooManyRequestsError as exc:
            response = error_problem(exc, scope["path"])
            close = _has_body(Headers(scope=scope))
        else:
            await self.app(scope, receive, send_nosniff)
            return
        if close:  # the rest of the body is never read: end the connection
            response.headers["Connection"] = "close"
        await response(scope, receive, send_nosniff)

    async def _admit(self, scope: Scope, receive: Receive) -> Receive:
        """The ``receive`` the app should use, or an exception saying why not."""
        query: bytes = scope.get("query_string", b"")
        if "\x00" in scope["path"] or b"%00" in query:
            raise _Refused(
                422, "invalid-request", "NUL characters are not allowed in the path or query"
            )
        headers = Headers(scope=scope)
        if not _has_body(headers):
            return receive
        declared = headers.get("content-length")
        await self._authenticate(scope, headers)
        limit: int = scope["app"].state.settings.api.max_upload_bytes
        if declared is not None and (not declared.strip().isdigit() or int(declared) > limit):
            raise _Refused(
                413, "payload-too-large", f"the body is {declared} bytes; the limit is {limit}",
                close=True,
            )  # fmt: skip
        body = await _read_capped(receive, limit)
        if any(token in body for token in _NUL_BODY):
            raise _Refused(422, "invalid-request", "NUL characters are not allowed in the body")
        return _replay(body, receive)

    async def _authenticate(self, scope: Scope, headers: Headers) -> None:
        key = headers.get("x-api-key")
        if not key:
            raise _Refused(401, "unauthenticated", "missing X-API-Key header", close=True)
        try:
            record = await run_in_threadpool(find_key, scope["app"].state, key)
        except StoreUnavailableError:
            raise _Refused(
                503, "store-unavailable", "the database does not answer; try again shortly",
                close=True,
            ) from None  # fmt: skip
        except AuthenticationError as exc:
            raise _Refused(401, "unauthenticated", str(exc), close=True) from None
        if record is None:
            raise _Refused(401, "unauthenticated", "unknown or revoked API key", close=True)


def _check_rates(scope: Scope) -> None:
    """Spend a token of the request's key and address, or raise TooManyRequestsError."""
    limits: RateLimits | None = getattr(scope["app"].state, "rate_limits", None)
    if limits is not None:
        client = scope.get("client")
        limits.check(scope["path"], client[0] if client else None, dict(scope["headers"]))


def _has_body(headers: Headers) -> bool:
    """Whether a request carries a body (chunked, or a length other than 0)."""
    declared = headers.get("content-length")
    return "transfer-encoding" in headers or not (declared is None or declared.strip() == "0")


async def _read_capped(receive: Receive, limit: int) -> bytes:
    """The whole body, chunk by chunk, refusing it as soon as it passes ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Disconnected
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _Refused(
                413, "payload-too-large", f"the body is over {limit} bytes, the limit", close=True
            )
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body already read, then waits as the server's
    own would (for a disconnect)."""
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        message: dict[str, Any] = dict(await receive())
        return message

    return replay
