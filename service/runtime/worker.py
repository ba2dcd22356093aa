"""The ingest worker inside the service: sources -> Ingestor -> LeadPipeline -> writer.

One reader thread per source puts raw lines on a bounded queue (a full queue slows the
readers instead of dropping lines); one processing thread decodes, judges and hands
batches to the BufferedWriter, which owns retries while the store is away. Each stage
sits behind a small interface so a message bus can later go between them.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from vigia.alerts.aton import AtonConfig
from vigia.alerts.authorised import Authorisation, AuthorisedRegister
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.counters import NOT_USED
from vigia.ingest.records import Position, RawLine, StaticData
from vigia.service.db.protocol import Repository
from vigia.service.runtime.counts import (
    WRITER_COUNTERS,
    shed_counts,
    split_counters,
    submit_when_room,
)
from vigia.service.runtime.feeds import LineSource, sources_from_settings
from vigia.service.runtime.intake import Intake
from vigia.service.runtime.port_visits import expire_and_store
from vigia.service.runtime.snapshot import IngestSnapshot
from vigia.service.runtime.state_vessels import ReloadsStateVessels
from vigia.service.settings import IngestSettings
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import Zone

log = logging.getLogger("vigia.worker")
_LIVE_LAG_S = 300.0


class IngestWorker(ReloadsStateVessels):
    """Runs the ingest pipeline on threads and keeps the counts /metrics shows."""

    def __init__(
        self,
        repo: Repository,
        settings: IngestSettings,
        zones: Sequence[Zone],
        *,
        sources: Sequence[LineSource] | None = None,
        clock: Callable[[], float] = time.time,
        spool_dir: str | Path | None = None,
    ) -> None:
        from vigia.ingest.batch import BatchIngestor
        from vigia.ingest.registry import VesselRegistry
        from vigia.ingest.sources import FileSource
        from vigia.service.runtime.writer import BufferedWriter

        self._repo = repo
        self._settings = settings
        self._clock = clock
        self._stop = threading.Event()
        self._sources = (
            list(sources) if sources is not None else sources_from_settings(settings, self._stop)
        )
        self._registry = VesselRegistry()
        # what the store knows of every vessel: without it, every tanker in the tanker
        # anchorage is "unknown type, not allowed" after a restart until its next type 5
        self.registry_loaded = self._load_registry()
        self._ingestor = BatchIngestor(
            self._registry,
            max_pending_bytes=settings.max_pending_bytes,
            max_line_chars=settings.max_line_chars,
            max_ahead_s=settings.max_ahead_s,
            max_behind_s=settings.max_behind_s,
            # replayed files keep their historical times; only live feeds can be stale
            historical_sources=[s.name for s in self._sources if isinstance(s, FileSource)],
        )
        aton = AtonConfig(settings.aton_radius_m, settings.aton_lookback_s, settings.aton_silent_s)
        self._pipeline = LeadPipeline(
            ZoneIndex(list(zones)),
            self._registry,
            EpisodeConfig(lateness_s=settings.lateness_s),
            aton=aton,
            register=AuthorisedRegister(repo.list_authorisations()),
        )
        self._pipeline.record_identity()  # stored with the static data (issue 34)
        self.reload_state_vessels(repo.list_state_vessels())
        self._writer = BufferedWriter(
            repo,
            max_buffered=settings.write_buffer,
            max_buffered_bytes=settings.write_buffer_bytes,
            spool_dir=spool_dir,
        )
        # the reader threads' queues, distress lines apart (service/runtime/intake.py)
        self._intake = Intake(len(self._sources), self._stop, settings.queue_size)
        self._lock = threading.Lock()
        self._pending_zones: list[Zone] | None = None
        self._pending_zones_at = 0.0
        self.zone_swaps = 0  # zone indexes swapped in since start (tests wait on it)
        self._threads: list[threading.Thread] = []
        self._give_up_at: float | None = None
        self._dirty = False
        self._pipeline_base: Counter[str] = Counter()  # counts of pipelines replaced by edits
        self.sources_done = self._intake.sources_done
        self.idle = threading.Event()
        self._base: dict[str, int] = repo.load_counters()
        self._leads_by_rule: Counter[str] = Counter()
        self._seen_leads: set[str] = set()
        self._lines = 0
        self._stream_t = float("-inf")
        self._last_line_wall: float | None = None
        self._lag: float | None = None
        self._behind = 0.0  # how long the line being processed waited after receipt

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        """Start the reader threads and the processing thread."""
        for i, source in enumerate(self._sources):
            t = threading.Thread(
                target=self._intake.read, args=(source,), name=f"vigia-source-{i}", daemon=True
            )
            self._threads.append(t)
        self._threads.append(threading.Thread(target=self._run, name="vigia-worker", daemon=True))
        if not self._sources:
            self.sources_done.set()
        for t in self._threads:
            t.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop reading, store what is buffered and the open leads, persist counters."""
        self._give_up_at = time.monotonic() + timeout * 0.8
        self._stop.set()
        for source in self._sources:
            close = getattr(source, "close", None)
            if callable(close):
                with contextlib.suppress(Exception):
                    close()
        for t in self._threads:
            if t.name == "vigia-worker":
                t.join(timeout)
        self._writer.close()
        self._save_counters()

    def wait_idle(self, timeout: float) -> bool:
        """Block until every source has ended and its lines are processed."""
        return self.idle.wait(timeout)

    def reload_register(self, entries: Sequence[Authorisation]) -> None:
        """Judge from now on with this authorised-vessel register (after an API edit).
        One attribute swap: the pipeline reads it once per judgement."""
        self._pipeline.register = AuthorisedRegister(entries)

    def _load_registry(self) -> int:
        for info in self._repo.all_vessels():
            self._registry.update(
                StaticData(
                    info.mmsi,
                    info.updated_at if info.updated_at is not None else 0.0,
                    0,
                    name=info.name,
                    callsign=info.callsign,
                    imo=info.imo,
                    ship_type=info.ship_type,
                    length_m=info.length_m,
                    beam_m=info.beam_m,
                    destination=info.destination,
                    source="store",
                )
            )
        return len(self._registry)

    def reload_zones(self, zones: Sequence[Zone]) -> None:
        """Judge from now on against these zones (after an edit through the API).

        On a live feed "from now on" is by message time: positions still queued from
        before the edit are judged against the zones that were in force when they were
        sent, so their leads cite that version (issue 15, item 4)."""
        with self._lock:
            self._pending_zones = list(zones)
            self._pending_zones_at = self._clock()

    # -- what the API reads ----------------------------------------------------------------

    @property
    def zone_count(self) -> int:
        """How many zones the running pipeline judges against."""
        return len(self._pipeline.index.zones)

    def counters(self) -> dict[str, int]:
        """Cumulative counters: persisted ones from earlier runs plus this run's."""
        now = self._run_counters()
        keys = set(self._base) | set(now)
        return {k: self._base.get(k, 0) + now.get(k, 0) for k in sorted(keys)}

    def backlog(self) -> dict[str, float]:
        """How far behind the worker is: lines queued, and how long the line it is
        processing (or last processed) waited between receipt and processing."""
        queued = self._intake.queued()
        return {"queued_lines": queued, "behind_s": round(self._behind, 3)}

    def snapshot(self) -> IngestSnapshot:
        """The numbers /metrics and /readyz show."""
        raw = self._ingestor.counters.as_dict()
        by_result, by_reason = split_counters(raw)
        backlog = self.backlog()
        stats = self._writer.stats()
        age = None if self._last_line_wall is None else self._clock() - self._last_line_wall
        return IngestSnapshot(
            sentences_by_result=by_result,
            decode_errors_by_reason=by_reason,
            positions_stored=int(stats.get("written", 0)),
            positions_dropped=int(stats.get("dropped", 0)),
            vessels_stored=int(stats.get("written_vessels", 0)),
            store_connected=bool(stats.get("connected", True)),
            leads_by_rule=dict(self._leads_by_rule),
            ingest_lag_s=self._lag,
            last_message_age_s=age,
            buffered=int(stats.get("buffered", 0)),
            running=not self._stop.is_set(),
            not_used_by_reason={k: int(raw.get(k, 0)) for k in NOT_USED},
            shed_by_reason=dict(shed_counts(self._sources)),
            behind_s=backlog["behind_s"],
            queued_lines=int(backlog["queued_lines"]),
        )

    # -- threads -------------------------------------------------------------------------

    def _run(self) -> None:
        last_tick = self._clock()
        last_save = last_tick
        settings = self._settings
        while not self._stop.is_set():
            batch = self._intake.take_batch()
            if not batch:
                self._swap_zones()
            if batch:
                self.idle.clear()
                self._process(batch)
            else:
                self._behind = 0.0
            now = self._clock()
            if now - last_tick >= settings.flush_interval_s or not batch:
                self._tick(now)
                last_tick = now
            if now - last_save >= settings.counters_interval_s:
                self._save_counters()
                last_save = now
            drained = self._intake.drained()
            if not batch and self.sources_done.is_set() and drained:
                if not self.idle.is_set():
                    self._writer_leads(self._pipeline.open_leads())
                    self._writer.flush(timeout=30.0)
                    self._save_counters()
                    self.idle.set()
                self._stop.wait(0.2)
        self._drain_on_stop()

    def _process(self, batch: Iterable[RawLine]) -> None:
        lines = list(batch)
        positions: list[Position] = []
        statics: set[int] = set()
        now = self._clock()
        if lines:
            self._lines += len(lines)
            self._last_line_wall = now
            self._behind = now - lines[-1].received_at
        # the whole batch framed and decoded at once (vigia.ingest.batch)
        records: list[Any] = self._ingestor.feed_batch(lines) if lines else []
        for rec in records:
            if isinstance(rec, Position):
                positions.append(rec)
                self._stream_t = max(self._stream_t, rec.t)
            elif isinstance(rec, StaticData):
                statics.add(rec.mmsi)
        received = self._ingestor.last_position_received_at
        if positions and received is not None:
            self._lag = received - positions[-1].t
        if positions:
            self._submit_positions(positions)
        vessels = [v for m in statics if (v := self._registry.get(m)) is not None]
        if records:
            cut = self._edit_cut(records)
            if cut > 0:
                self._writer_leads(self._pipeline.process(records[:cut]))
            self._swap_zones()
            if cut < len(records):
                self._writer_leads(self._pipeline.process(records[cut:]))
            # open leads a late record superseded: the store replaces them (issue 31)
            self._writer_leads(self._pipeline.take_revisions())
            self._dirty = True
            # a lead that has just opened goes out now, not at the next tick: live
            # delivery (SSE, webhooks) waits on this write
            opened = [x for x in self._pipeline.open_leads() if x.id not in self._seen_leads]
            self._writer_leads(opened)
        else:
            self._swap_zones()
        history = self._pipeline.take_identity()  # stored with the static data it came with
        if vessels or history:
            self._writer.submit_vessels(vessels, history)

    def _edit_cut(self, records: list[Any]) -> int:
        """How many leading records a pending zone edit does not yet apply to: on a live
        feed, those sent before the edit; on a replay of the past, none (the edited
        zones judge the whole history, as a fresh replay would)."""
        with self._lock:
            if self._pending_zones is None:
                return 0
            at = self._pending_zones_at
        if self._lag is None or abs(self._lag) >= _LIVE_LAG_S:
            return 0
        for i, rec in enumerate(records):
            if rec.t >= at:
                return i
        return len(records)

    def _tick(self, now: float) -> None:
        # replays run on message time; a quiet live feed still ends episodes on wall time
        stream = self._stream_t
        if self._lag is not None and abs(self._lag) < _LIVE_LAG_S:
            stream = max(stream, now)
        if stream > float("-inf"):
            self._writer_leads(expire_and_store(self._pipeline, self._repo, stream))
        if self._dirty:  # open episodes only grow with new positions
            self._dirty = False
            self._writer_leads(self._pipeline.open_leads())

    def _swap_zones(self) -> None:
        with self._lock:
            zones, self._pending_zones = self._pending_zones, None
        if zones is None:
            return
        old = self._pipeline
        self._pipeline, ended = old.rebuild(ZoneIndex(zones))
        self._pipeline.register = old.register
        self._writer_leads(ended)
        self._pipeline_base.update(old.counters)
        self.zone_swaps += 1
        self._dirty = True
        log.info("zone index rebuilt with %d zones", len(zones))

    def _drain_on_stop(self) -> None:
        rest = self._intake.take_rest()
        if rest:
            self._process(rest)
        self._writer_leads(self._pipeline.open_leads())

    # -- helpers -------------------------------------------------------------------------

    def _writer_leads(self, leads: Sequence[Lead]) -> None:
        if not leads:
            return
        for lead in leads:
            if lead.id not in self._seen_leads:
                self._seen_leads.add(lead.id)
                self._leads_by_rule[lead.rule] += 1
        self._writer.submit_leads(list(leads))

    def _submit_positions(self, positions: list[Position]) -> None:
        submit_when_room(self._writer, positions, self._give_up_at)

    def _run_counters(self) -> dict[str, int]:
        out = {k: int(v) for k, v in self._ingestor.counters.as_dict().items()}
        now = self._pipeline.counters
        for k in sorted(set(now) | set(self._pipeline_base)):
            out[f"pipeline_{k}"] = int(now.get(k, 0)) + self._pipeline_base[k]
        stats = self._writer.stats()
        for key, name in WRITER_COUNTERS.items():
            out[name] = int(stats.get(key, 0))
        for reason, n in shed_counts(self._sources).items():
            out[f"shed_{reason}"] = n
        out["lines_processed"] = self._lines
        out["leads_raised"] = len(self._seen_leads)
        out["source_errors"] = self._intake.source_errors
        return out

    def _save_counters(self) -> None:
        try:
            self._repo.save_counters(self.counters())
        except Exception:
            # counters are best effort; the writer already buffers what matters
            log.warning("could not persist ingest counters", exc_info=True)
