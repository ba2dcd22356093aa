"""A deadline for a request's headers, which uvicorn's h11 server does not have.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) but waits as long
as the client likes for the headers of a request once a byte of them has arrived, and
from a new connection that sends nothing at all: a thousand clients trickling partial
headers hold a thousand connections (and file descriptors) for ever. This protocol
gives each request cycle ``header_timeout_s`` from the moment the connection opens or
the previous response ends until its headers are complete; a connection that misses it
is closed. A deadline, not an idle timer: trickling a byte a second does not extend it.
Bodies are not concerned (uploads are bounded by their own size limits).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's headers."""

    header_timeout_s = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._expired)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _expired(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        # past IDLE the request line and headers are in: the deadline is met
        if self._header_timer is not None and self.conn.their_state is not h11.IDLE:
            self._disarm()

    def on_response_complete(self) -> None:
        # armed first: a pipelined request handled inside the call below disarms it
        self._arm()
        super().on_response_complete()


def protocol(header_timeout_s: float) -> type[HeaderDeadlineProtocol]:
    """The protocol class for ``uvicorn.run(http=...)`` with this deadline."""
    return type(
        "HeaderDeadlineProtocol", (HeaderDeadlineProtocol,), {"header_timeout_s": header_timeout_s}
    )
