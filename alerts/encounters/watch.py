"""The encounter and loitering watch: records in, leads out, on the stream's clock.

Every decision is taken on finished slots: slot ``k`` (time ``k * 600``) is settled once
its era's clock less the lateness bound has passed it by the interpolation limit (1 h)
and a slot, so every fix that could place a vessel there is in, and nothing later can
change it. Slots are settled in time order: positions, then pairs (``pairing``), then
runs (``runs``). A fix that would change a settled slot is past the bound: counted,
not used. So the same records give the same leads however they arrive, the same rule
the pipeline keeps for one vessel (docs/leads.md, "The same leads however the data
arrives"). A meeting under way is shown earlier, as an open provisional lead, from the
slots settled so far.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.encounters.config import EncounterConfig
from vigia.alerts.encounters.early import early_pairs
from vigia.alerts.encounters.exempt import loiter_grounds, meeting_exemption, shore_nm
from vigia.alerts.encounters.leads import encounter_lead, loiter_lead, pair_id
from vigia.alerts.encounters.pairing import geodesic_m, near_pairs
from vigia.alerts.encounters.runs import DriftRun, PairRun, Sample, Silence
from vigia.alerts.encounters.tracks import Info, Track, fix_of
from vigia.alerts.eras import Eras
from vigia.alerts.identity.interference import InterferenceWatch
from vigia.alerts.lead import Lead, lead_id
from vigia.ingest.records import Position, Record, StaticData, iso_utc
from vigia.zones.evaluate import ZoneIndex

#: samples kept per drifting run (a moored installation drifts for months); later slots
#: extend the run without being kept
MAX_DRIFT_SAMPLES = 2_016
#: slots a silence is kept for as a possible dark partner (a day of 10-min slots)
SILENCE_KEEP_SLOTS = 144


class EncounterWatch:
    """Pairs and drifting across every vessel it is fed (see module docstring)."""

    def __init__(
        self,
        index: ZoneIndex,
        cfg: EncounterConfig | None = None,
        lateness_s: float = 7_200.0,
        installation_m: float = 100.0,
    ) -> None:
        self.index = index
        self.cfg = cfg or EncounterConfig()
        self.lateness_s = lateness_s
        self.installation_m = installation_m
        # the authorised-vessel register (supply vessels of a platform); swapped by owners
        self.register = AuthorisedRegister()
        self._span = math.ceil(self.cfg.max_gap_s / self.cfg.slot_s)
        self._tracks: dict[int, Track] = {}
        self._by_iv: dict[int, set[int]] = {}
        self._next_k: int | None = None
        self._now = -math.inf
        self._eras = Eras()
        self._pairs: dict[tuple[int, int], PairRun] = {}
        self._drifts: dict[int, DriftRun] = {}
        self._silences: list[Silence] = []
        self._closed: list[Lead] = []
        # open leads given out, by id, as last given (withdrawn if they do not last)
        self._shown: dict[str, Lead] = {}
        # open leads, with the (first unsettled, stream clock's) slots they were made at:
        # recomputed when either moves on
        self._open: tuple[tuple[int, int], list[Lead]] | None = None
        self._revisions: list[Lead] = []
        self.counters: dict[str, int] = {}
        # many vessels jumping to one spot at once (ID-INTERFERENCE) rides here: this is
        # the one cross-vessel watch that replay, the single-process worker and broker
        # mode's pairing stage (service/runtime/bus/pairing.py) all feed every record,
        # so its leads are the same in every mode, in this watch's checkpoint
        self.interference = InterferenceWatch(lateness_s)

    def _count(self, key: str, n: int = 1) -> None:
        self.counters[key] = self.counters.get(key, 0) + n

    # -- input -------------------------------------------------------------------------

    def _interference(self) -> InterferenceWatch:
        """The interference watch (made here for a watch checkpointed before it was)."""
        w: InterferenceWatch | None = self.__dict__.get("interference")
        if w is None:
            w = self.interference = InterferenceWatch(self.lateness_s)
        return w

    def feed(self, records: Iterable[Record]) -> None:
        """Take records of any vessels, in any order."""
        records = records if isinstance(records, list | tuple) else list(records)
        self._interference().feed(records)
        s, g = self.cfg.slot_s, self.cfg.max_gap_s
        eras = self._eras
        for r in records:
            kind = type(r)
            if kind is StaticData:
                self._track(r.mmsi).add_static(r)  # type: ignore[arg-type]
                continue
            if kind is not Position:
                continue
            fix = fix_of(r)  # type: ignore[arg-type]
            if fix is None:
                continue
            t = fix.t
            if self._next_k is not None and math.ceil((t - g) / s) < self._next_k:
                self._count("encounter_late_past_bound")  # would change a settled slot
                continue
            if t > self._now or t < eras.floor:
                self._now = eras.tick(t, self._now)
            k = math.floor(t / s)
            self._track(r.mmsi).add(k, fix)
            self._by_iv.setdefault(k, set()).add(r.mmsi)

    def _track(self, mmsi: int) -> Track:
        tr = self._tracks.get(mmsi)
        if tr is None:
            tr = self._tracks[mmsi] = Track()
        return tr

    # -- settling ----------------------------------------------------------------------

    def expire(self, now: float, *, final: bool = False) -> list[Lead]:
        """Settle every slot the clock ``now`` less the bound has passed by the
        interpolation limit (every slot on ``final``: the input is complete)."""
        cfg = self.cfg
        s, span = cfg.slot_s, self._span
        self._now = max(self._now, now)
        self._eras.settle(now)
        while self._by_iv:
            first = min(self._by_iv)
            k = first if self._next_k is None else self._next_k
            if k < first - span:
                # nothing near for a while: every run has ended; go on at the next data
                self._end_all()
                k = first - span
            t = k * s
            if not final:
                w = self._eras.clock(t, now) - self.lateness_s
                if not w > t + cfg.max_gap_s + s:
                    break
            self._settle_slot(k)
            self._next_k = k + 1
            for j in [j for j in self._by_iv if j < k + 1 - span]:
                for m in self._by_iv.pop(j):
                    tr = self._tracks.get(m)
                    if tr is not None:
                        tr.intervals.pop(j, None)
                        if not tr.intervals and not tr.statics:
                            del self._tracks[m]
            if k % SILENCE_KEEP_SLOTS == 0:
                self._forget(k * s - SILENCE_KEEP_SLOTS * s)
        if final:
            self._end_all()
        out, self._closed = self._closed, []
        iw = self._interference()
        out += iw.expire(now, final=final)
        self.counters.update(iw.counters)
        return out

    def _forget(self, before: float) -> None:
        """Vessels with no fix kept and no static report since ``before`` (a day): what
        they said of themselves is sent again every 6 minutes while they sail."""
        for m in [
            m
            for m, tr in self._tracks.items()
            if not tr.intervals and (not tr.statics or tr.statics[-1][0] < before)
        ]:
            del self._tracks[m]  # fmt: skip

    def _settle_slot(self, k: int) -> None:
        cfg = self.cfg
        span = self._span
        cands: set[int] = set()
        for j in range(k - span, k + span + 1):
            cands.update(self._by_iv.get(j, ()))
        slow: list[Sample] = []
        who: list[int] = []
        t = k * cfg.slot_s
        for m in sorted(cands):
            tr = self._tracks[m]
            p = tr.at(k, cfg.slot_s, cfg.max_gap_s)
            if p is None:
                continue
            fix = p.before if t - p.before.t <= p.after.t - t else p.after
            if tr.at(k + 1, cfg.slot_s, cfg.max_gap_s) is None:
                self._silences.append(Silence(k, m, p.lon, p.lat))
            if p.sog is not None and p.sog < cfg.max_sog_kn:
                slow.append(Sample(k, p.lon, p.lat, p.sog, fix))
                who.append(m)
        self._count("encounter_slots")
        self._count("encounter_slow_positions", len(slow))
        for m, x in zip(who, slow, strict=True):
            run = self._drifts.get(m)
            if run is not None and run.last == k - 1:
                if len(run.samples) < MAX_DRIFT_SAMPLES:
                    run.add(x)
                else:
                    run.last = k
            else:
                if run is not None:
                    self._end_drift(run)
                self._drifts[m] = DriftRun(m, k, k, [x])
        pairs = near_pairs(
            who, [x.lon for x in slow], [x.lat for x in slow], cfg.near_m, cfg.h3_res
        )
        self._count("encounter_pairs_measured", len(pairs))
        for i, j, d in pairs:
            key = (who[i], who[j])
            pr = self._pairs.get(key)
            if pr is None or pr.last != k - 1:
                if pr is not None:
                    self._end_pair(pr)
                pr = self._pairs[key] = PairRun(key[0], key[1], k, k)
            pr.add(slow[i], slow[j], d)
        for key in [key for key, pr in self._pairs.items() if pr.last < k]:
            self._end_pair(self._pairs.pop(key))
        for m in [m for m, run in self._drifts.items() if run.last < k]:
            self._end_drift(self._drifts.pop(m))
        # silences are kept while a drifting run they could be the dark partner of lasts,
        # a day at most (an installation drifts for months: all else would be kept)
        start = min((r.start for r in self._drifts.values()), default=k)
        floor = max(start, k - SILENCE_KEEP_SLOTS) - span
        if self._silences and self._silences[0].k < floor:
            self._silences = [x for x in self._silences if x.k >= floor]

    def _end_all(self) -> None:
        for pr in sorted(self._pairs.values(), key=lambda r: (r.start, r.a, r.b)):
            self._end_pair(pr)
        self._pairs.clear()
        for run in sorted(self._drifts.values(), key=lambda r: (r.start, r.mmsi)):
            self._end_drift(run)
        self._drifts.clear()

    # -- judging -----------------------------------------------------------------------

    def _infos(self, run: PairRun) -> tuple[Info, Info]:
        t = run.last * self.cfg.slot_s
        return self._info(run.a, t), self._info(run.b, t)

    def _info(self, mmsi: int, t: float) -> Info:
        tr = self._tracks.get(mmsi)
        return tr.info_at(t) if tr is not None and tr.statics else Info(None, None, None)

    def _meeting(self, run: PairRun, *, closed: bool) -> Lead | None:
        cfg = self.cfg
        infos = self._infos(run)
        lon, lat = run.centre()
        why = meeting_exemption(
            self.index, self.register, cfg, (lon, lat, run.start * cfg.slot_s),
            ((run.a, infos[0]), (run.b, infos[1])),
        )  # fmt: skip
        if why is not None:
            if closed:
                self._count(f"encounters_exempt_{why}")
            return None
        return encounter_lead(run, infos, cfg, closed=closed)

    def _end_pair(self, run: PairRun) -> None:
        lead = None
        if run.duration_s(self.cfg.slot_s) >= self.cfg.min_duration_s:
            lead = self._meeting(run, closed=True)
        else:
            self._count("encounters_short")
        self._finish(pair_id(run.a, run.b, run.start * self.cfg.slot_s), lead)

    def _drifting(self, run: DriftRun, *, closed: bool) -> Lead | None:
        cfg = self.cfg
        lon, lat = run.centre()
        t = run.start * cfg.slot_s
        shore = shore_nm(lon, lat)
        info = self._info(run.mmsi, run.last * cfg.slot_s)
        why, near = loiter_grounds(self.index, cfg, (lon, lat, t), info, self.installation_m, shore)
        if why is None:
            dark = self._dark_partner(run)
            if dark is not None:
                near.append(dark)
            if not near:
                why = "nothing-near"
        if why is not None:
            if closed:
                self._count(f"loiter_exempt_{why}")
            return None
        return loiter_lead(run, info, cfg, near, shore, closed=closed)

    def _dark_partner(self, run: DriftRun) -> dict[str, Any] | None:
        """The nearest vessel that went silent within reach of the drifting one while it
        drifted (or in the hour before)."""
        by_k = {x.k: x for x in run.samples}
        best: tuple[float, Silence] | None = None
        for sil in self._silences:
            if sil.mmsi == run.mmsi or not run.start - self._span <= sil.k <= run.last:
                continue
            x = by_k.get(sil.k) or run.samples[0]
            d = geodesic_m(x.lon, x.lat, sil.lon, sil.lat)
            if d <= self.cfg.dark_partner_m and (best is None or d < best[0]):
                best = (d, sil)
        if best is None:
            return None
        d, sil = best
        return {
            "code": "dark-partner",
            "mmsi": sil.mmsi,
            "silent_from": iso_utc(sil.k * self.cfg.slot_s),
            "distance_m": round(d, 1),
        }

    def _end_drift(self, run: DriftRun) -> None:
        lead = None
        if run.duration_s(self.cfg.slot_s) >= self.cfg.loiter_s:
            lead = self._drifting(run, closed=True)
        self._finish(lead_id(run.mmsi, "LOITER", None, run.start * self.cfg.slot_s), lead)

    def _finish(self, shown_id: str, lead: Lead | None) -> None:
        if lead is not None:
            self._closed.append(lead)
            self._count(f"leads_{lead.rule}")
        elif shown_id in self._shown:
            # an open lead given out earlier that did not last: withdrawn as it stood
            # (the store deletes it when nobody has worked it, as a superseded episode)
            gone = dataclasses.replace(self._shown[shown_id])
            gone.details = {**gone.details, "superseded_by": None}
            self._revisions.append(gone)
        self._shown.pop(shown_id, None)

    # -- open leads ----------------------------------------------------------------------

    def open_leads(self) -> list[Lead]:
        """Meetings of ``provisional_s`` or more and drifting of ``loiter_s`` or more
        still under way (``ended_at`` null; a meeting under 2 h is marked provisional),
        meetings judged early on the slots not settled yet included (early.py); an open
        lead given out before and no longer under way, nor given out closed, is
        withdrawn (``take_revisions``)."""
        cfg = self.cfg
        first = self._next_k
        if first is None:
            first = min(self._by_iv) if self._by_iv else 0
        key = (first, math.floor(self._now / cfg.slot_s) if self._now > -math.inf else 0)
        if self._open is not None and self._open[0] == key:
            return list(self._open[1])
        runs = {(r.a, r.b, r.start): r for r in self._pairs.values()}
        early = early_pairs(self._tracks, self._by_iv, self._pairs, first, self._now, cfg)
        runs.update({(r.a, r.b, r.start): r for r in early})
        out: list[Lead] = []
        for _, pr in sorted(runs.items()):
            if pr.duration_s(cfg.slot_s) >= cfg.provisional_s:
                lead = self._meeting(pr, closed=False)
                if lead is not None:
                    out.append(lead)
        for run in sorted(self._drifts.values(), key=lambda r: (r.start, r.mmsi)):
            if run.duration_s(cfg.slot_s) >= cfg.loiter_s:
                lead = self._drifting(run, closed=False)
                if lead is not None:
                    out.append(lead)
        ids = {x.id for x in out}
        for gone in [i for i in self._shown if i not in ids]:
            self._finish(gone, None)  # shown before, not under way now: withdrawn
        self._shown.update((x.id, x) for x in out)
        self._open = (key, out)
        return list(out)

    def take_revisions(self) -> list[Lead]:
        """Open leads given out that will not become leads (``details.superseded_by``
        None): the store deletes them when nobody has worked them."""
        out, self._revisions = self._revisions, []
        return out

    @property
    def stream_time(self) -> float:
        """Latest record time seen (the clock ``expire`` is given in a replay)."""
        return self._now

    @property
    def vessel_count(self) -> int:
        return len(self._tracks)
