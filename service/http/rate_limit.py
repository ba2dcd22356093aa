"""Request rates per API key and per client address, so that no client starves the others.

Each key and each address has a token bucket (``VIGIA_API_RATE_PER_KEY`` requests a second
refill a bucket of ``VIGIA_API_RATE_PER_KEY_BURST``; the same for ``..._PER_ADDRESS``). A
request over either gets a 429 with ``Retry-After`` from the request guard, before its key
is looked up, its body read or a thread taken: a flood costs the service a dictionary
look-up a request. ``/healthz`` is never limited (a liveness probe must not be refused).

The buckets are throttled-py's GCRA limiter (the token bucket as one timestamp a key, on
a monotonic clock, with the exact wait for Retry-After) over its memory store, which keeps
at most ``MAX_BUCKETS`` keys, least recently used first out: a client inventing a new key
(or address) for every request cannot grow the service's memory. An evicted bucket comes
back full, which can only favour the client it belonged to; the inventor is still held by
its address's bucket.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from throttled import MemoryStore, RateLimiterType, Throttled, per_sec

from vigia.service.errors import TooManyRequestsError
from vigia.service.http.deps import hash_key
from vigia.service.settings import ApiSettings

#: keys (or addresses) remembered per limit; 10,000 buckets are about 2 MB
MAX_BUCKETS = 10_000
#: routes no limit applies to
EXEMPT_PATHS = frozenset({"/healthz"})


def _bucket(rate: int, burst: int) -> Throttled | None:
    if rate <= 0:
        return None
    store = MemoryStore(options={"MAX_SIZE": MAX_BUCKETS})
    return Throttled(using=RateLimiterType.GCRA.value, quota=per_sec(rate, burst), store=store)


def api_key(headers: Mapping[bytes, bytes]) -> str | None:
    """The key a request presents (``X-API-Key``, else ``Authorization: Bearer``), unchecked."""
    key = headers.get(b"x-api-key")
    if key:
        return key.decode("latin-1")
    scheme, _, token = headers.get(b"authorization", b"").partition(b" ")
    if scheme.lower() == b"bearer" and token.strip():
        return token.strip().decode("latin-1")
    return None


class RateLimits:
    """The per-key and per-address buckets of one app; :meth:`check` spends a token of
    each that applies, or raises :class:`TooManyRequestsError`."""

    def __init__(self, api: ApiSettings) -> None:
        self.per_key, self.key_burst = api.rate_per_key, api.rate_per_key_burst
        self.per_address, self.address_burst = api.rate_per_address, api.rate_per_address_burst
        self._keys = _bucket(self.per_key, self.key_burst)
        self._addresses = _bucket(self.per_address, self.address_burst)

    def check(self, path: str, address: str | None, headers: Mapping[bytes, bytes]) -> None:
        """Admit one request from ``address`` with ``headers``, or raise."""
        if path in EXEMPT_PATHS:
            return
        if self._addresses is not None and address:
            self._spend(self._addresses, address, "from this address", self.per_address)
        key = api_key(headers) if self._keys is not None else None
        if self._keys is not None and key:
            # by its hash: the buckets need no secret
            self._spend(self._keys, hash_key(key), "with this API key", self.per_key)

    @staticmethod
    def _spend(bucket: Throttled, who: str, said: str, rate: int) -> None:
        result = bucket.limit(who)
        if result.limited:
            # whole seconds (RFC 9110), rounded up so that a client that waits is admitted
            wait = max(1, math.ceil(result.state.retry_after))
            raise TooManyRequestsError(
                f"more than {rate} requests a second {said}; try again in {wait} s", wait
            )
