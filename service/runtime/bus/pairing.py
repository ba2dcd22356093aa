"""The pairing stage of broker mode (issue 37): meetings across partitions.

Partitions go by MMSI, so two ships that meet usually sit on different evaluation
workers and neither sees the other. This stage reads every partition's records from
the same stream (its own durable consumer, ``<prefix>-pair``, on ``<prefix>.rec.>``),
feeds one :class:`~vigia.alerts.encounters.watch.EncounterWatch` (what the replay
pipeline runs beside the zone rules) and raises ``STS-ENCOUNTER`` and ``LOITER``; the
evaluation workers leave both rules to it. Its cost is the watch's: two fixes kept per
vessel and 10-minute interval, and the slow vessels of a slot paired through H3 cells.

The checkpoint follows the partitions' order (partition.py), so the outcome is exactly
once under at-least-once delivery: the watch, the stream sequence it covers and the
leads this checkpoint owes (its outbox) to the state bucket (key ``pairing``, on the
revision this process last wrote: a second stage running at once loses that race and
stops, having written nothing), then those leads to the store (stable ids: an upsert
twice changes nothing) and on the lead subjects (one message id per lead version), then
the acknowledgements. A stage that starts writes the state back on its revision before
it reads, so an older stage still running is refused at its next commit, and writes the
outbox it found (its writer may have died before finishing). A kill before the commit
replays from the last state: same records, same leads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import logging
import struct
import time
import zlib
from collections import Counter
from typing import Any

import nats
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, KeyValueConfig, StorageType
from nats.js.kv import KeyValue

from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.encounters.watch import EncounterWatch
from vigia.alerts.lead import Lead
from vigia.service.db.protocol import Repository
from vigia.service.runtime.bus import state as bus_state
from vigia.service.runtime.bus.codec import Subjects, decode, earlier
from vigia.service.runtime.bus.partition import lead_msg_id
from vigia.service.runtime.bus.publisher import connect, consumer_names, ensure_streams
from vigia.service.settings import BusSettings
from vigia.zones.evaluate import ZoneIndex

log = logging.getLogger("vigia.bus.pairing")
KEY = "pairing"
_MAGIC = b"VGP2"
_MAGIC_V1 = b"VGP1"  # the watch alone, as written before the outbox (read, never written)
_FETCH = 64
_LIVE_LAG_S = 300.0
_ZONE_CHECK_S = 15.0


class StageLost(Exception):
    """Another pairing stage committed meanwhile: this one stops."""


def dump(watch: EncounterWatch, seq: int, outbox: list[Lead] | None = None) -> bytes:
    """The watch, its stream sequence and the leads its commit owes as bytes (the zone
    index stays out, like a partition's; the register too: the stage reads it from the
    store)."""
    register, watch.register = watch.register, AuthorisedRegister()
    try:
        buf = io.BytesIO()
        bus_state._Pickler(buf, watch.index).dump((watch, list(outbox or [])))
    finally:
        watch.register = register
    header = json.dumps({"seq": seq}).encode()
    return _MAGIC + struct.pack(">I", len(header)) + header + zlib.compress(buf.getvalue(), 1)


def load(blob: bytes, index: ZoneIndex) -> tuple[EncounterWatch, int, list[Lead]]:
    """A state written by :func:`dump`, on the current zones (restricted unpickling)."""
    if not blob.startswith((_MAGIC, _MAGIC_V1)):
        raise bus_state.StateError("not a pairing state")
    try:
        (n,) = struct.unpack(">I", blob[4:8])
        seq = json.loads(blob[8 : 8 + n])["seq"]
        raw = zlib.decompress(blob[8 + n :])
        got = bus_state._Unpickler(io.BytesIO(raw), index).load()
        watch, outbox = (got, []) if blob.startswith(_MAGIC_V1) else got
    except Exception as exc:  # corrupt in many ways; all mean unusable
        raise bus_state.StateError(f"unreadable pairing state: {exc}") from exc
    if not isinstance(watch, EncounterWatch) or type(seq) is not int:
        raise bus_state.StateError("state holds no encounter watch")
    if not isinstance(outbox, list) or not all(isinstance(x, Lead) for x in outbox):
        raise bus_state.StateError("state holds a malformed outbox")
    watch.index = index
    return watch, seq, outbox


class PairingStage:
    """Consumes every partition's records and pairs them (see module docstring)."""

    def __init__(
        self, repo: Repository, settings: BusSettings, name: str, *, lateness_s: float
    ) -> None:
        self._repo = repo
        self._settings = settings
        self.name = name
        self._lateness_s = lateness_s
        self._names = Subjects(settings.prefix)
        self.counters: Counter[str] = Counter()
        self._stop = asyncio.Event()
        self._connected = False
        self._index: ZoneIndex | None = None
        self._watch: EncounterWatch | None = None
        self._seq = 0
        self._rev: int | None = None
        self._unacked: list[Msg] = []
        self._leads: dict[str, Lead] = {}
        self._stored: dict[str, Lead] = {}
        self._wall: float | None = None
        self._dirty = False

    def stop(self) -> None:
        self._stop.set()

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.counters)
        if self._watch is not None:
            out.update(self._watch.counters)
            out["vessels_tracked"] = self._watch.vessel_count
        out["bus_connected"] = int(self._connected)
        return out

    def healthy(self) -> tuple[bool, dict[str, Any]]:
        return self._connected, {"kind": "pair", "name": self.name, "seq": self._seq}

    def _load_store(self) -> None:
        zones, _ = self._repo.list_zones(None, None, 1_000_000, 0)
        if self._index is None or bus_state.zone_key(zones) != bus_state.zone_key(
            self._index.zones
        ):
            self._index = ZoneIndex(list(zones))
            if self._watch is not None:
                self._watch.index = self._index
                self.counters["zone_reloads"] += 1
        self._register = AuthorisedRegister(self._repo.list_authorisations())

    async def run(self) -> None:
        """Pair until stopped; checkpoint on the interval and before leaving."""
        await asyncio.to_thread(self._load_store)
        assert self._index is not None
        nc = await connect(self._settings, self.name)
        self._connected = True
        js = nc.jetstream()
        await ensure_streams(js, self._settings)
        kv = await self._bucket(js)
        outbox = await self._claim(kv)
        # named by the claimed revision, the earlier stages' consumers deleted: an older
        # stage still fetching gets errors, never this stage's messages
        stream, bare = self._names.stream, f"{self._settings.prefix}-pair"
        durable = f"{bare}-e{self._rev}"
        for name in await consumer_names(js, stream):
            # an older stage's only: a later one's is the stage that took over from this
            if (name == bare or name.startswith(bare + "-e")) and earlier(name, self._rev or 0):
                with contextlib.suppress(nats.js.errors.NotFoundError):
                    await js.delete_consumer(stream, name)
        await js.add_consumer(
            stream,
            ConsumerConfig(
                durable_name=durable, ack_policy=AckPolicy.EXPLICIT,
                deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=self._seq + 1,
                ack_wait=30.0, max_ack_pending=self._settings.max_ack_pending,
                filter_subject=self._names.records_all,
            ),
        )  # fmt: skip
        sub = await js.pull_subscribe_bind(durable, stream)
        last_cp = last_zones = time.monotonic()
        try:
            await self._flush(js, outbox)
            while not self._stop.is_set():
                await self._fetch(sub)
                if time.monotonic() - last_zones >= _ZONE_CHECK_S:
                    await asyncio.to_thread(self._load_store)
                    last_zones = time.monotonic()
                if time.monotonic() - last_cp >= self._settings.checkpoint_s:
                    await self._checkpoint(js, kv)
                    last_cp = time.monotonic()
            await self._checkpoint(js, kv)
        finally:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
            with contextlib.suppress(Exception):
                await nc.close()
            self._connected = False

    async def _claim(self, kv: KeyValue) -> list[Lead]:
        """Load the committed state and write it back on its revision, so an older stage
        still running has its next commit refused; the outbox it owed is returned."""
        assert self._index is not None
        try:
            entry = await kv.get(KEY)
        except nats.js.errors.KeyNotFoundError:
            self._watch = EncounterWatch(self._index, lateness_s=self._lateness_s)
            self._rev = await kv.create(KEY, dump(self._watch, 0))
            return []
        self._watch, self._seq, outbox = load(entry.value or b"", self._index)
        try:
            self._rev = await kv.update(KEY, entry.value or b"", last=entry.revision)
        except nats.js.errors.KeyWrongLastSequenceError as exc:
            self._stop.set()
            raise StageLost("another pairing stage committed while this one started") from exc
        return outbox

    async def _bucket(self, js: Any) -> KeyValue:
        try:
            kv: KeyValue = await js.key_value(self._names.state_bucket)
        except nats.js.errors.BucketNotFoundError:
            kv = await js.create_key_value(
                KeyValueConfig(bucket=self._names.state_bucket, history=1,
                               storage=StorageType.FILE)
            )  # fmt: skip
        return kv

    async def _fetch(self, sub: Any) -> None:
        try:
            msgs = await sub.fetch(_FETCH, timeout=min(1.0, self._settings.checkpoint_s))
        except (TimeoutError, nats.errors.TimeoutError):
            self._idle()
            return
        except nats.errors.Error as exc:
            self.counters["fetch_errors"] += 1
            log.warning("pairing fetch failed: %r", exc)
            await asyncio.sleep(0.5)
            return
        for msg in msgs:
            self._handle(msg)

    def _handle(self, msg: Msg) -> None:
        w = self._watch
        assert w is not None
        seq = msg.metadata.sequence.stream
        self._unacked.append(msg)
        if seq <= self._seq:
            self.counters["messages_skipped_done"] += 1  # already in the committed state
            return
        try:
            part = int(msg.subject.rsplit(".", 1)[1])
        except ValueError:
            part = -1
        got = decode(msg.data, part, self._settings.partitions)
        self.counters["messages"] += 1
        self.counters["records"] += len(got.records)
        self.counters["records_rejected"] += got.bad
        w.register = self._register
        w.feed(got.records)
        self._add(w.expire(w.stream_time) + w.take_revisions())
        self._wall = got.wall
        self._seq = seq
        self._dirty = True

    def _idle(self) -> None:
        # a quiet live feed still settles slots on wall time (a replay runs on its own)
        w = self._watch
        if w is None or self._wall is None or abs(self._wall - w.stream_time) >= _LIVE_LAG_S:
            return
        got = w.expire(max(w.stream_time, time.time())) + w.take_revisions()
        if got:
            self._add(got)
            self._dirty = True

    def _add(self, leads: list[Lead]) -> None:
        for lead in leads:
            self._leads[lead.id] = lead

    async def _checkpoint(self, js: Any, kv: KeyValue) -> None:
        w = self._watch
        if w is None or (not self._unacked and not self._dirty):
            return
        still_open = w.open_leads()
        self._add([x for x in still_open if self._stored.get(x.id) != x])
        self._stored = {i: x for i, x in self._stored.items() if i in {x.id for x in still_open}}
        leads = list(self._leads.values())
        self._leads = {}
        blob = dump(w, self._seq, leads)
        try:
            if self._rev is None:
                self._rev = await kv.create(KEY, blob)
            else:
                self._rev = await kv.update(KEY, blob, last=self._rev)
        except nats.js.errors.KeyWrongLastSequenceError as exc:
            self.counters["commits_refused"] += 1
            self._stop.set()
            raise StageLost("another pairing stage committed") from exc
        self.counters["checkpoints"] += 1
        self.counters["state_bytes"] = len(blob)
        await self._flush(js, leads)
        msgs, self._unacked = self._unacked, []
        for m in msgs:
            try:
                await m.ack()
            except Exception:  # redelivered later and skipped by its sequence
                self.counters["ack_errors"] += 1
        self._dirty = False

    async def _flush(self, js: Any, leads: list[Lead]) -> None:
        """A commit's outbox: to the store, then on the lead subjects."""
        if not leads:
            return
        seq = self._seq  # the commit's sequence: a stalled stage's older versions lose
        await self._retry(lambda: asyncio.to_thread(self._repo.upsert_leads, leads, seq=seq))
        for lead in leads:
            await self._retry(functools.partial(self._publish, js, lead))
        for lead in leads:
            if lead.ended_at is None and "superseded_by" not in lead.details:
                self._stored[lead.id] = lead

    async def _publish(self, js: Any, lead: Lead) -> None:
        status = "open" if lead.ended_at is None else "closed"
        body = json.dumps(lead.to_json(), separators=(",", ":")).encode()
        await js.publish(
            self._names.lead(lead.rule, status), body, timeout=5,
            headers={"Nats-Msg-Id": lead_msg_id(lead)},
        )  # fmt: skip

    async def _retry(self, op: Any) -> None:
        delay = 0.2
        while True:
            try:
                await op()
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.counters["store_retries"] += 1
                log.warning("pairing: %r; retrying", exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
