"""Request bodies have a deadline (issue 31 item 3): with a valid viewer key, a body that
trickles and 200 that never come are cut once ``VIGIA_API_BODY_TIMEOUT_S`` has passed since
their headers, on a real ``vigia serve``; a slow body complete within it is served."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from tests.live.service import Service, closed_within, sent_in_two

pytestmark = pytest.mark.slow

TIMEOUT_S = 2.0
BODY = json.dumps({"points": [{"lat": -27.0, "lon": -38.0}]}).encode()


def _head(key: str, length: int = len(BODY), close: bool = False) -> bytes:
    return (
        f"POST /ballast/assess HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n"
        + ("Connection: close\r\n" if close else "")
        + "\r\n"
    ).encode()


def test_slow_bodies_are_cut_at_their_deadline(tmp_path: Path) -> None:
    env = {"VIGIA_API_BODY_TIMEOUT_S": str(TIMEOUT_S)}
    svc = Service(tmp_path, f"sqlite:///{tmp_path / 'v.sqlite'}", env_extra=env).start()
    socks: list[socket.socket] = []
    try:
        status, made = svc.request("POST", "/apikeys", {"role": "viewer", "name": "slow"})
        assert status == 201, made
        key = made["key"]
        opened = time.monotonic()
        trickler = socket.create_connection(("127.0.0.1", svc.port))
        trickler.sendall(_head(key, 10_000) + b'{"points": ')
        for _ in range(200):  # headers and a declared length, then nothing
            s = socket.create_connection(("127.0.0.1", svc.port))
            s.sendall(_head(key, 10_000))
            socks.append(s)
        # a byte every 0.3 s: a deadline, not an idle timer
        while time.monotonic() - opened < TIMEOUT_S - 0.3:
            trickler.sendall(b" ")
            time.sleep(0.3)
        assert not closed_within(trickler, time.monotonic() + 0.01), "cut before its deadline"
        deadline = opened + TIMEOUT_S + 3.0  # a margin for a loaded machine
        assert closed_within(trickler, deadline), "the trickled body was never cut"
        still_open = [i for i, s in enumerate(socks) if not closed_within(s, deadline)]
        assert still_open == [], f"{len(still_open)} of 200 silent bodies still open"

        # the other side of the deadline: a body sent slowly, complete after about half of
        # it, is served
        answer = sent_in_two(svc.port, _head(key, close=True) + BODY[:10], BODY[10:], TIMEOUT_S / 2)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
    finally:
        for s in socks:
            s.close()
        svc.stop()
