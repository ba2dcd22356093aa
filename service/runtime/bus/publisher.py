"""Ingest side of broker mode: decoded records -> one JetStream publish per partition.

Each ingest batch is split by partition and every slice is published concurrently; the
next batch waits until all are acknowledged, so a vessel's records stay in order even
when a publish has to be retried. A retry reuses the message id, and the stream's
duplicate window drops the copy if the first attempt did land (an ack lost to a broker
restart).
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import secrets
import socket
from collections import Counter
from collections.abc import Sequence
from typing import Any

import nats
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext
from nats.js.api import RetentionPolicy, StorageType, StreamConfig

from vigia.alerts.eras import Eras
from vigia.ingest.records import Position, Record
from vigia.service.runtime.bus.codec import Subjects, encode, split
from vigia.service.settings import BusSettings

log = logging.getLogger("vigia.bus")
_DUP_WINDOW_S = 120.0


def process_name(kind: str) -> str:
    """A name unique to this process, readable in logs and the member list."""
    host = socket.gethostname().split(".")[0] or "host"
    return f"{kind}-{host}-{os.getpid()}-{secrets.token_hex(2)}"


async def connect(settings: BusSettings, name: str, **kw: Any) -> NATS:
    """A client that keeps reconnecting for as long as the process runs."""
    return await nats.connect(
        settings.url,
        name=name,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.5,
        connect_timeout=5,
        **kw,
    )


async def ensure_streams(js: JetStreamContext, settings: BusSettings) -> None:
    """Create the record and lead streams if missing (an existing one is left as is)."""
    names = Subjects(settings.prefix)
    for cfg in (
        StreamConfig(
            name=names.stream,
            subjects=[names.records_all],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            max_age=settings.stream_max_age_s,
            max_bytes=settings.stream_max_bytes,
            duplicate_window=_DUP_WINDOW_S,
        ),
        StreamConfig(
            name=names.lead_stream,
            subjects=[names.leads_all],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            max_age=settings.stream_max_age_s,
            duplicate_window=_DUP_WINDOW_S,
        ),
    ):
        try:
            await js.stream_info(cfg.name or "")
        except nats.js.errors.NotFoundError:
            await js.add_stream(cfg)


#: a partition that had no records for this long of stream time is sent the clock alone
CLOCK_EVERY_S = 60.0


class BusPublisher:
    """Publishes record batches to the partition subjects, retrying until acknowledged."""

    def __init__(self, js: JetStreamContext, settings: BusSettings, name: str) -> None:
        self._js = js
        self._settings = settings
        self._names = Subjects(settings.prefix)
        self._run = name
        self._batch_no = 0
        self.counters: Counter[str] = Counter()
        # the whole stream's eras, ticked exactly as one process's pipeline ticks them,
        # sent with every message (see LeadPipeline.witness)
        self._eras = Eras()
        self._now = -math.inf
        # the stream time each partition was last sent (records or the clock alone)
        self._told: dict[int, float] = {}

    async def publish(self, records: Sequence[Record], wall: float) -> int:
        """Publish one ingest batch; returns how many records went out."""
        parts = split(records, self._settings.partitions)
        if not parts:
            return 0
        clocks = self._clocks(records)
        # partitions with no records in this batch still hear the clock now and then:
        # theirs is what settles their episodes once the lateness bound has passed
        # (a vessel that went quiet must not keep its lead open until its own next fix)
        told = self._told
        for p in range(self._settings.partitions):
            if p not in parts and self._now - told.get(p, -math.inf) >= CLOCK_EVERY_S:
                parts[p] = []
        for p in parts:
            told[p] = self._now
        self._batch_no += 1
        todo = {
            p: (
                self._names.records(p),
                encode(recs, wall, clocks),
                f"{self._run}:{self._batch_no}:{p}",
            )
            for p, recs in parts.items()
        }
        delay = 0.2
        while todo:
            results = await asyncio.gather(
                *(
                    self._js.publish(subj, body, timeout=5, headers={"Nats-Msg-Id": mid})
                    for subj, body, mid in todo.values()
                ),
                return_exceptions=True,
            )
            done = []
            for p, res in zip(list(todo), results, strict=True):
                if isinstance(res, BaseException):
                    if isinstance(res, asyncio.CancelledError):
                        raise res
                    self.counters["publish_retries"] += 1
                    log.warning("publish to partition %d failed (%r); retrying", p, res)
                else:
                    done.append(p)
                    if getattr(res, "duplicate", False):
                        self.counters["publish_duplicates"] += 1
            for p in done:
                del todo[p]
            if todo:
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
        n = sum(len(v) for v in parts.values())
        self.counters["records_published"] += n
        self.counters["messages_published"] += len(parts)
        return n

    def _clocks(self, records: Sequence[Record]) -> list[float]:
        eras, now = self._eras, self._now
        for r in records:
            if type(r) is Position and (r.t > now or r.t < eras.floor):
                now = eras.tick(r.t, now)
        self._now = now
        eras.settle(now)
        return eras.clocks(now)
