"""One partition held by an evaluation worker: consume, judge, store, checkpoint, ack.

The order of a checkpoint is what makes the outcome exactly once under at-least-once
delivery, and what keeps a worker that has lost the partition from writing anything:

1. positions go to the store (facts of the input, keyed by MMSI and time: writing them
   twice, or from a worker that is about to lose the partition, changes nothing);
2. the partition state (pipeline, last stream sequence, and the outbox: the leads,
   vessels and identity changes this checkpoint owes) replaces the previous one in the
   KV bucket, on the revision this worker last wrote: that write is the commit, and it
   fails if another worker has taken the partition meanwhile (a new holder rewrites the
   state the moment it takes the partition, so a stalled previous holder's commit is
   refused even before the new holder's first checkpoint);
3. the outbox goes to the store (lead ids are stable: an upsert twice changes nothing)
   and its leads to the lead subject (message id per lead version: the broker drops a
   republished copy);
4. the messages are acknowledged.

A crash before 2 replays the messages from the previous state: same input, same state,
so the same rows and the same leads. A crash between 2 and 3 leaves the outbox in the
committed state, and the next holder writes it before anything else. A crash between 3
and 4 redelivers messages the state already covers; their sequence says so and they are
acknowledged unread. Leads are never written before their commit: a worker paused past
its lease (a long GC, a stalled machine) used to store the leads of a state that was
then refused, and live expiry runs on wall time, so those leads were not the next
holder's.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from typing import Any

import nats
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.kv import KeyValue

from vigia.alerts.handover import closed_by_edit as close_for_edit
from vigia.alerts.identity.history import HistoryOut
from vigia.alerts.lead import Lead
from vigia.ingest.records import Position, StaticData
from vigia.service.db.protocol import Repository
from vigia.service.runtime.bus import state as bus_state
from vigia.service.runtime.bus.codec import Subjects, decode
from vigia.service.runtime.bus.publisher import consumer_names
from vigia.service.settings import BusSettings
from vigia.zones.evaluate import ZoneIndex

log = logging.getLogger("vigia.bus.worker")
_FETCH = 64  # bus messages per fetch (each holds up to a whole ingest batch)
_ACK_WAIT_S = 30.0
_LIVE_LAG_S = 300.0


class PartitionLost(Exception):
    """Another worker owns the partition now; drop everything not committed."""


def lead_msg_id(lead: Lead) -> str:
    """One id per version of a lead: a republished identical version is a duplicate."""
    last = lead.evidence[-1].t if lead.evidence else lead.closest_t
    key = f"{lead.id}|{lead.ended_at}|{len(lead.evidence)}|{last}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


class HeldPartition:
    """State and pending work of one partition while this worker holds it."""

    def __init__(
        self,
        partition: int,
        state: bus_state.PartitionState,
        state_rev: int | None,
        *,
        js: JetStreamContext,
        kv: KeyValue,
        repo: Repository,
        settings: BusSettings,
        counters: Counter[str],
        store_ok: Callable[[bool], None],
        latencies: deque[float] | None = None,
    ) -> None:
        self.partition = partition
        self.state = state
        self._rev = state_rev
        self._js = js
        self._kv = kv
        self._repo = repo
        self._settings = settings
        self._names = Subjects(settings.prefix)
        self._counters = counters
        self._store_ok = store_ok
        self._unacked: list[Msg] = []
        # ingest clock of each uncommitted message (for the read -> stored latency)
        self._walls: list[float] = []
        self.latencies: deque[float] = latencies if latencies is not None else deque(maxlen=1)
        self._positions: list[Position] = []
        self._vessels: set[int] = set()
        # identity changes handed out since the last checkpoint, stored with the vessels
        self._history = HistoryOut()
        state.pipeline.record_identity()
        self._leads: dict[str, Lead] = {}
        # open leads as last stored and published by this holder (see checkpoint)
        self._stored: dict[str, Lead] = {}
        self._dirty = False
        self._wall: float | None = None
        self._sub: Any = None
        self._durable = ""
        self.lag = 0
        self.stopping = False
        # a zone edit: the worker sets the new index, this partition switches between
        # two batches (its open episodes are closed as cut short by the edit)
        self.next_index: ZoneIndex | None = None

    def add_closed_for_edit(self, leads: list[Lead]) -> None:
        """Leads cut short by a zone edit, stored with the next checkpoint."""
        self._add_leads([close_for_edit(lead) for lead in leads])
        self._dirty = bool(leads) or self._dirty

    @property
    def key(self) -> str:
        return f"p{self.partition}"

    async def subscribe(self) -> None:
        """(Re)create the partition's durable consumer at the committed state's next
        sequence, then bind to it.

        The committed state, not the consumer's ack floor, says where this partition
        stands: messages the previous holder had fetched but not committed must come
        again, in order, before anything newer (waiting out their ack timeout instead
        would let newer ones through first and break the vessel's order).
        """
        stream = self._names.stream
        durable = self._names.durable(self.partition, self._rev or 0)
        # every earlier holder's consumer goes: one still fetching (paused past its
        # lease) then gets errors, never messages this holder's state must see. A
        # later holder's stays: this one may itself be the one woken from a pause
        for name in await consumer_names(self._js, stream):
            if self._names.is_older_durable_of(name, self.partition, self._rev or 0):
                with contextlib.suppress(nats.js.errors.NotFoundError):
                    await self._js.delete_consumer(stream, name)
        self._durable = durable
        await self._js.add_consumer(
            stream,
            ConsumerConfig(
                durable_name=durable,
                ack_policy=AckPolicy.EXPLICIT,
                deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
                opt_start_seq=self.state.seq + 1,
                ack_wait=_ACK_WAIT_S,
                max_ack_pending=self._settings.max_ack_pending,
                filter_subject=self._names.records(self.partition),
            ),
        )
        self._sub = await self._js.pull_subscribe_bind(durable, stream)

    async def abandon(self) -> None:
        """Taken over: this holder's consumer goes with it (left, it would keep the
        messages after its commit pending for no one)."""
        await self.unsubscribe()
        if self._durable:
            with contextlib.suppress(Exception):
                await self._js.delete_consumer(self._names.stream, self._durable)

    async def unsubscribe(self) -> None:
        if self._sub is not None:
            try:
                await self._sub.unsubscribe()
            except Exception:  # a broken connection already dropped it
                log.debug("unsubscribe p%d failed", self.partition, exc_info=True)
            self._sub = None

    async def run(self) -> None:
        """Consume until told to stop; checkpoint on the interval and before leaving."""
        last_cp = time.monotonic()
        try:
            # the previous holder's last commit may owe the store its outbox still; here,
            # in the partition's own task, so a store that is away stalls only this one
            await self.flush_outbox()
            while not self.stopping:
                if self.next_index is not None:
                    index, self.next_index = self.next_index, None
                    self.state.pipeline, held = self.state.pipeline.rebuild(index)
                    self.add_closed_for_edit(held)
                    self._dirty = True
                await self._fetch_and_process()
                if time.monotonic() - last_cp >= self._settings.checkpoint_s:
                    await self.checkpoint()
                    last_cp = time.monotonic()
            await self.checkpoint()
        finally:
            await self.unsubscribe()

    async def _fetch_and_process(self) -> None:
        if self._sub is None:
            # unsubscribed under this task (the lease was lost while a fetch ignored its
            # cancellation): nothing read from here on could be committed
            raise PartitionLost(self.partition)
        wait = min(1.0, self._settings.checkpoint_s)
        fetch = asyncio.ensure_future(self._sub.fetch(_FETCH, timeout=wait))
        # a fetch has been seen to outlive its own timeout (and ignore cancellation):
        # never wait on one unboundedly, or this partition could not be handed over
        done, _ = await asyncio.wait({fetch}, timeout=wait + 10)
        if not done:
            fetch.cancel()
            self._counters["fetch_stuck"] += 1
            log.warning("fetch on p%d stuck; rebinding", self.partition)
            await self.unsubscribe()
            self._sub = await self._js.pull_subscribe_bind(self._durable, self._names.stream)
            return
        try:
            msgs = fetch.result()
        except (TimeoutError, nats.errors.TimeoutError):
            self._idle_tick()
            return
        except (nats.errors.ConnectionClosedError, nats.js.errors.Error, nats.errors.Error) as exc:
            self._counters["fetch_errors"] += 1
            log.warning("fetch on p%d failed: %r", self.partition, exc)
            await asyncio.sleep(0.5)
            return
        for msg in msgs:
            self._handle(msg)

    def _handle(self, msg: Msg) -> None:
        meta = msg.metadata
        seq = meta.sequence.stream
        self.lag = int(meta.num_pending)
        self._unacked.append(msg)
        if meta.num_delivered > 1:
            self._counters["redeliveries"] += 1
        if seq <= self.state.seq:
            # already in the committed state: acknowledged with the next checkpoint
            self._counters["messages_skipped_done"] += 1
            return
        records, bad, wall, clocks, heard = decode(
            msg.data, self.partition, self._settings.partitions
        )
        self._counters["records_rejected"] += bad
        self._counters["messages"] += 1
        self._counters["records"] += len(records)
        pipeline = self.state.pipeline
        # static data first, as the single-process ingestor has it before judging a batch
        for r in records:
            if type(r) is StaticData:
                pipeline.registry.update(r)
                self._vessels.add(r.mmsi)
            elif type(r) is Position:
                self._positions.append(r)
        pipeline.hear(heard)  # the whole stream's coverage, before this batch is judged
        leads = pipeline.process(records)
        self._history.merge(pipeline.take_identity())
        pipeline.witness(clocks)  # the whole stream's time, not only this partition's
        leads += pipeline.expire(pipeline.stream_time)
        leads += pipeline.take_revisions()  # superseded open leads: the store replaces them
        self._add_leads(leads)
        if wall is not None:
            # every message's records are stored in the same commit as the leads they
            # raise, so read -> commit is also read -> stored lead
            self._walls.append(wall)
        self.state.seq = seq
        self._wall = wall
        self._dirty = True

    def _idle_tick(self) -> None:
        # a quiet live feed still ends episodes on wall time (a replay runs on message time)
        pipeline = self.state.pipeline
        stream = pipeline.stream_time
        live = self._wall is not None and abs(self._wall - stream) < _LIVE_LAG_S
        if live and stream > float("-inf"):
            leads = pipeline.expire(max(stream, time.time()))
            if leads:
                self._add_leads(leads)
                self._dirty = True

    def _add_leads(self, leads: list[Lead]) -> None:
        for lead in leads:
            self._leads[lead.id] = lead

    # -- checkpoint ----------------------------------------------------------------------

    async def checkpoint(self) -> None:
        """Store positions, commit the state with its outbox, write the outbox, ack (see
        the module docstring)."""
        if not self._unacked and not self._dirty:
            return
        if self._dirty:
            # open leads as they stand; one this partition already stored unchanged is
            # not written (nor published) again: the same upsert would change nothing,
            # and rewriting every open lead every second cost the worker a fifth of its CPU
            still_open = self.state.pipeline.open_leads()
            self._add_leads([x for x in still_open if self._stored.get(x.id) != x])
            ids = {x.id for x in still_open}
            self._stored = {i: x for i, x in self._stored.items() if i in ids}
        positions, self._positions = self._positions, []
        vessel_ids, self._vessels = self._vessels, set()
        history, self._history = self._history, HistoryOut()
        leads = list(self._leads.values())
        self._leads = {}
        registry = self.state.pipeline.registry
        vessels = [v for m in sorted(vessel_ids) if (v := registry.get(m)) is not None]
        if positions:
            await self._retry("store", lambda: self._write(positions=positions))
            self._counters["positions_written"] += len(positions)
        self.state.outbox = bus_state.Outbox(vessels, history, leads)
        blob = bus_state.dump(self.state)
        await self._retry("state", lambda: self._commit(blob))
        self._counters["checkpoints"] += 1
        self._counters["state_bytes"] = len(blob)
        await self.flush_outbox()
        now = time.time()
        self.latencies.extend(now - w for w in self._walls)  # read -> lead stored
        self._walls = []
        msgs, self._unacked = self._unacked, []
        for m in msgs:
            try:
                await m.ack()
            except Exception:  # redelivered later and skipped by its sequence
                self._counters["ack_errors"] += 1
        self._dirty = False

    async def flush_outbox(self) -> None:
        """Write and publish the committed state's outbox: after each commit, and by a
        new holder before it reads a message (its writer may have died halfway)."""
        box = self.state.outbox
        if not box:
            return
        await self._retry("store", lambda: self._write(outbox=box))
        self._counters["lead_writes"] += len(box.leads)
        for lead in box.leads:
            await self._retry("lead publish", functools.partial(self._publish_lead, lead))
        for lead in box.leads:
            if lead.ended_at is None:
                self._stored[lead.id] = lead
        self.state.outbox = bus_state.Outbox()

    async def _write(
        self, *, positions: Sequence[Position] = (), outbox: bus_state.Outbox | None = None
    ) -> None:
        seq = self.state.seq  # the committed state's: what this outbox was committed at

        def work() -> None:
            if positions:
                self._repo.add_positions(positions)
            if outbox is not None and (outbox.vessels or outbox.history):
                self._repo.upsert_vessels(outbox.vessels, outbox.history)
            if outbox is not None and outbox.leads:
                # the commit's sequence fences the write: if this worker stalled here
                # and the next holder has stored newer versions, these are left out
                self._repo.upsert_leads(outbox.leads, seq=seq)

        try:
            await asyncio.to_thread(work)
        except BaseException:
            self._store_ok(False)
            raise
        self._store_ok(True)

    async def _publish_lead(self, lead: Lead) -> None:
        import json

        status = "open" if lead.ended_at is None else "closed"
        body = json.dumps(lead.to_json(), separators=(",", ":")).encode()
        await self._js.publish(
            self._names.lead(lead.rule, status),
            body,
            timeout=5,
            headers={"Nats-Msg-Id": lead_msg_id(lead)},
        )

    async def _commit(self, blob: bytes) -> None:
        try:
            if self._rev is None:
                self._rev = await self._kv.create(self.key, blob)
            else:
                self._rev = await self._kv.update(self.key, blob, last=self._rev)
        except nats.js.errors.KeyWrongLastSequenceError as exc:
            raise PartitionLost(self.partition) from exc

    async def _retry(self, what: str, op: Callable[[], Any]) -> None:
        """Retry ``op`` until it succeeds, keeping the held messages from redelivery."""
        delay, last_touch = 0.2, time.monotonic()
        while True:
            try:
                await op()
                return
            except PartitionLost:
                raise
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._counters[f"{what.replace(' ', '_')}_retries"] += 1
                log.warning("p%d: %s failed (%r); retrying", self.partition, what, exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
            if time.monotonic() - last_touch > _ACK_WAIT_S / 3:
                last_touch = time.monotonic()
                for m in self._unacked:
                    try:
                        await m.in_progress()
                    except Exception:
                        break
