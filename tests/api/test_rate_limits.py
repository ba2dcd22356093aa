"""Request rates per API key and per client address (issue 31 item 1): a token bucket of
each, a 429 problem with Retry-After over either, before any key is looked up or body
read; /healthz never limited."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import Api, make_settings, start
from tests.api.test_hostile_bodies import Body
from vigia.service.errors import TooManyRequestsError
from vigia.service.http.rate_limit import MAX_BUCKETS, RateLimits
from vigia.service.settings import ApiSettings

NO_KEY: dict[bytes, bytes] = {}


def _key(key: str) -> dict[bytes, bytes]:
    return {b"x-api-key": key.encode()}


def _limits(**api: int) -> RateLimits:
    """Limits with only the given ones on."""
    return RateLimits(ApiSettings(**{"rate_per_address": 0, "rate_per_key": 0, **api}))


def _admitted(limits: RateLimits, n: int, address: str, headers: dict[bytes, bytes]) -> int:
    """How many of ``n`` requests in a row are admitted."""
    ok = 0
    for _ in range(n):
        try:
            limits.check("/leads", address, headers)
            ok += 1
        except TooManyRequestsError:
            pass
    return ok


def test_a_key_gets_its_burst_then_its_rate() -> None:
    limits = _limits(rate_per_key=4, rate_per_key_burst=10)
    assert _admitted(limits, 20, "10.0.0.1", _key("a")) == 10
    with pytest.raises(TooManyRequestsError) as refused:
        limits.check("/leads", "10.0.0.1", _key("a"))
    assert refused.value.retry_after_s == 1  # 0.25 s, rounded up to whole seconds
    assert "4 requests a second with this API key" in str(refused.value)
    # other keys have buckets of their own, and a Bearer key is the same key
    assert _admitted(limits, 10, "10.0.0.1", _key("b")) == 10
    assert _admitted(limits, 1, "10.0.0.1", {b"authorization": b"Bearer b"}) == 0
    slept = time.monotonic()
    time.sleep(0.55)  # two tokens back at 4 a second (more only on a stalled machine)
    back = _admitted(limits, 20, "10.0.0.1", _key("a"))
    assert 2 <= back <= 1 + 4 * (time.monotonic() - slept), back


def test_an_address_gets_its_burst_whatever_keys_it_invents() -> None:
    limits = _limits(rate_per_address=1, rate_per_address_burst=5, rate_per_key=100)
    assert sum(_admitted(limits, 1, "10.0.0.1", _key(f"k{i}")) for i in range(20)) == 5
    assert _admitted(limits, 3, "10.0.0.2", NO_KEY) == 3  # keyless: the address alone
    with pytest.raises(TooManyRequestsError, match="from this address"):
        limits.check("/leads", "10.0.0.1", NO_KEY)


def test_healthz_and_zero_limits_are_never_refused() -> None:
    limits = _limits(rate_per_key=1, rate_per_key_burst=1, rate_per_address=1,
                     rate_per_address_burst=1)  # fmt: skip
    for _ in range(50):
        limits.check("/healthz", "10.0.0.1", _key("a"))
    assert _admitted(_limits(), 1_000, "10.0.0.1", _key("a")) == 1_000


def test_buckets_are_bounded_and_a_forgotten_one_comes_back_full() -> None:
    limits = _limits(rate_per_key=1, rate_per_key_burst=2)
    assert _admitted(limits, 3, "a", _key("first")) == 2
    for i in range(MAX_BUCKETS):  # a client inventing keys pushes the oldest out
        limits.check("/leads", "a", _key(f"invented-{i}"))
    assert _admitted(limits, 3, "a", _key("first")) == 2


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Api]:
    """The app with tiny limits: 3 requests per key, 8 per address (TestClient's)."""
    settings = make_settings(
        f"sqlite:///{tmp_path / 'v.sqlite'}", tmp_path, rate_per_key=1, rate_per_key_burst=3,
        rate_per_address=1, rate_per_address_burst=8,
    )  # fmt: skip
    yield from start(settings)


def test_over_its_rate_a_key_gets_a_429_problem_with_retry_after(limited: Api) -> None:
    viewer = limited.h("viewer")
    assert [limited.client.get("/leads", headers=viewer).status_code for _ in range(3)] == [200] * 3
    r = limited.client.get("/leads", headers=viewer)
    assert r.status_code == 429, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.headers["retry-after"] == "1"
    assert r.headers["x-content-type-options"] == "nosniff"
    problem = r.json()
    assert problem["type"] == "urn:vigia:problem:too-many-requests" and problem["status"] == 429
    # another key still gets in, and liveness is never refused
    assert limited.client.get("/leads", headers=limited.h("inspector")).status_code == 200
    assert all(limited.client.get("/healthz").status_code == 200 for _ in range(20))
    # a refused upload is not read, and its connection is ended
    body = Body(20, size=1_000)
    r = limited.client.post("/ballast/assess", content=body, headers=viewer)
    assert r.status_code == 429 and body.pulled == 0
    assert r.headers["connection"] == "close"


def test_over_its_rate_an_address_gets_a_429_whatever_its_keys(limited: Api) -> None:
    # three keys, each within its own limit of 3, make 8 requests; then requests with no
    # key. The address's burst of 8 admits 8, then one more a second (the bucket refills
    # at 1/s while a loaded machine serves them): the refusal comes by request 9 plus the
    # seconds elapsed, whatever the keys
    keyed = [limited.h(role) for role in ("viewer", "inspector", "admin") for _ in range(3)]
    codes: list[int] = []
    t0 = time.monotonic()
    while not codes or codes[-1] != 429:
        headers = keyed[len(codes)] if len(codes) < 8 else {}
        r = limited.client.get("/leads", headers=headers)
        codes.append(r.status_code)
        assert len(codes) <= 9 + int(time.monotonic() - t0), codes
    assert codes[:8] == [200] * 8, codes
    assert "from this address" in r.json()["detail"]
