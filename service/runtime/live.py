"""Wakes live clients (SSE streams, the webhook dispatcher) when the store commits.

The store stays the source of truth: a woken client reads the event log after its last
id. The hub only shortens the wait, from a poll interval to the moment the writer's
transaction commits, and carries vessel positions (which are not in the event log) to
the streams that asked for them, within their bbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from vigia.ingest.records import Position
from vigia.service.db.events import LeadEvent
from vigia.service.db.live_store import LiveStore

BBox = tuple[float, float, float, float]
#: positions held for one slow stream before the oldest are dropped
_POSITION_QUEUE = 10_000


class EventFilter:
    """Which lead events a subscriber wants (None: any)."""

    def __init__(
        self,
        rule: str | None = None,
        zone_id: str | None = None,
        authority: str | None = None,
        min_priority: int = 0,
        types: frozenset[str] | None = None,
    ) -> None:
        self.rule, self.zone_id, self.authority = rule, zone_id, authority
        self.min_priority, self.types = min_priority, types

    def __call__(self, e: LeadEvent) -> bool:
        return (
            (self.types is None or e.type in self.types)
            and (self.rule is None or e.rule == self.rule)
            and (self.zone_id is None or e.zone_id == self.zone_id)
            and (self.authority is None or e.authority == self.authority)
            and e.priority >= self.min_priority
        )


def sse_frame(data: str, event: str, event_id: int | None = None) -> bytes:
    """One Server-Sent Event, encoded once and sent as is to every stream that wants it
    (``data`` is compact JSON: it holds no line break)."""
    head = "" if event_id is None else f"id: {event_id}\r\n"
    return f"{head}event: {event}\r\ndata: {data}\r\n\r\n".encode()


class Subscription:
    """One asyncio consumer: an event to await and, if asked for, a bounded queue of
    position frames (oldest dropped when a slow client falls behind; ``dropped`` counts
    them).

    Positions wake the consumer at most once per ``positions_interval_s`` (see
    :meth:`hold_positions`): a map redrawn a few times a second shows the same traffic,
    and a write per commit to every positions stream took the event loop from requests.
    Lead events wake it at once, whatever the interval.
    """

    def __init__(
        self, hub: LiveHub, loop: asyncio.AbstractEventLoop, bbox: BBox | None, size: int
    ) -> None:
        self._hub = hub
        self._loop = loop
        self.bbox = bbox
        self.wake = asyncio.Event()
        self.positions: deque[bytes] = deque(maxlen=size)
        self.dropped = 0
        self._hold_until = 0.0  # loop time before which positions do not wake us
        self._timer: asyncio.TimerHandle | None = None

    def hold_positions(self, seconds: float) -> None:
        """Positions received in the next ``seconds`` wait for its end to wake us."""
        self._hold_until = self._loop.time() + seconds

    def _on_positions(self, batch: list[bytes]) -> None:  # on the loop
        overflow = len(self.positions) + len(batch) - (self.positions.maxlen or 0)
        self.dropped += max(0, overflow)
        self.positions.extend(batch)
        if self._loop.time() >= self._hold_until:
            self.wake.set()
        elif self._timer is None:
            self._timer = self._loop.call_at(self._hold_until, self._release)

    def _release(self) -> None:
        self._timer = None
        self.wake.set()

    async def wait(self, timeout: float) -> None:
        """Until the store has news for us, or ``timeout`` seconds."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wake.wait(), timeout)
        self.wake.clear()

    def close(self) -> None:
        """Stop receiving wake-ups."""
        if self._timer is not None:
            self._timer.cancel()
        self._hub._drop(self)


class LiveHub:
    """Fans the store's commit notifications out to subscribers on event loops."""

    def __init__(self, store: LiveStore) -> None:
        self._lock = threading.Lock()
        self._subs: list[Subscription] = []
        self._threads: list[Callable[[int], None]] = []
        self._removers = [
            store.add_event_listener(self._on_events),
            store.add_position_listener(self._on_positions),
        ]

    def subscribe(self, bbox: BBox | None = None, *, positions: bool = False) -> Subscription:
        """A subscription for the running event loop; ``positions`` with ``bbox`` asks
        for vessel positions as well."""
        size = _POSITION_QUEUE if positions else 0
        sub = Subscription(self, asyncio.get_running_loop(), bbox, size)
        with self._lock:
            self._subs.append(sub)
        return sub

    def on_events_thread(self, callback: Callable[[int], None]) -> None:
        """Also call ``callback(last_id)`` (from the writer's thread) on new events."""
        with self._lock:
            self._threads.append(callback)

    def _drop(self, sub: Subscription) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._subs.remove(sub)

    def _on_events(self, last_id: int) -> None:
        with self._lock:
            subs, threads = list(self._subs), list(self._threads)
        # thread callbacks first: the shared feed marks itself stale before any stream
        # it serves wakes up and asks it for news
        for cb in threads:
            cb(last_id)
        for loop, mine in _by_loop(subs).items():
            with contextlib.suppress(RuntimeError):  # its loop has closed
                loop.call_soon_threadsafe(_wake_all, mine)

    def _on_positions(self, batch: Sequence[Position]) -> None:
        with self._lock:
            subs = [s for s in self._subs if s.positions.maxlen]
        if not subs:
            return
        # serialised once here, on the writer's thread, for every stream that wants them
        frames = {id(p): sse_frame(_compact(position_json(p)), "vessel.position") for p in batch}
        # one hand-over per event loop, not one per stream: each call_soon_threadsafe
        # also writes to the loop's self-pipe
        for loop, mine in _by_loop(subs).items():
            deliveries = []
            for sub in mine:
                hits = _inside(batch, sub.bbox)
                if hits:
                    deliveries.append((sub, [frames[id(p)] for p in hits]))
            if deliveries:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(_deliver, deliveries)

    def clients(self) -> tuple[int, int]:
        """Streams open now, and how many of them take positions (for /metrics)."""
        with self._lock:
            return len(self._subs), sum(1 for s in self._subs if s.positions.maxlen)

    def close(self) -> None:
        """Detach from the store."""
        for remove in self._removers:
            remove()


def _by_loop(subs: list[Subscription]) -> dict[asyncio.AbstractEventLoop, list[Subscription]]:
    out: dict[asyncio.AbstractEventLoop, list[Subscription]] = {}
    for sub in subs:
        out.setdefault(sub._loop, []).append(sub)
    return out


def _wake_all(subs: list[Subscription]) -> None:  # on the loop
    for sub in subs:
        sub.wake.set()


def _deliver(deliveries: list[tuple[Subscription, list[bytes]]]) -> None:  # on the loop
    for sub, frames in deliveries:
        sub._on_positions(frames)


def _inside(batch: Sequence[Position], bbox: BBox | None) -> list[Position]:
    if bbox is None:
        return list(batch)
    x0, y0, x1, y1 = bbox
    out: list[Position] = []
    for p in batch:
        if p.lon is None or p.lat is None or not (y0 <= p.lat <= y1):
            continue
        # a bbox across the antimeridian has x0 > x1 (OGC API Part 1)
        if (x0 <= p.lon <= x1) if x0 <= x1 else (p.lon >= x0 or p.lon <= x1):
            out.append(p)
    return out


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


def position_json(p: Position) -> dict[str, Any]:
    """The ``vessel.position`` event data."""
    from vigia.ingest.records import iso_utc

    return {
        "mmsi": p.mmsi,
        "t": iso_utc(p.t),
        "lon": p.lon,
        "lat": p.lat,
        "sog": p.sog,
        "cog": p.cog,
        "heading": p.heading,
        "nav_status": p.nav_status,
    }
