"""Real sockets on 127.0.0.1: a TCP feed that drops mid-sentence and comes back; UDP bursts.

Semantics: a sentence split across two reads of a live connection is joined; a sentence
the sender had not finished when the connection died is discarded by the client (and
counted), and the sender sends it whole again after reconnecting.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import RawLine
from vigia.ingest.sources import TcpSource, UdpSource

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LINES = [
    line.strip()
    for line in (FIXTURES / "pyais_nmea_data_sample.txt").read_text().splitlines()
    if line.startswith("!AIVDM,1,1") and len(line) > 40
]


def collect(
    source_lines: object, want: int, stop: threading.Event, timeout: float = 10.0
) -> list[RawLine]:
    """Consume lines in a thread until ``want`` arrived or ``timeout``; then stop."""
    got: list[RawLine] = []
    it = iter(source_lines)  # type: ignore[call-overload]

    def consume() -> None:
        for line in it:
            got.append(line)

    th = threading.Thread(target=consume, daemon=True)
    th.start()
    deadline = time.monotonic() + timeout
    while len(got) < want and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)  # anything extra (a duplicate) would arrive now
    stop.set()
    th.join(5)
    assert not th.is_alive(), "source did not stop when asked"
    return got


def test_tcp_feed_drops_mid_sentence_and_comes_back() -> None:
    lines = LINES[:10]
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def serve() -> None:
        # first connection: 5 whole lines, one line split over two writes with a pause
        # (two reads on the client), one more line, then half of line 7 and a drop
        conn, _ = server.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.sendall("".join(f"{s}\r\n" for s in lines[:5]).encode())
        time.sleep(0.15)
        half = len(lines[5]) // 2
        conn.sendall(lines[5][:half].encode())
        time.sleep(0.3)
        conn.sendall(f"{lines[5][half:]}\r\n{lines[6]}\r\n".encode())
        time.sleep(0.15)
        conn.sendall(lines[7][:20].encode())
        time.sleep(0.15)
        conn.close()
        # the feed comes back: the sender starts again with the sentence it never finished
        conn, _ = server.accept()
        conn.sendall("".join(f"{s}\r\n" for s in lines[7:]).encode())
        time.sleep(1.0)
        conn.close()
        server.close()

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    stop = threading.Event()
    src = TcpSource("127.0.0.1", port, backoff_initial=0.05, stop=stop)
    got = collect(src.lines(), len(lines), stop)
    assert [g.text.strip() for g in got] == lines  # none lost, none duplicated
    assert src.partial_lines_dropped == 1
    assert src.connections == 2
    assert all(g.source == f"tcp:127.0.0.1:{port}" for g in got)
    ing = Ingestor()
    recs = list(ing.feed_many(got))
    assert ing.counters.messages == len(lines) == len(recs)
    th.join(3)


def test_tcp_stop_while_nothing_listens() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    stop = threading.Event()
    src = TcpSource("127.0.0.1", port, backoff_initial=0.05, backoff_max=0.2, stop=stop)
    t0 = time.monotonic()
    got = collect(src.lines(), 1, stop, timeout=0.5)
    assert got == []
    assert src.connections == 0
    assert time.monotonic() - t0 < 3.0


def test_udp_burst_all_received() -> None:
    n = 500
    stop = threading.Event()
    src = UdpSource("127.0.0.1", 0, stop=stop)
    host, port = src.address
    payloads = [LINES[i % len(LINES)] for i in range(n)]

    def send() -> None:
        time.sleep(0.1)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for i in range(0, n, 2):
                # some datagrams carry two lines, as multiplexers send them
                if i % 10 == 0:
                    s.sendto(f"{payloads[i]}\r\n{payloads[i + 1]}\r\n".encode(), (host, port))
                else:
                    s.sendto(f"{payloads[i]}\r\n".encode(), (host, port))
                    s.sendto(f"{payloads[i + 1]}\n".encode(), (host, port))

    th = threading.Thread(target=send, daemon=True)
    th.start()
    got = collect(src.lines(), n, stop)
    th.join(2)
    assert [g.text for g in got] == payloads
    assert src.datagrams == n - n // 10
    ing = Ingestor()
    assert len(list(ing.feed_many(got))) == ing.counters.messages == n
