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
#: threads reading backlog pages at once (the API's own threads stay free for requests)
_BACKLOG_THREADS = 2


@dataclass(frozen=True, slots=True)
class Frame:
    """A stored lead event and its SSE frame (``id``, ``event`` and compact JSON data)."""

    event: LeadEvent
    data: bytes


def frame(e: LeadEvent) -> Frame:
    """Encode one event for the wire."""
    return Frame(e, sse_frame(json.dumps(e.data, separators=(",", ":")), e.type, e.id))


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
        # backlog pages handed out per second, all readers together (0: no limit): a
        # replay is bulk work and must not take the event loop from live requests
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
        page = self._pages.get(key)
        if page is None:
            page = self._pages[key] = asyncio.get_running_loop().create_task(
                anyio.to_thread.run_sync(self._read_page, cursor, limit, limiter=self._limiter)
            )
            while len(self._pages) > _PAGES:
                self._pages.pop(next(iter(self._pages)))  # the oldest page asked for
        try:
            frames = await asyncio.shield(page)
        except BaseException:
            if page.done():
                self._pages.pop(key, None)  # a failed read is not kept
            raise
        if self._page_gap:
            async with self._pace:  # readers queue here, each page its turn
                loop = asyncio.get_running_loop()
                wait = self._next_page - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._next_page = max(loop.time(), self._next_page) + self._page_gap
        return frames

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
