"""Settled port visits from the pipeline to the store (issue 33).

Visits are settled by the pipeline's expiry pass (``alerts.ports.stage``); this stores
them right after it. A store that cannot be reached leaves them with the pipeline, in
front of the next ones, for the next tick: a visit is stored once (its id is the key)
and not lost to an outage of the database.
"""

from __future__ import annotations

import logging
from typing import Any

from vigia.alerts.lead import Lead
from vigia.service.db.protocol import Repository
from vigia.service.errors import StoreUnavailableError

log = logging.getLogger(__name__)


def expire_and_store(pipeline: Any, repo: Repository, now: float) -> list[Lead]:
    """``pipeline.expire(now)``, then the visits it settled into ``repo``."""
    leads: list[Lead] = pipeline.expire(now)
    visits = pipeline.take_port_visits()
    if visits:
        try:
            repo.add_port_visits(visits)
        except StoreUnavailableError as exc:
            log.warning("%d port visits wait for the store: %s", len(visits), exc)
            pipeline.__dict__["_port_out"] = visits + pipeline.take_port_visits()
    return leads
