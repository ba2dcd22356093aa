"""``vigia_archive_missing_days`` and ``..._doubled_days``: what the start-up check of
the archive against the store found (service/runtime/archive_check.py)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from vigia.service.db.archive_ledger import ArchiveCheck


class ArchiveHoles(Collector):
    """The check's days; nothing before a check has run (or without an archive)."""

    def __init__(self) -> None:
        self.found: ArchiveCheck | None = None

    def collect(self) -> Iterator[Metric]:
        found = self.found
        if found is None:
            return
        yield GaugeMetricFamily(
            "vigia_archive_missing_days",
            "Days the store moved to the archive that the folder lacks (or holds fewer "
            "positions of), found at start; alert above 0",
            value=len(found.missing),
        )
        yield GaugeMetricFamily(
            "vigia_archive_doubled_days",
            "Days the archive holds more positions of than the store moved there",
            value=len(found.doubled),
        )
