"""The shared feed behind every SSE stream (issue 21 item 8): one read of the store and
one encoding per event, whatever the number of streams; positions encoded once for all
the streams that take them; a stream far behind served from the store, in order."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.storage.builders import T0, lead, pos
from vigia.service.db.protocol import EVERY_AUTHORITY, Scope
from vigia.service.db.repository import SqlRepository
from vigia.service.runtime.live import LiveHub
from vigia.service.runtime.live_feed import SharedFeed

STREAMS = 50


class Counting:
    """The store, counting reads of the event log."""

    def __init__(self, store: SqlRepository) -> None:
        self.store, self.reads, self.pages = store, 0, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def events_after(self, after_id: int, limit: int = 500, *, scope: Scope) -> Any:
        self.reads += 1
        self.pages += limit != 500  # a backlog page (the window reads 500 at a time)
        return self.store.events_after(after_id, limit, scope=scope)


def _parse(frame: bytes) -> tuple[str | None, str, dict[str, Any]]:
    """An SSE frame read as the format says (``field: value`` lines, CRLF ends)."""
    fields = dict(line.split(": ", 1) for line in frame.decode().strip().split("\r\n"))
    return fields.get("id"), fields["event"], json.loads(fields["data"])


def test_many_streams_share_one_read_and_one_encoding(store: SqlRepository) -> None:
    counting = Counting(store)
    hub = LiveHub(store)
    feed = SharedFeed(counting, hub, poll_s=60.0)  # type: ignore[arg-type]

    async def run() -> list[list[Any]]:
        assert await feed.after(0, 500) == []  # the feed starts at the store's head
        store.upsert_leads([lead(f"L-{i}") for i in range(5)])  # wakes the feed
        reads = counting.reads
        pages = await asyncio.gather(*(feed.after(0, 500) for _ in range(STREAMS)))
        assert counting.reads == reads + 1  # one read of the store for all 50 streams
        return pages

    pages = asyncio.run(run())
    hub.close()
    first = pages[0]
    stored = store.events_after(0, 500, scope=EVERY_AUTHORITY)
    assert [_parse(f.data) for f in first] == [
        (str(e.id), e.type, json.loads(json.dumps(e.data))) for e in stored
    ]
    # every stream holds the very same encoded frames: encoded once, not per stream
    assert all(all(a.data is b.data for a, b in zip(p, first, strict=True)) for p in pages)


def test_a_stream_far_behind_reads_the_store_in_order(store: SqlRepository) -> None:
    store.upsert_leads([lead(f"L-{i:02d}") for i in range(12)])
    hub = LiveHub(store)
    feed = SharedFeed(store, hub, poll_s=0.0, window=3)

    async def replay() -> list[int]:
        await feed.after(0, 5)
        store.upsert_leads([lead(f"N-{i:02d}") for i in range(7)])  # more than the window
        ids, cursor = [], 0
        while page := await feed.after(cursor, 5):
            assert len(page) <= 5
            ids += [f.event.id for f in page]
            cursor = page[-1].event.id
        return ids

    ids = asyncio.run(replay())
    hub.close()
    assert ids == [e.id for e in store.events_after(0, 10_000, scope=EVERY_AUTHORITY)]


def test_positions_are_encoded_once_for_every_stream(store: SqlRepository) -> None:
    hub = LiveHub(store)

    async def run() -> list[list[bytes]]:
        subs = [hub.subscribe((-41.0, -23.0, -39.0, -21.0), positions=True) for _ in range(3)]
        outside = hub.subscribe((10.0, 10.0, 11.0, 11.0), positions=True)
        store.add_positions([pos(710_000_001, T0 + i, -40.0, -22.0) for i in range(4)])
        await asyncio.sleep(0.1)  # the hub hands them over through the loop
        assert not outside.positions
        return [list(s.positions) for s in subs]

    queues = asyncio.run(run())
    hub.close()
    assert [len(q) for q in queues] == [4, 4, 4]
    assert all(a is b for q in queues[1:] for a, b in zip(q, queues[0], strict=True))
    _, event, data = _parse(queues[0][0])
    assert event == "vessel.position" and data["mmsi"] == 710_000_001 and data["lon"] == -40.0


def test_positions_wake_a_stream_at_most_once_an_interval_lead_events_at_once(
    store: SqlRepository,
) -> None:
    """A map stream that just sent its positions is not woken by the next ones until its
    interval has passed (they wait in its queue and go in one write); a lead event still
    wakes it at once."""
    hub = LiveHub(store)

    async def run() -> tuple[bool, bool, int, float, bool]:
        loop = asyncio.get_running_loop()
        sub = hub.subscribe((-41.0, -23.0, -39.0, -21.0), positions=True)
        sub.hold_positions(0.5)  # as the stream does after a write
        t0 = loop.time()
        for i in range(5):  # five commits 20 ms apart
            store.add_positions([pos(710_000_001, T0 + i, -40.0, -22.0)])
            await asyncio.sleep(0.02)
        held = not sub.wake.is_set()  # all five queued, none woke the stream
        queued = len(sub.positions)
        await sub.wait(2.0)  # the hold's end wakes it
        waited = loop.time() - t0
        # a lead event during a hold wakes it without waiting
        sub.hold_positions(10.0)
        store.upsert_leads([lead("L-now")])
        t1 = loop.time()
        await sub.wait(2.0)
        lead_at_once = loop.time() - t1 < 0.5
        # and with no hold (interval passed), a position wakes it at once
        sub.hold_positions(0.0)
        store.add_positions([pos(710_000_001, T0 + 9, -40.0, -22.0)])
        await asyncio.sleep(0.05)
        woke_now = sub.wake.is_set()
        sub.close()
        return held, lead_at_once, queued, waited, woke_now

    held, lead_at_once, queued, waited, woke_now = asyncio.run(run())
    hub.close()
    assert held and queued == 5
    assert 0.45 <= waited < 1.0  # the end of the 0.5 s hold, not the 2 s timeout
    assert lead_at_once and woke_now


def _catch_up(feed: SharedFeed, readers: int) -> tuple[float, list[list[int]]]:
    """``readers`` streams replaying the log from 0 at once, 5 events a page: the wall
    time until the last has it all, and the ids each got."""

    async def one(k: int) -> list[int]:
        await asyncio.sleep(0.02 * k)  # streams connect a little apart, as over a network
        ids, cursor = [], 0
        while page := await feed.after(cursor, 5):
            ids += [f.event.id for f in page]
            cursor = page[-1].event.id
        return ids

    async def run() -> tuple[float, list[list[int]]]:
        await feed.after(0, 5)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        got = await asyncio.gather(*(one(k) for k in range(readers)))
        return loop.time() - t0, list(got)

    return asyncio.run(run())


def test_readers_catching_up_together_share_the_replays_pace(store: SqlRepository) -> None:
    """The pace bounds reads of the store (the work that competes with live requests),
    not pages handed out: ten dashboards reconnecting from one old id after a restart
    catch up as fast as one, where each used to get a tenth of the pace (137 s each for
    133,000 events against 14 s alone, benchmarks/sse_load.py --catchup)."""
    store.upsert_leads([lead(f"L-{i:02d}") for i in range(20)])  # 4 pages of 5
    hub = LiveHub(store)
    counting = Counting(store)

    # 10 store reads a second, and a window too small to hold the log: the backlog path
    def feed() -> SharedFeed:
        return SharedFeed(counting, hub, poll_s=0.0, window=1, replay_pages_per_s=10.0)  # type: ignore[arg-type]

    alone, (ids,) = _catch_up(feed(), 1)
    pages = counting.pages
    together, got = _catch_up(feed(), 10)  # a feed of its own: no page read before
    hub.close()
    stored = [e.id for e in store.events_after(0, 10_000, scope=EVERY_AUTHORITY)]
    assert ids == stored and all(g == stored for g in got)
    # a page read is shared: ten readers read the store's backlog as often as one (4
    # pages of 5; the window, 1 event, answers the last)
    assert pages == 4 and counting.pages - pages == 4, (pages, counting.pages)
    # by hand: 5 pages (the last one empty) at 10 a second, about 0.4-0.5 s alone; ten
    # readers in turn would take ten times that (the last starts 0.18 s after the first)
    assert 0.3 <= alone < 1.0 and together < 2 * alone + 0.4, (alone, together)


def test_a_frame_keeps_the_bytes_not_the_decoded_lead(store: SqlRepository) -> None:
    """What a backlog page holds in memory is the wire bytes and the routing fields:
    the decoded lead beside them was five times their size."""
    store.upsert_leads([lead("L-1")])
    hub = LiveHub(store)
    feed = SharedFeed(store, hub, poll_s=0.0, window=1)

    async def run() -> list[Any]:
        await feed.after(0, 5)
        return await feed.after(0, 5)

    (f,) = asyncio.run(run())
    hub.close()
    (e,) = store.events_after(0, 5, scope=EVERY_AUTHORITY)
    assert f.event.data == {} and (f.event.id, f.event.rule, f.event.authority) == (
        e.id, e.rule, e.authority
    )  # fmt: skip
    assert _parse(f.data) == (str(e.id), e.type, json.loads(json.dumps(e.data)))
