"""How many event streams may be open at once, per API key and in total.

A stream holds a connection, a subscription and its share of every event for as long as
the client likes; without a bound a few clients (or one key in a loop) could take the
service from everyone else. One stream over a limit is refused with a 429 and
``Retry-After`` before anything is subscribed.
"""

from __future__ import annotations

import threading
from collections import Counter

from vigia.service.errors import TooManyRequestsError


class StreamLimits:
    """Counts open streams; :meth:`acquire` refuses one over either limit."""

    def __init__(self, per_key: int, total: int, retry_after_s: int) -> None:
        self.per_key, self.total, self.retry_after_s = per_key, total, retry_after_s
        self._open: Counter[int] = Counter()
        self._lock = threading.Lock()

    def acquire(self, key_id: int) -> None:
        """Count one more stream of ``key_id``, or raise :class:`TooManyRequestsError`."""
        with self._lock:
            if sum(self._open.values()) >= self.total:
                raise TooManyRequestsError(
                    f"the service has {self.total} open event streams, its limit; try again later",
                    self.retry_after_s,
                )
            if self._open[key_id] >= self.per_key:
                raise TooManyRequestsError(
                    f"this key has {self.per_key} open event streams, its limit; close one "
                    "or try again later",
                    self.retry_after_s,
                )
            self._open[key_id] += 1

    def release(self, key_id: int) -> None:
        """One stream of ``key_id`` has ended."""
        with self._lock:
            self._open[key_id] -= 1
            if self._open[key_id] <= 0:
                del self._open[key_id]

    def open_streams(self) -> int:
        """Streams counted now."""
        with self._lock:
            return sum(self._open.values())
