"""An evaluation worker in broker mode: holds partitions, runs one HeldPartition each.

Who holds what is settled through two JetStream key-value buckets with a TTL:

- ``members``: every worker heartbeats its name; the live names decide by rendezvous
  hashing which worker *should* hold each partition, so adding or removing a worker
  moves only the partitions that must move;
- ``leases``: a worker *does* hold a partition once it has created its lease key and
  keeps renewing it on its revision. A worker leaving on purpose checkpoints and deletes
  the lease; a killed one's lease lapses after the TTL.

A partition's state is in a third bucket, so the next holder carries on with the same
open episodes (see partition.py for the commit order that makes that exact, and claim.py
for how a new holder fences off one that has not noticed it lost the lease).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

import nats
from nats.js.api import KeyValueConfig, StorageType
from nats.js.kv import KeyValue

from vigia.alerts.episodes import EpisodeConfig
from vigia.service.db.protocol import Repository
from vigia.service.runtime import state_vessels
from vigia.service.runtime.bus import state as bus_state
from vigia.service.runtime.bus.claim import StateBucket
from vigia.service.runtime.bus.codec import Subjects
from vigia.service.runtime.bus.partition import HeldPartition, PartitionLost
from vigia.service.runtime.bus.publisher import connect, ensure_streams
from vigia.service.settings import BusSettings
from vigia.zones.evaluate import ZoneIndex

log = logging.getLogger("vigia.bus.worker")
_ALL_ZONES = 1_000_000
_ZONE_CHECK_S = 15.0
_RELEASE_WAIT_S = 30.0  # how soon a zone edit through the API reaches the workers
_COUNTERS = (
    "messages", "records", "records_rejected", "redeliveries", "messages_skipped_done",
    "positions_written", "lead_writes", "checkpoints", "fetch_errors", "store_retries",
    "state_retries", "lead_publish_retries", "ack_errors", "leases_lost", "commits_refused",
    "claims_raced", "partitions_taken", "partitions_released", "states_discarded", "states_rebuilt",
    "zone_reloads", "fetch_stuck",
)  # fmt: skip


async def _cancel(task: asyncio.Task[None]) -> None:
    """Cancel and give it a moment; never hang on a task that ignores cancellation."""
    task.cancel()
    await asyncio.wait({task}, timeout=5)


def owner(partition: int, members: Sequence[str]) -> str | None:
    """Rendezvous hashing: the member with the highest score for this partition."""
    best, best_score = None, b""
    for m in members:
        score = hashlib.sha256(f"{m}|{partition}".encode()).digest()
        if best is None or score > best_score:
            best, best_score = m, score
    return best


class EvalWorker:
    """Evaluation worker; ``stats``/``healthy`` feed its /metrics and /healthz."""

    def __init__(
        self,
        repo: Repository,
        settings: BusSettings,
        name: str,
        *,
        only: Sequence[int] | None = None,
        config: EpisodeConfig | None = None,
    ) -> None:
        self._repo = repo
        self._settings = settings
        # how partitions judge (the lateness bound); a checkpointed state keeps its own
        self._config = config or EpisodeConfig()
        self._names = Subjects(settings.prefix)
        self.name = name
        # a fixed set of partitions (``--partitions``) instead of a share of all of them
        self._only = None if only is None else sorted(set(only))
        # every counter from the start, so a dashboard sees 0 rather than nothing
        self.counters: Counter[str] = Counter(dict.fromkeys(_COUNTERS, 0))
        self._held: dict[int, HeldPartition] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._lease_rev: dict[int, int] = {}
        self._releasing: set[int] = set()
        self._latencies: deque[float] = deque(maxlen=20_000)
        self._zones_checked = time.monotonic()
        self._background: set[asyncio.Task[None]] = set()
        self._members: list[str] = []
        self._connected = False
        self._store_ok = True
        self._store_ok_at = time.monotonic()
        self._index: ZoneIndex | None = None
        # the register of state vessels: read at each take and every 60 s (issue 34)
        self._state_vessels = state_vessels.Poll(repo)
        self._stop = asyncio.Event()
        self.started = asyncio.Event()

    # -- what /metrics and /healthz read -------------------------------------------------

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.counters)
        out["partitions_held"] = len(self._held)
        out["members"] = len(self._members)
        out["lag_messages"] = sum(h.lag for h in self._held.values())
        out["bus_connected"] = int(self._connected)
        out["store_connected"] = int(self._store_ok)
        lat = sorted(self._latencies)
        for q in (50, 95, 99):
            # seconds from the ingest reading a batch to its positions and leads stored
            out[f"e2e_latency_p{q}_s"] = lat[min(len(lat) - 1, len(lat) * q // 100)] if lat else 0.0
        out["vessels_tracked"] = sum(h.state.pipeline.vessel_count for h in self._held.values())
        return out

    def healthy(self) -> tuple[bool, dict[str, Any]]:
        ok = self._connected and (self._store_ok or time.monotonic() - self._store_ok_at < 60)
        return ok, {
            "kind": "evaluate",
            "name": self.name,
            "bus_connected": self._connected,
            "store_connected": self._store_ok,
            "partitions": sorted(self._held),
        }

    def _note_store(self, ok: bool) -> None:
        if ok:
            self._store_ok_at = time.monotonic()
        self._store_ok = ok

    def stop(self) -> None:
        """Ask the worker to release its partitions and leave."""
        self._stop.set()

    # -- main loop -----------------------------------------------------------------------

    async def run(self) -> None:
        """Join, hold partitions until stopped, then hand them back checkpointed."""
        await asyncio.to_thread(self._load_zones)
        nc = await connect(
            self._settings,
            self.name,
            disconnected_cb=self._on_disconnect,
            reconnected_cb=self._on_reconnect,
        )
        self._connected = True
        js = nc.jetstream()
        await ensure_streams(js, self._settings)
        ttl = self._settings.lease_ttl_s
        self._js = js
        self._state_kv = await self._bucket(js, self._names.state_bucket, None)
        self._states = StateBucket(self._state_kv, self._repo, self._config, self.counters)
        self._lease_kv = await self._bucket(js, self._names.lease_bucket, ttl)
        self._member_kv = await self._bucket(js, self._names.member_bucket, ttl)
        try:
            while not self._stop.is_set():
                try:
                    await self._round()
                except Exception:
                    self.counters["round_errors"] += 1
                    log.warning("membership round failed", exc_info=True)
                self.started.set()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), ttl / 3)
        finally:
            await asyncio.gather(*self._background, return_exceptions=True)
            await asyncio.gather(
                *(self._release(p) for p in list(self._held)), return_exceptions=True
            )
            with contextlib.suppress(Exception):
                await self._member_kv.delete(self.name)
            # every subscription is gone by now: flush the last acks and leave (a drain
            # would wait out its own timeout on a slow broker for nothing)
            with contextlib.suppress(Exception):
                await nc.flush(timeout=5)
            with contextlib.suppress(Exception):
                await nc.close()
            self._connected = False

    async def _bucket(self, js: Any, name: str, ttl: float | None) -> KeyValue:
        try:
            kv: KeyValue = await js.key_value(name)
            return kv
        except nats.js.errors.BucketNotFoundError:
            kv = await js.create_key_value(
                KeyValueConfig(bucket=name, history=1, ttl=ttl, storage=StorageType.FILE)
            )
            return kv

    async def _check_zones(self) -> None:
        """Zones edited through the API: every held partition switches to the new index."""
        if time.monotonic() - self._zones_checked < _ZONE_CHECK_S:
            return
        self._zones_checked = time.monotonic()
        zones, _ = await asyncio.to_thread(self._repo.list_zones, None, None, _ALL_ZONES, 0)
        assert self._index is not None
        if bus_state.zone_key(zones) == bus_state.zone_key(self._index.zones):
            return
        self._index = await asyncio.to_thread(ZoneIndex, list(zones))
        for held in self._held.values():
            held.next_index = self._index
        self.counters["zone_reloads"] += 1
        log.info("zones changed: %d zones now", len(zones))

    async def _round(self) -> None:
        await self._member_kv.put(self.name, str(time.time()).encode())
        try:
            members = sorted(await self._member_kv.keys())
        except nats.js.errors.NoKeysError:
            members = [self.name]
        self._members = members
        if self._only is not None:
            mine = set(self._only)
        else:
            mine = {p for p in range(self._settings.partitions) if owner(p, members) == self.name}
        # renew first: a slow hand-over below must not let the other leases lapse
        for p, task in list(self._tasks.items()):
            if task.done() and p not in self._releasing:
                self._forget(p)
        for p in list(self._held):
            if p in mine and p not in self._releasing:
                await self._renew(p)
        for p in list(self._held):
            if p not in mine and p not in self._releasing:
                # in the background: it waits for the partition's last checkpoint
                self._releasing.add(p)
                task = asyncio.create_task(self._release(p), name=f"vigia-release-p{p}")
                self._background.add(task)
                task.add_done_callback(self._background.discard)
        for p in sorted(mine - set(self._held)):
            await self._take(p)
        try:  # last: it may take a while, and the leases are renewed by now
            await self._check_zones()
        except Exception:  # the store may be away; judging goes on with the zones held
            log.warning("zone check failed", exc_info=True)
        await self._state_vessels.refresh(h.state.pipeline for h in self._held.values())

    async def _renew(self, p: int) -> None:
        try:
            rev = await self._lease_kv.update(f"p{p}", self.name.encode(), last=self._lease_rev[p])
            self._lease_rev[p] = rev
        except nats.js.errors.KeyWrongLastSequenceError:
            # lapsed (a long pause, a broker restart): stop at once, commit nothing more
            log.warning("lease on p%d lost; dropping it", p)
            self.counters["leases_lost"] += 1
            await self._abandon(p)

    async def _take(self, p: int) -> None:
        try:
            rev = await self._lease_kv.create(f"p{p}", self.name.encode())
        except nats.js.errors.KeyWrongLastSequenceError:
            return  # still held by its previous owner; it will let go or lapse
        assert self._index is not None
        claimed = await self._states.claim(p, self._index)
        if claimed is None:
            with contextlib.suppress(Exception):
                await self._lease_kv.delete(f"p{p}")
            return
        state, state_rev, cut = claimed.state, claimed.rev, claimed.cut
        await self._state_vessels.refresh((), now=True)
        state.pipeline.state_vessels = self._state_vessels.register
        state.pipeline.encounters = None  # paired across partitions by bus/pairing.py
        held = HeldPartition(
            p,
            state,
            state_rev,
            js=self._js,
            kv=self._state_kv,
            repo=self._repo,
            settings=self._settings,
            counters=self.counters,
            store_ok=self._note_store,
            latencies=self._latencies,
        )
        held.add_closed_for_edit(cut)
        await held.subscribe()
        self._held[p] = held
        self._lease_rev[p] = rev
        self._tasks[p] = asyncio.create_task(self._run_partition(held), name=f"vigia-p{p}")
        self.counters["partitions_taken"] += 1
        log.info("%s took p%d at sequence %d", self.name, p, state.seq)

    async def _run_partition(self, held: HeldPartition) -> None:
        try:
            await held.run()
        except PartitionLost:
            self.counters["commits_refused"] += 1
            log.warning("p%d was taken over; dropping uncommitted work", held.partition)
            await held.abandon()

    async def _release(self, p: int) -> None:
        """Leave on purpose: final checkpoint, then free the lease for the next holder."""
        held = self._held.get(p)
        task = self._tasks.get(p)
        if held is not None:
            held.stopping = True
        if task is not None:
            try:
                # bounded: a checkpoint that cannot finish (store or broker away) is
                # given up; the next holder redoes that work from the committed state
                await asyncio.wait_for(asyncio.shield(task), _RELEASE_WAIT_S)
            except TimeoutError:
                log.warning("p%d: final checkpoint timed out; leaving it uncommitted", p)
                await _cancel(task)
            except Exception:
                log.warning("p%d: final checkpoint failed", p, exc_info=True)
        self._forget(p)
        self._releasing.discard(p)
        with contextlib.suppress(Exception):
            await self._lease_kv.delete(f"p{p}")
        self.counters["partitions_released"] += 1

    async def _abandon(self, p: int) -> None:
        task = self._tasks.get(p)
        if task is not None:
            await _cancel(task)
        held = self._held.get(p)
        if held is not None:
            await held.unsubscribe()
        self._forget(p)

    def _forget(self, p: int) -> None:
        self._held.pop(p, None)
        self._tasks.pop(p, None)
        self._lease_rev.pop(p, None)

    # -- state ---------------------------------------------------------------------------

    def _load_zones(self) -> None:
        zones, _ = self._repo.list_zones(None, None, _ALL_ZONES, 0)
        self._index = ZoneIndex(list(zones))

    async def _on_disconnect(self) -> None:
        self._connected = False

    async def _on_reconnect(self) -> None:
        self._connected = True
