"""Real sockets on 127.0.0.1: fragments joined per sender, every report kept, bounded input.

Covers issue 9 cases 3 and 4 and issue 15 items 3 and 10 (hostile lengths and floods).
"""

from __future__ import annotations

import os
import socket
import threading
import time

from pyais import decode as pyais_decode
from pyais import encode_dict

from tests.ingest.test_sockets import collect
from tests.support.nmea import sentence, tag_block
from vigia.ingest.decoder import MAX_LINE_CHARS, Ingestor
from vigia.ingest.records import Position, RawLine, StaticData
from vigia.ingest.sources import TcpSource, UdpSource

# two real two-part type 5 messages with the same sequence id and channel (pyais test data)
T5_A = (
    "!AIVDM,2,1,1,A,55?MbV02;H;s<HtKR20EHE:0@T4@Dn2222222216L961O5Gf0NSQEp6ClRp8,0*1C",
    "!AIVDM,2,2,1,A,88888888880,2*25",
)
T5_B = (
    "!AIVDM,2,1,1,A,538CQ>02A;h?D9QC800pu8@T>0P4l9E8L0000017Ah:;;5r50Ahm5;C0,0*07",
    "!AIVDM,2,2,1,A,F@V@00000000000,2*35",
)
POS = "!AIVDM,1,1,,B,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"


def test_two_receivers_interleaving_on_one_udp_port_are_not_mixed() -> None:
    stop = threading.Event()
    src = UdpSource("127.0.0.1", 0, stop=stop)
    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        got: list[RawLine] = []
        th = threading.Thread(target=lambda: got.extend(collect(src.lines(), 4, stop)))
        th.start()
        time.sleep(0.1)
        for sock, text in ((a, T5_A[0]), (b, T5_B[0]), (a, T5_A[1]), (b, T5_B[1])):
            sock.sendto((text + "\r\n").encode(), src.address)
            time.sleep(0.02)
        th.join(15)
    finally:
        a.close()
        b.close()
    assert len({line.peer for line in got}) == 2
    ing = Ingestor()
    recs = [r for line in got for r in ing.feed(line)]
    want = {pyais_decode(*T5_A).mmsi: pyais_decode(*T5_A), pyais_decode(*T5_B).mmsi: None}
    want[pyais_decode(*T5_B).mmsi] = pyais_decode(*T5_B)
    assert len(recs) == 2 and ing.counters.orphan_fragment == 0
    for rec in recs:
        assert isinstance(rec, StaticData)
        oracle = want[rec.mmsi]
        assert oracle is not None
        assert rec.name == oracle.shipname.strip()
        assert rec.destination == oracle.destination.strip()


def test_five_reports_in_one_datagram_stay_five_in_order() -> None:
    stop = threading.Event()
    src = UdpSource("127.0.0.1", 0, stop=stop)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        got: list[RawLine] = []
        th = threading.Thread(target=lambda: got.extend(collect(src.lines(), 5, stop)))
        th.start()
        time.sleep(0.1)
        # five different reports of one vessel, as a burst from one receiver
        five = [
            encode_dict({"type": 1, "mmsi": 710000123, "lon": -43.1 + k * 1e-3, "lat": -22.9})[0]
            for k in range(5)
        ]
        tx.sendto(("\r\n".join(five) + "\r\n").encode(), src.address)
        th.join(15)
    assert len(got) == 5 and len({line.received_at for line in got}) == 1  # one read
    ing = Ingestor()
    recs = [r for line in got for r in ing.feed(line)]
    times = [r.t for r in recs]
    assert len(recs) == 5 and all(isinstance(r, Position) for r in recs)
    assert len(set(times)) == 5 and times == sorted(times)  # five rows, keyed (mmsi, t)
    assert max(times) - min(times) < 0.001  # still the time they were received
    assert [r.lon for r in recs] == sorted(r.lon for r in recs)  # in the order sent


def test_the_same_untimed_sentence_twice_in_one_read_is_one_report() -> None:
    ing = Ingestor()
    other = "!AIVDM,1,1,,A,13HOI:0P0000VOHLCnHQKwvL05Ip,0*23"
    recs = [r for text in (POS, other, POS) for r in ing.feed(RawLine(text, 1.8e9, "udp"))]
    assert recs[0].t == recs[2].t != recs[1].t  # heard twice: one (mmsi, t) row


