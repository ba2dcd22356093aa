"""The worker's sources as the settings name them: TCP and gpsd feeds, UDP ports, files."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Protocol

from vigia.ingest.records import RawLine
from vigia.service.settings import IngestSettings


class LineSource(Protocol):
    """Anything that yields raw lines (file replay, TCP feed, UDP port, a bus)."""

    def lines(self) -> Iterator[RawLine]:
        """Lines as they arrive; ends when the source does."""
        ...


def sources_from_settings(settings: IngestSettings, stop: threading.Event) -> list[LineSource]:
    """The sources the settings name: TCP feeds, UDP ports and files to replay."""
    from vigia.ingest.sources import FileSource, GpsdSource, TcpSource, UdpSource

    out: list[LineSource] = []
    limit = settings.max_line_chars
    for feed in settings.tcp_feeds:
        host, _, port = feed.removeprefix("gpsd://").rpartition(":")
        kind = GpsdSource if feed.startswith("gpsd://") else TcpSource
        out.append(kind(host, int(port), stop=stop, max_line_bytes=limit))
    out.extend(
        UdpSource(settings.udp_host, port, stop=stop, max_line_bytes=limit)
        for port in settings.udp_ports
    )
    out.extend(FileSource(path) for path in settings.files)
    return out
