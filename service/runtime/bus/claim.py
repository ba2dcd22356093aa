"""Taking a partition: read its committed state and claim it on its revision.

A worker that takes a partition writes the state back at once, on the revision it read.
From then on a previous holder that has not noticed it lost the lease (paused past the
TTL: a long GC, a frozen VM) has its next commit refused, and so never writes the outbox
of a state that is not the partition's (see partition.py for the commit order).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass

import nats
from nats.js.kv import KeyValue

from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.registry import VesselRegistry
from vigia.service.db.protocol import Repository
from vigia.service.runtime.bus import state as bus_state
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import Zone

log = logging.getLogger("vigia.bus.worker")
_ATTEMPTS = 3


@dataclass(slots=True)
class Claimed:
    """A partition's state as claimed: the revision this holder's commits follow, and
    the leads a zone edit since the last commit has cut short."""

    state: bus_state.PartitionState
    rev: int
    cut: list[Lead]


@dataclass(slots=True)
class StateBucket:
    """The partition states in the KV bucket, read on the worker's current zones."""

    kv: KeyValue
    repo: Repository
    config: EpisodeConfig
    counters: Counter[str]

    async def claim(self, p: int, index: ZoneIndex) -> Claimed | None:
        """The committed state, claimed; None if it kept moving under us (the previous
        holder committing as fast as we read): the worker tries again next round."""
        key = f"p{p}"
        for _ in range(_ATTEMPTS):
            state, rev, cut, blob = await self.load(p, index)
            try:
                if rev is None:
                    new_rev = await self.kv.create(key, bus_state.dump(state))
                else:
                    # the bytes as read: a state rebuilt for a zone edit is rebuilt
                    # again by whoever loads it next, with the leads the edit cut short
                    new_rev = await self.kv.update(key, blob, last=rev)
            except nats.js.errors.KeyWrongLastSequenceError:
                self.counters["claims_raced"] += 1
                continue  # the previous holder committed just now: read that
            return Claimed(state, new_rev, cut)
        log.warning("p%d: state kept changing while taking it; trying again later", p)
        return None

    async def load(
        self, p: int, index: ZoneIndex
    ) -> tuple[bus_state.PartitionState, int | None, list[Lead], bytes]:
        """The committed state (or a fresh one), its revision, the leads a zone edit
        since that commit has cut short, and the bytes read."""
        try:
            entry = await self.kv.get(f"p{p}")
        except nats.js.errors.KeyNotFoundError:
            fresh = LeadPipeline(index, VesselRegistry(), self.config)
            return bus_state.PartitionState(fresh), None, [], b""
        blob = entry.value or b""
        try:
            state = await asyncio.to_thread(bus_state.load, blob, self._index_for(index))
        except bus_state.StateError:
            # unusable state: start empty rather than stall the partition; open
            # episodes restart with the next fixes (counted, logged loudly)
            log.exception("state of p%d unusable; starting it empty", p)
            self.counters["states_discarded"] += 1
            fresh = LeadPipeline(index, VesselRegistry(), self.config)
            return bus_state.PartitionState(fresh, 0), entry.revision, [], blob
        held: list[Lead] = []
        if state.pipeline.index is not index:
            # built against older zones: carry over onto the current ones (zone edit)
            state.pipeline, held = state.pipeline.rebuild(index)
            self.counters["states_rebuilt"] += 1
            log.info("p%d state rebuilt on current zones (%d leads held)", p, len(held))
        return state, entry.revision, held, blob

    def _index_for(self, index: ZoneIndex) -> bus_state.IndexFor:
        def index_for(key: bus_state.ZoneKey) -> ZoneIndex:
            if key == bus_state.zone_key(index.zones):
                return index
            zones: list[Zone] = []
            for zid, version in key:
                z = self.repo.get_zone(zid, version)
                if z is None:
                    raise bus_state.StateError(f"zone {zid} v{version} is not in the store")
                zones.append(z)
            return ZoneIndex(zones)

        return index_for
