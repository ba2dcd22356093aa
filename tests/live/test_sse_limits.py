"""Event streams are limited per key and in total (issue 21 item 8): one over a limit is
refused with a 429 and ``Retry-After``, and a closed stream frees its place."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.live.service import ADMIN_KEY, Service, SseClient

pytestmark = pytest.mark.slow

LIMITS = {
    "VIGIA_LIVE_SSE_MAX_PER_KEY": "2",
    "VIGIA_LIVE_SSE_MAX_TOTAL": "3",
    "VIGIA_LIVE_SSE_RETRY_AFTER_S": "7",
}


def _refused(url: str, key: str) -> dict[str, str]:
    """The problem a refused stream gets (a stream that opens fails the test at once)."""
    with httpx.stream("GET", url, headers={"X-API-Key": key}, timeout=10) as r:
        assert r.status_code == 429, r.status_code
        assert r.headers["Retry-After"] == "7"
        assert r.headers["content-type"] == "application/problem+json"
        problem: dict[str, str] = r.read() and r.json()
        return problem


def test_streams_over_the_limits_get_429_with_retry_after(tmp_path: Path) -> None:
    svc = Service(tmp_path, f"sqlite:///{tmp_path / 'v.sqlite'}", env_extra=LIMITS).start()
    url = f"{svc.base}/leads/stream"
    streams: list[SseClient] = []
    try:
        status, made = svc.request("POST", "/apikeys", {"role": "viewer", "name": "wall"})
        assert status == 201
        viewer = made["key"]
        for _ in range(2):  # the admin key's two
            streams.append(SseClient(url))
            assert streams[-1].connected.wait(20) and streams[-1].error is None
        assert "this key" in _refused(url, ADMIN_KEY)["detail"]
        streams.append(SseClient(url, key=viewer))  # another key: the third in total
        assert streams[-1].connected.wait(20) and streams[-1].error is None
        assert "the service" in _refused(url, viewer)["detail"]
        # a refused stream took no place; a closed one gives its place back
        streams.pop(0).close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            again = SseClient(url, key=ADMIN_KEY)
            assert again.connected.wait(20)
            if again.error is None:
                streams.append(again)
                break
            time.sleep(0.5)  # the server notices the closed stream at its next ping
        else:
            raise AssertionError("the closed stream's place was never given back")
        assert svc.request("GET", "/healthz")[0] == 200
    finally:
        for s in streams:
            s.close()
        svc.stop()
