"""A real gpsd (Debian's package) as a feed: ``gpsd://host:port`` asks it to relay NMEA.

gpsd is started on free loopback ports with a UDP device; AIS sentences sent to that UDP
port come back through gpsd's client port, between its JSON reports.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ingest.test_sockets import collect
from tests.support.pg import unavailable
from vigia.ingest.decoder import Ingestor
from vigia.ingest.sources import GpsdSource
from vigia.service.runtime.feeds import sources_from_settings
from vigia.service.settings import IngestSettings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GPSD = shutil.which("gpsd") or "/usr/sbin/gpsd"


@pytest.fixture(autouse=True)
def _gpsd_installed() -> None:
    if not Path(GPSD).exists():
        unavailable("gpsd is not installed (a real gpsd serves these tests)")


def _free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def gpsd() -> Iterator[tuple[int, int]]:
    """(client port, UDP device port) of a private gpsd."""
    port, udp = _free_port(socket.SOCK_STREAM), _free_port(socket.SOCK_DGRAM)
    proc = subprocess.Popen(
        [GPSD, "-N", "-n", "-S", str(port), f"udp://127.0.0.1:{udp}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        yield port, udp
    finally:
        proc.terminate()
        proc.wait(10)


def test_gpsd_feed_relays_a_real_capture(gpsd: tuple[int, int]) -> None:
    port, udp = gpsd
    ais = [
        line
        for line in (FIXTURES / "gpsd_ais_raw_messages.log").read_text().splitlines()
        if line.startswith("!")
    ][:40]
    (src,) = sources_from_settings(
        IngestSettings(tcp_feeds=[f"gpsd://127.0.0.1:{port}"]), threading.Event()
    )
    assert isinstance(src, GpsdSource)
    stop = src.stop

    def send() -> None:
        time.sleep(1.0)  # gpsd must have our ?WATCH before the data
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
            for line in ais:
                tx.sendto((line + "\r\n").encode(), ("127.0.0.1", udp))
                time.sleep(0.01)

    threading.Thread(target=send, daemon=True).start()
    got = collect(src.lines(), len(ais), stop, timeout=20)
    assert [line.text for line in got] == ais  # the JSON reports were shed, not queued
    assert src.counts["gpsd_json"] >= 2  # VERSION, DEVICES, WATCH
    ing = Ingestor()
    recs = [r for line in got for r in ing.feed(line)]
    assert ing.counters.decoded_lines == len(ais) and len(recs) == ing.counters.messages == 39
