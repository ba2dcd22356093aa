"""Lead events read from the store once, and serialised once, for every live stream.

Each SSE stream used to read the event log itself whenever the store committed and to
serialise every event again: 200 streams made 200 queries and 200 encodings per commit.
The feed keeps a window of the newest events, each with its SSE frame encoded once;
streams that are caught up take their events from it, and a single read of the store
(one at a time, whoever asks first) refreshes it. A stream far behind (a reconnect with
an old ``Last-Event-ID``) is served from the store in pages, outside the window.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections import deque
from dataclasses import dataclass
from functools import partial

import anyio

from vigia.service.db.events import LeadEvent
from vigia.service.db.live_store import LiveStore
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.runtime.live import LiveHub, sse_frame

#: events kept in the shared window (older ones are read from the store again)
WINDOW = 5_000
#: backlog pages kept for readers replaying the same stretch (500 events each)
_PAGES = 64
#: a backlog page no reader has asked for in this long is let go (a reader at the
#: replay's pace asks for the next page within a second)
_PAGE_IDLE_S = 10.0
#: threads reading backlog pages at once (the API's own threads stay free for requests)
_BACKLOG_THREADS = 2


@dataclass(frozen=True, slots=True)
class Frame:
    """A stored lead event's routing fields (its ``data`` emptied) and its SSE frame
    (``id``, ``event`` and compact JSON data)."""

    event: LeadEvent
    data: bytes


def frame(e: LeadEvent) -> Frame:
    """Encode one event for the wire. The decoded lead is not kept beside its bytes:
    streams route on the event's fields and send the bytes, and the decoded JSON was
    five times the frame's size (7.9 kB an event held, 64 pages of 500 held 241 MiB)."""
    data = sse_frame(json.dumps(e.data, separators=(",", ":")), e.type, e.id)
    return Frame(dataclasses.replace(e, data={}), data)


class SharedFeed:
    """The newest events of the store, shared by every stream of one event loop."""

    def __init__(
        self,
        store: LiveStore,
        hub: LiveHub,
        poll_s: float,
        window: int = WINDOW,
        replay_pages_per_s: float = 0.0,
    ) -> None:
        self._store = store
        self._poll_s = poll_s
        # backlog pages read from the store per second, all readers together (0: no
        # limit): a replay is bulk work and must not take the interpreter from live
        # requests. Readers sharing a page share its turn
        self._page_gap = 1.0 / replay_pages_per_s if replay_pages_per_s > 0 else 0.0
        self._next_page = 0.0
        self._pace = asyncio.Lock()
        self._frames: deque[Frame] = deque(maxlen=window)
        # the window holds every stored event with base < id <= head
        self._base = self._head = -1
        self._news = True  # set from the writer's thread; a bool store is atomic
        self._read_at = 0.0
        self._refresh: asyncio.Task[None] | None = None
        self._pages: dict[tuple[int, int], asyncio.Task[list[Frame]]] = {}
        self._asked: dict[tuple[int, int], float] = {}  # when each page was last asked for
        self._limiter = anyio.CapacityLimiter(_BACKLOG_THREADS)
        hub.on_events_thread(self._on_events)

    def _on_events(self, _last_id: int) -> None:
        self._news = True

    async def after(self, cursor: int, limit: int) -> list[Frame]:
        """At most ``limit`` events with an id above ``cursor``, oldest first."""
        await self._fresh()
        if cursor < self._base:  # behind the window: a page from the store
            return await self._backlog(cursor, limit)
        out: list[Frame] = []
        # the window is short and ordered: walk from its newest end back to the cursor
        for f in reversed(self._frames):
            if f.event.id <= cursor:
                break
            out.append(f)
        out.reverse()
        return out[:limit]

    async def _backlog(self, cursor: int, limit: int) -> list[Frame]:
        """A page of old events. Read and encoded in a thread of the feed's own (few)
        threads, so replays neither hold the event loop nor take the threads that
        serve other requests; readers replaying from the same id (every dashboard
        reconnecting after a restart, or from 0) share one read of each page."""
        key = (cursor, limit)
        loop = asyncio.get_running_loop()
        page = self._pages.get(key)
        if page is None:
            # the read waits its turn inside the shared task: a reader that asks for the
            # same page meanwhile joins the wait instead of taking a turn of its own
            page = self._pages[key] = loop.create_task(self._paced_read(cursor, limit))
        self._asked[key] = loop.time()
        self._let_go(loop.time())
        try:
            return await asyncio.shield(page)
        except BaseException:
            if page.done():
                self._drop(key)  # a failed read is not kept
            raise

    async def _paced_read(self, cursor: int, limit: int) -> list[Frame]:
        await self._turn()
        return await anyio.to_thread.run_sync(self._read_page, cursor, limit, limiter=self._limiter)

    async def _turn(self) -> None:
        """Wait for the next store read of the backlog's pace (readers queue here)."""
        if not self._page_gap:
            return
        async with self._pace:
            loop = asyncio.get_running_loop()
            wait = self._next_page - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self._next_page = max(loop.time(), self._next_page) + self._page_gap

    def _let_go(self, now: float) -> None:
        """Keep at most ``_PAGES`` pages, none idle for ``_PAGE_IDLE_S``: a reader that
        has caught up leaves no backlog behind it."""
        for key in [k for k, at in self._asked.items() if now - at > _PAGE_IDLE_S]:
            self._drop(key)
        while len(self._pages) > _PAGES:
            self._drop(min(self._asked, key=self._asked.__getitem__))  # the least recent

    def _drop(self, key: tuple[int, int]) -> None:
        self._pages.pop(key, None)
        self._asked.pop(key, None)

    def _read_page(self, cursor: int, limit: int) -> list[Frame]:
        return [frame(e) for e in self._store.events_after(cursor, limit, scope=EVERY_AUTHORITY)]

    async def _fresh(self) -> None:
        """Read what the store committed since the last read, once for all streams: on
        a wake-up from a writer of this process, or after ``poll_s`` for the others."""
        if not self._news and time.monotonic() - self._read_at < self._poll_s:
            return
        if self._refresh is None or self._refresh.done():
            self._refresh = asyncio.get_running_loop().create_task(self._read())
        # shielded: a stream that goes away does not cancel the read the others await
        await asyncio.shield(self._refresh)

    async def _read(self) -> None:
        self._news = False
        self._read_at = time.monotonic()
        try:
            await self._read_news()
        except BaseException:
            self._news = True  # the store failed: the next ask tries again
            raise

    async def _read_news(self) -> None:
        if self._head < 0:
            head = await anyio.to_thread.run_sync(self._store.last_event_id)
            self._base = self._head = head
            return
        page = 500
        for _ in range(max(1, (self._frames.maxlen or page) // page)):
            read = partial(self._store.events_after, self._head, page, scope=EVERY_AUTHORITY)
            events = await anyio.to_thread.run_sync(read)
            for e in events:
                if len(self._frames) == self._frames.maxlen:
                    self._base = self._frames[0].event.id
                self._frames.append(frame(e))
                self._head = e.id
            if len(events) < page:
                return
        self._news = True  # a burst larger than the window: read on at the next ask
