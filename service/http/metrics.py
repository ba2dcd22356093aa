"""Prometheus metrics of one app, on its own registry (never the process-global one).

The worker owns the counts; a collector reads its snapshot at scrape time, so numbers
are never counted twice and two apps in one process (tests) never collide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from vigia.service.db.archive_files import ArchiveFolder
from vigia.service.http.metrics_live import LiveCollector, LiveSources
from vigia.service.runtime.snapshot import IngestSnapshot

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class _SnapshotCollector(Collector):
    """Turns the current snapshot into metric families."""

    def __init__(self, source: Callable[[], IngestSnapshot | None]) -> None:
        self._source = source

    def collect(self) -> Iterator[Metric]:
        snap = self._source() or IngestSnapshot()
        sentences = CounterMetricFamily(
            "vigia_sentences", "NMEA sentences read, by result", labels=["result"]
        )
        for result, n in sorted(snap.sentences_by_result.items()):
            sentences.add_metric([result], n)
        yield sentences
        errors = CounterMetricFamily(
            "vigia_decode_errors", "Sentences skipped as undecodable, by reason", labels=["reason"]
        )
        for reason, n in sorted(snap.decode_errors_by_reason.items()):
            errors.add_metric([reason], n)
        yield errors
        unused = CounterMetricFamily(
            "vigia_lines_not_used",
            "Valid lines Vigia has no use for (not AIS; AIS types no rule judges), by reason",
            labels=["reason"],
        )
        for reason, n in sorted(snap.not_used_by_reason.items()):
            unused.add_metric([reason], n)
        yield unused
        shed = CounterMetricFamily(
            "vigia_shed",
            "Lines or datagrams network sources refused before queueing, by reason",
            labels=["reason"],
        )
        for reason, n in sorted(snap.shed_by_reason.items()):
            shed.add_metric([reason], n)
        yield shed
        yield GaugeMetricFamily(
            "vigia_worker_behind_seconds",
            "How long the line the worker is processing waited after its receipt",
            value=snap.behind_s,
        )
        yield GaugeMetricFamily(
            "vigia_ingest_queue_lines",
            "Lines received and waiting for the worker",
            value=snap.queued_lines,
        )
        yield CounterMetricFamily(
            "vigia_positions_stored", "Positions written to the store", value=snap.positions_stored
        )
        yield CounterMetricFamily(
            "vigia_positions_dropped",
            "Positions dropped because the write buffer was full",
            value=snap.positions_dropped,
        )
        yield CounterMetricFamily(
            "vigia_vessels_stored", "Vessel static records written", value=snap.vessels_stored
        )
        leads = CounterMetricFamily("vigia_leads", "Leads raised, by rule", labels=["rule"])
        for rule, n in sorted(snap.leads_by_rule.items()):
            leads.add_metric([rule], n)
        yield leads
        lag = GaugeMetricFamily(
            "vigia_ingest_lag_seconds",
            "Receipt time minus message time of the last position (NaN before the first)",
        )
        lag.add_metric([], float("nan") if snap.ingest_lag_s is None else snap.ingest_lag_s)
        yield lag
        age = GaugeMetricFamily(
            "vigia_last_message_age_seconds", "Seconds since the worker last received a line"
        )
        age.add_metric(
            [], float("nan") if snap.last_message_age_s is None else snap.last_message_age_s
        )
        yield age
        yield GaugeMetricFamily(
            "vigia_write_buffer_records",
            "Records waiting to be written to the store",
            value=snap.buffered,
        )
        yield GaugeMetricFamily(
            "vigia_store_connected",
            "1 while the last write reached the store",
            value=int(snap.store_connected),
        )
        yield GaugeMetricFamily(
            "vigia_worker_running", "1 while the ingest worker runs", value=int(snap.running)
        )


class _ArchiveCollector(Collector):
    """What became of bad entries in the position archive (none without an archive)."""

    def __init__(self, source: Callable[[], ArchiveFolder | None]) -> None:
        self._source = source

    def collect(self) -> Iterator[Metric]:
        folder = self._source()
        if folder is None:
            return
        bad = CounterMetricFamily(
            "vigia_archive_bad_files",
            "Archive entries this process found bad and did not read, by reason (corrupt "
            "and not_regular once, as they are moved aside; unreadable at each read)",
            labels=["reason"],
        )
        for reason, n in folder.counts().items():
            bad.add_metric([reason], n)
        yield bad
        yield GaugeMetricFamily(
            "vigia_archive_quarantined_files",
            "Entries in the archive's _quarantine folder, moved there by any process; "
            "each names its day missing until an operator clears it",
            value=folder.quarantined(),
        )


class ServiceMetrics:
    """The app's metrics registry, fed by whatever snapshot source is attached."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self._source: Callable[[], IngestSnapshot | None] = lambda: None
        self.registry.register(_SnapshotCollector(lambda: self._source()))
        self._live: Callable[[], LiveSources] = LiveSources
        self.registry.register(LiveCollector(lambda: self._live()))
        self._archive: Callable[[], ArchiveFolder | None] = lambda: None
        self.registry.register(_ArchiveCollector(lambda: self._archive()))

    def attach(self, source: Callable[[], IngestSnapshot | None]) -> None:
        """Read counts from ``source`` (the worker's snapshot) from now on."""
        self._source = source

    def attach_live(self, source: Callable[[], LiveSources]) -> None:
        """Read SSE and webhook figures from ``source`` from now on."""
        self._live = source

    def attach_archive(self, source: Callable[[], ArchiveFolder | None]) -> None:
        """Read the archive's bad-entry figures from ``source`` from now on."""
        self._archive = source

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return bytes(generate_latest(self.registry))