def test_a_tcp_line_without_newline_is_bounded_and_linear() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    junk = b"!" + b"A" * (32 << 20)  # 32 MB with no newline, then a real sentence

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.sendall(junk)
            conn.sendall(b"\r\n" + POS.encode() + b"\r\n")
            time.sleep(1.0)

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    stop = threading.Event()
    src = TcpSource("127.0.0.1", port, stop=stop)
    t0 = time.process_time()
    got = collect(src.lines(), 1, stop, timeout=30)
    cpu = time.process_time() - t0
    server.close()
    assert [line.text for line in got] == [POS]
    assert src.counts["too_long"] == 1
    assert cpu < 8.0  # quadratic joining took tens of CPU seconds on this much


def test_a_checksummed_megabyte_sentence_is_refused_not_decoded() -> None:
    fields = POS[1 : POS.rindex("*")].split(",")
    fields[5] += "0" * (1 << 20)
    ing = Ingestor()
    assert ing.feed(RawLine(sentence(",".join(fields)), 1.8e9, "feed")) == []
    assert ing.counters.too_long == 1 and ing.counters.decoded_lines == 0
    assert ing.feed(RawLine("x" * (MAX_LINE_CHARS + 1), 1.8e9, "feed")) == []
    assert ing.counters.too_long == 2


def test_pending_fragments_are_bounded_in_bytes() -> None:
    ing = Ingestor(max_pending_bytes=1 << 20)
    first = T5_A[0]
    for i in range(20_000):  # first halves that never complete, each from its own peer
        ing.feed(RawLine(first, 1.8e9 + i * 1e-3, "udp", f"10.0.{i // 250}.{i % 250}:4000"))
    c = ing.counters
    assert ing._reasm.bytes <= 1 << 20
    assert c.pending_evicted > 0
    assert c.orphan_fragment + ing.pending_fragments == 20_000
    ing.flush()
    assert c.outcomes() == c.lines


def test_udp_garbage_is_shed_before_it_reaches_the_worker() -> None:
    stop = threading.Event()
    src = UdpSource("127.0.0.1", 0, stop=stop, rcvbuf=16 << 20)
    got: list[RawLine] = []
    th = threading.Thread(target=lambda: got.extend(collect(src.lines(), 1, stop, 20)))
    th.start()
    time.sleep(0.1)

    def send(tx: socket.socket, data: bytes) -> None:
        # one datagram at a time, read before the next: a burst of 60 KB datagrams
        # overflows the kernel's buffer (net.core.rmem_max caps rcvbuf), and what the
        # kernel drops never reaches the source to be counted
        before = src.datagrams
        tx.sendto(data, src.address)
        deadline = time.monotonic() + 5
        while src.datagrams == before:
            assert time.monotonic() < deadline, "the source read nothing"
            time.sleep(0.0005)

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        blob = os.urandom(60_000)
        for i in range(200):
            send(tx, bytes(b % 32 + 64 for b in blob[i:] + blob[:i]))
        for _ in range(50):  # garbage that starts like a sentence, 60 KB without newline
            send(tx, b"!AIVDM," * 9_000)
        send(tx, (POS + "\r\n").encode())
        th.join(25)
    assert [line.text for line in got] == [POS]
    assert src.counts["garbage_datagrams"] == 200
    assert src.counts["too_long"] == 50


def test_a_replay_never_joins_fragments_hours_apart_in_file_time() -> None:
    # a replay reads hours of a file in a second: the timeout also runs on message time
    ing = Ingestor()
    t0 = 1_428_451_206
    tag0 = f"c:{t0}"
    tag1 = f"c:{t0 + 600}"

    lines = [tag_block(tag0) + T5_A[0], tag_block(tag1) + T5_B[1]]  # same sequence id and channel
    recs = [r for text in lines for r in ing.feed(RawLine(text, 1.8e9, "archive.nmea"))]
    assert recs == [] and ing.counters.orphan_fragment == 1 and ing.pending_fragments == 1
