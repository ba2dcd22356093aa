"""What the writer does with a batch the store refuses: the store is away, or a row is bad.

A store that cannot be reached (StoreUnavailableError, or any error while it does not
answer a ping) leaves the batch whole, for the writer's thread to retry with backoff
(Transient); a store that answers and still refuses the batch was given a bad row, found
by halving the batch and rejected alone (counted as ``rejected``), so that one record
the store will never take cannot hold up the rest. A mixin of the BufferedWriter
(vigia.service.runtime.writer), kept apart so that its buffers and its thread read in
one sitting.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from vigia.alerts.identity.history import HistoryOut
from vigia.ingest.records import VesselInfo
from vigia.service.db.protocol import Repository
from vigia.service.errors import StoreUnavailableError

# the writer's messages: logged under the writer's name, as before they moved here
log = logging.getLogger("vigia.service.runtime.writer")
T = TypeVar("T")


class Transient(Exception):
    """The database is unreachable: keep the batch and retry later."""


class IsolatesRefusals:
    """Mixed into BufferedWriter: needs its store, its lock, its counts and last error."""

    _repo: Repository
    _cond: threading.Condition
    _counts: dict[str, int]
    _last_error: str | None

    def _write_static(self, vessels: list[VesselInfo], history: HistoryOut) -> None:
        # one transaction; refused (the store not away): each part alone, a bad row alone
        try:
            return self._repo.upsert_vessels(vessels, history)
        except StoreUnavailableError as exc:
            raise Transient(str(exc)) from exc
        except Exception as exc:
            if not self._repo.ping():
                raise Transient(str(exc)) from exc
        self._isolate(vessels, self._repo.upsert_vessels)
        self._isolate([history], lambda h: self._repo.upsert_vessels([], h[0]))

    def _isolate(self, items: list[T], write: Callable[[list[T]], Any]) -> int:
        """Write ``items``; on an error that is not the database being away, halve the
        batch until the offending item is found and reject only it."""
        try:
            result = write(items)
        except StoreUnavailableError as exc:
            raise Transient(str(exc)) from exc
        except Exception as exc:
            if not self._repo.ping():
                raise Transient(str(exc)) from exc
            if len(items) == 1:
                log.error("store refused %r: %s", items[0], exc)
                with self._cond:
                    self._counts["rejected"] += 1
                    self._last_error = f"rejected: {exc}"
                return 0
            mid = len(items) // 2
            return self._isolate(items[:mid], write) + self._isolate(items[mid:], write)
        return int(result) if isinstance(result, int) else len(items)
