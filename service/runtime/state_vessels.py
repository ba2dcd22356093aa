"""The register of state vessels at run time (issue 34): the bundled seed offered once
to the store, and the register handed to a pipeline (the ingest worker at start and
after an edit, broker-mode partitions, a replay), which judges with it from its next
position on."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from vigia.alerts.identity.state_register import StateVessel, StateVessels, parse_csv
from vigia.ingest.errors import IngestError, VigiaError

if TYPE_CHECKING:  # a replay reads a register without the store's or the settings' imports
    from vigia.alerts.pipeline import LeadPipeline
    from vigia.service.db.protocol import Repository
    from vigia.service.settings import ZoneSettings

log = logging.getLogger("vigia.state_vessels")


def bundled_file() -> Path:
    """The bundled seed: vigia/data/state_vessels.csv in an installed wheel, the
    repository's data/state_vessels.csv in a checkout (this module is three folders
    below either)."""
    return Path(__file__).resolve().parents[2] / "data" / "state_vessels.csv"


def read_file(path: str | Path) -> list[StateVessel]:
    """A register CSV (``mmsi,name,kind,source,valid_from,valid_to,note``), all or
    nothing: a bad row raises naming its line."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise IngestError(f"cannot read {path}: {exc}") from None
    return parse_csv(text)


def seed(repo: Repository, settings: ZoneSettings) -> int:
    """Offer the bundled (or configured) register to the store: stored only into a store
    that never had it offered and holds no entry, so an admin's edits are never
    overwritten. Returns how many entries were stored."""
    if not settings.load_bundled:
        return 0
    path = settings.state_vessels_file or bundled_file()
    try:
        stored = repo.seed_state_vessels(read_file(path))
    except VigiaError as exc:  # a bad seed file must not keep the service from starting
        log.warning("bundled state vessels not loaded from %s: %s", path, exc)
        return 0
    log.log(logging.INFO if stored else logging.DEBUG, "%d state vessels from %s", stored, path)
    return stored


def apply(pipeline: LeadPipeline, entries: Iterable[StateVessel]) -> None:
    """Judge from the next position on with this register. One attribute swap: the
    pipeline reads it once per judgement."""
    pipeline.state_vessels = StateVessels(entries)


class ReloadsStateVessels:
    """Mixed into the ingest worker: the register its pipeline judges with."""

    _pipeline: LeadPipeline

    def reload_state_vessels(self, entries: Iterable[StateVessel]) -> None:
        """Judge from now on with this register of state vessels (loaded from the store at
        start, handed over again after an edit through the API)."""
        apply(self._pipeline, entries)


class Poll:
    """The register as the store has it, for a broker-mode evaluation worker: read when
    a partition is taken and again every ``every_s`` (an edit through the API reaches
    the workers within that), and handed to every pipeline it holds."""

    def __init__(
        self, repo: Repository, every_s: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._repo = repo
        self._every = every_s
        self._clock = clock
        self._at = -math.inf
        self._seen: list[StateVessel] | None = None
        self.register = StateVessels()

    async def refresh(self, pipelines: Iterable[LeadPipeline], *, now: bool = False) -> bool:
        """Read the store if ``now`` or if the last read is ``every_s`` old; when the
        register changed, hand it to ``pipelines``. A store that does not answer keeps
        the register last read (logged). True if the register changed."""
        if not now and self._clock() - self._at < self._every:
            return False
        self._at = self._clock()
        try:
            entries = await asyncio.to_thread(self._repo.list_state_vessels)
        except Exception:
            log.warning("state vessels not read; judging with the %d held", len(self.register))
            return False
        if entries == self._seen:
            return False
        if self._seen is not None:
            log.info("state vessels changed: %d entries now", len(entries))
        self._seen = entries
        self.register = StateVessels(entries)
        for pipeline in pipelines:
            pipeline.state_vessels = self.register
        return True
