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
from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

import nats
import numpy as np
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext
from nats.js.api import RetentionPolicy, StorageType, StreamConfig

from vigia.alerts.beach import split_records
from vigia.alerts.eras import Eras
from vigia.alerts.gaps.coverage import Heard, heard
from vigia.ingest.records import Position, Record
from vigia.service.runtime.bus.codec import MAX_HEARD_ROWS, Subjects, encode, split
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


async def consumer_names(js: JetStreamContext, stream: str) -> list[str]:
    """Every consumer's name on ``stream`` (the server lists at most 256 per call)."""
    names: list[str] = []
    while True:
        page = await js.consumers_info(stream, offset=len(names) or None)
        names += [c.name or "" for c in page]
        if len(page) < 256:
            return names


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
        # coverage of each batch not yet sent to every partition, and the last batch
        # sent to each (issue 33: a partition hears only its own vessels)
        self._heard_log: list[tuple[int, Heard]] = []
        self._heard_sent: dict[int, int] = {}

    async def publish(self, records: Sequence[Record], wall: float) -> int:
        """Publish one ingest batch; returns how many records went out."""
        parts = split(records, self._settings.partitions)
        if not parts:
            return 0
        clocks = self._clocks(records)
        self._batch_no += 1
        self._hear(records)
        # partitions with no records in this batch still hear the clock now and then:
        # theirs is what settles their episodes once the lateness bound has passed
        # (a vessel that went quiet must not keep its lead open until its own next fix)
        told = self._told
        for p in range(self._settings.partitions):
            if p not in parts and self._now - told.get(p, -math.inf) >= CLOCK_EVERY_S:
                parts[p] = []
        for p in parts:
            told[p] = self._now
        # each partition's messages in order: coverage first (split when large), then its
        # records with the clocks, so a batch is judged on what the stream heard up to it
        todo: dict[int, deque[tuple[str, bytes, str]]] = {}
        for p, recs in parts.items():
            subject, mid = self._names.records(p), f"{self._run}:{self._batch_no}:{p}"
            chunks = self._heard_for(p)
            queue = deque(
                (subject, encode([], wall, (), chunk), f"{mid}:h{i}")
                for i, chunk in enumerate(chunks[:-1])
            )
            queue.append((subject, encode(recs, wall, clocks, chunks[-1]), mid))
            todo[p] = queue
        self._trim_heard()
        delay = 0.2
        while todo:
            heads = {p: q[0] for p, q in todo.items()}
            results = await asyncio.gather(
                *(
                    self._js.publish(subj, body, timeout=5, headers={"Nats-Msg-Id": mid})
                    for subj, body, mid in heads.values()
                ),
                return_exceptions=True,
            )
            failed = False
            for p, res in zip(list(heads), results, strict=True):
                if isinstance(res, BaseException):
                    if isinstance(res, asyncio.CancelledError):
                        raise res
                    self.counters["publish_retries"] += 1
                    log.warning("publish to partition %d failed (%r); retrying", p, res)
                    failed = True
                    continue
                if getattr(res, "duplicate", False):
                    self.counters["publish_duplicates"] += 1
                self.counters["messages_published"] += 1
                todo[p].popleft()
                if not todo[p]:
                    del todo[p]
            if failed:
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
        n = sum(len(v) for v in parts.values())
        self.counters["records_published"] += n
        return n

    def _hear(self, records: Sequence[Record]) -> None:
        """Log what this batch's positions add to coverage, for every partition."""
        batch = split_records(records)[0]
        n = len(batch)
        got = heard(
            [r.mmsi for r in batch], [r.t for r in batch],
            np.fromiter((r.lon for r in batch), dtype=np.float64, count=n),
            np.fromiter((r.lat for r in batch), dtype=np.float64, count=n),
            [r.source for r in batch],
        )  # fmt: skip
        if got.squares or got.sources:
            self._heard_log.append((self._batch_no, got))

    def _heard_for(self, p: int) -> list[Heard]:
        """The coverage partition ``p`` has not been sent yet, in messages of at most
        MAX_HEARD_ROWS rows each (at least one, maybe empty)."""
        since = self._heard_sent.get(p, 0)
        self._heard_sent[p] = self._batch_no
        squares = [row for no, got in self._heard_log if no > since for row in got.squares]
        sources = [row for no, got in self._heard_log if no > since for row in got.sources]
        out = []
        step = MAX_HEARD_ROWS
        for i in range(0, max(len(squares), len(sources), 1), step):
            out.append(Heard(squares[i : i + step], sources[i : i + step]))
        return out

    def _trim_heard(self) -> None:
        # every partition hears the clock at least every CLOCK_EVERY_S of stream time,
        # so the log holds about that much coverage at most
        sent = self._heard_sent
        oldest = min(sent.get(p, 0) for p in range(self._settings.partitions))
        self._heard_log = [(no, got) for no, got in self._heard_log if no > oldest]

    def _clocks(self, records: Sequence[Record]) -> list[float]:
        eras, now = self._eras, self._now
        for r in records:
            if type(r) is Position and (r.t > now or r.t < eras.floor):
                now = eras.tick(r.t, now)
        self._now = now
        eras.settle(now)
        return eras.clocks(now)
