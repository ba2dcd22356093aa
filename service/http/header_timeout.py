"""Deadlines for a request's headers and body, which uvicorn's h11 server does not have.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) but waits as long
as the client likes for the headers of a request once a byte of them has arrived, and
from a new connection that sends nothing at all: a thousand clients trickling partial
headers hold a thousand connections (and file descriptors) for ever. This protocol
gives each request cycle ``header_timeout_s`` from the moment the connection opens or
the previous response ends until its headers are complete; a connection that misses it
is closed. A deadline, not an idle timer: trickling a byte a second does not extend it.

Bodies have their own: ``body_timeout_s`` from the end of the headers to the end of the
body. Without it a client with a valid key that declared a ``Content-Length`` and then
trickled the body, or sent none of it, held its connection and a task of the app (the
request guard waiting for the body) for ever: 9,000 of them on one viewer key were all
still open a minute later. Event streams and other bodiless requests are not concerned.

And answers: a client that reads none of what it is sent for ``send_timeout_s`` while the
server has more for it (over the transport's 64 kB high-water mark) is cut off. uvicorn
then waits for the client to read, as long as it likes, with no timer running: sockets
pipelining requests for large answers and reading none held their connection, its task
and a buffered answer each for ever. An idle timer, not a deadline: a slow reader that
makes progress is never cut.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's headers and body."""

    header_timeout_s = 10.0
    body_timeout_s = 60.0
    send_timeout_s = 60.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._send_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._expired)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _disarm_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _disarm_send(self) -> None:
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None

    def _expired(self) -> None:
        self._header_timer = self._body_timer = self._send_timer = None
        # close() first sends what is buffered, which never happens if the client reads
        # nothing (pipelined responses left unread): then the socket is dropped at once
        if self.transport.get_write_buffer_size():
            self.transport.abort()
        elif not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_body()
        self._disarm_send()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._send_timer is None:
            self._send_timer = self.loop.call_later(self.send_timeout_s, self._expired)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._disarm_send()

    def handle_events(self) -> None:
        super().handle_events()
        state = self.conn.their_state
        # past IDLE the request line and headers are in: the deadline is met
        if self._header_timer is not None and state is not h11.IDLE:
            self._disarm()
        # SEND_BODY: headers in, body not yet complete (h11 leaves it at the end of the
        # body, chunked or not); the body's deadline runs from the first time it is seen
        if state is h11.SEND_BODY:
            if self._body_timer is None:
                self._body_timer = self.loop.call_later(self.body_timeout_s, self._expired)
        else:
            self._disarm_body()

    def on_response_complete(self) -> None:
        # armed first: a pipelined request handled inside the call below disarms it
        self._arm()
        super().on_response_complete()


def protocol(
    header_timeout_s: float, body_timeout_s: float, send_timeout_s: float
) -> type[HeaderDeadlineProtocol]:
    """The protocol class for ``uvicorn.run(http=...)`` with these deadlines."""
    deadlines = {
        "header_timeout_s": header_timeout_s,
        "body_timeout_s": body_timeout_s,
        "send_timeout_s": send_timeout_s,
    }
    return type("HeaderDeadlineProtocol", (HeaderDeadlineProtocol,), deadlines)
