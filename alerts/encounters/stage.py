"""The encounter watch inside the lead pipeline: a mixin of
:class:`~vigia.alerts.pipeline.LeadPipeline`, so replay and the single-process worker
raise ``STS-ENCOUNTER`` and ``LOITER`` with the rest.

The watch is made at first use (``encounters``); a broker partition sets it to None,
since it sees only its own vessels and a stage of its own pairs across them
(service/runtime/bus/pairing.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.encounters.config import EncounterConfig
from vigia.alerts.encounters.watch import EncounterWatch
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.lead import Lead
from vigia.ingest.records import Record
from vigia.zones.evaluate import ZoneIndex


class Pairing:
    """Feeds the watch, settles it with the pipeline, adds its leads (module docstring)."""

    index: ZoneIndex
    config: EpisodeConfig
    register: AuthorisedRegister
    counters: dict[str, int]
    encounters: EncounterWatch | None

    def _watch(self) -> EncounterWatch | None:
        d = self.__dict__
        if "encounters" not in d:  # a new pipeline, or one checkpointed before issue 37
            cfg = self.config
            d["encounters"] = EncounterWatch(
                self.index, EncounterConfig(), cfg.lateness_s, cfg.installation_radius_m
            )
        w: EncounterWatch | None = d["encounters"]
        if w is not None:
            w.register = self.register  # the register an admin last loaded
        return w

    def _pair_feed(self, records: Sequence[Record]) -> Sequence[Record]:
        """The batch, after the watch has taken it."""
        w = self._watch()
        if w is not None:
            w.feed(records)
        return records

    def expire(self, now: float, *, final: bool = False) -> list[Lead]:
        """The pipeline's settling (alerts/settling.py), then the watch's."""
        out: list[Lead] = super().expire(now, final=final)  # type: ignore[misc]
        w = self._watch()
        if w is not None:
            got = w.expire(now, final=final)
            self.counters["leads_closed"] += len(got)
            self.counters.update(w.counters)
            out += got
        return out

    def _pair_open(self) -> list[Lead]:
        w = self._watch()
        return [] if w is None else w.open_leads()

    def _pair_revisions(self) -> list[Lead]:
        w = self._watch()
        return [] if w is None else w.take_revisions()

    def _pair_moved(self, index: ZoneIndex) -> EncounterWatch | None:
        """The watch, carried onto a new zone index (a zone edit keeps every track)."""
        w = self._watch()
        if w is not None:
            w.index = index
        return w
