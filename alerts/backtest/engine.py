"""A draft zone tried on past traffic: which vessels can matter, from when, and the run.

Pure domain: positions come in as lists, leads go out; the reading is the service's.

Why only the vessels near the zones can matter: a vessel's verdicts are a function of
its own records (alerts/pipeline.py, issue 31), and a zone's lead needs a fix within
the zone's reach (its rule distance, the reference's offset and the hold margin). So the
candidates are the vessels with a fix inside the reach boxes during the window, and each
is replayed from a point where live detection had judged it afresh: the first fix after
a silence longer than the forget time (``EpisodeConfig.forget_after_s``), at which the
pipeline closes what was open and resets the vessel (``_forget``). A vessel heard without
such a silence over the whole lead-in is *unsettled*: it is replayed from the lead-in's
start, and the caller may read further back for it.

The run itself is ``vigia replay``'s loop (alerts/drive.py) over the same LeadPipeline
the worker runs, with every zone in force in the index (a fix near any zone is judged
through the glitch look-ahead, one far from all is not, which changes a vessel's state),
so the leads equal live detection's for the zones in question.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from operator import attrgetter

from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.drive import drive
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.gaps.detect import GapConfig
from vigia.alerts.identity.state_register import StateVessels
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Position, StaticData, VesselInfo
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import Zone, ZoneKind

BBox = tuple[float, float, float, float]
_M_PER_DEG = 111_320.0
#: metres added to every reach: the boxes are cut in degrees, rounded outwards
_SLACK_M = 100.0
_BATCH = 5000


def apply_draft(in_force: Sequence[Zone], draft: Sequence[Zone]) -> list[Zone]:
    """The zones in force once the draft is published: a draft zone replaces the zone
    of its id, or is added."""
    ids = {z.id for z in draft}
    return [z for z in in_force if z.id not in ids] + list(draft)


def _reach_m(zone: Zone, config: EpisodeConfig) -> float:
    index = ZoneIndex([zone])
    return float(index.threshold_m[0] + index.offset_m[0]) + config.hold_m + _SLACK_M


def reach_box(zone: Zone, config: EpisodeConfig) -> BBox:
    """The box (lon, lat degrees) holding every fix that can count for the zone."""
    x0, y0, x1, y1 = zone.geometry.bounds
    m = _reach_m(zone, config)
    dy = m / _M_PER_DEG
    dx = m / (_M_PER_DEG * max(math.cos(math.radians(max(abs(y0), abs(y1)))), 1e-6))
    return (x0 - dx, y0 - dy, x1 + dx, y1 + dy)


def _overlap(a: BBox, b: BBox) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def affected(in_force: Sequence[Zone], draft: Sequence[Zone], config: EpisodeConfig) -> set[str]:
    """Ids of the zones whose leads the draft can change: its own, and every zone in
    force (jurisdictions aside: they raise no leads) whose reach meets one of its."""
    boxes = [reach_box(z, config) for z in draft]
    out = {z.id for z in draft}
    for z in in_force:
        if z.kind is ZoneKind.JURISDICTION:
            continue
        if z.id in out or any(_overlap(reach_box(z, config), b) for b in boxes):
            out.add(z.id)
    return out


def settled_start(times: Sequence[float], since: float, begin: float, forget_s: float) -> int:
    """Index of the fix to replay a vessel from (its times ascending, read from
    ``begin``), or -1 when no silence longer than ``forget_s`` precedes the first fix at
    or after ``since``: then nothing read tells what was open before."""
    prev = begin
    start = -1
    for i, t in enumerate(times):
        if t - prev > forget_s:
            start = i
        if t >= since:
            break
        prev = t
    else:
        # no fix in the window: nothing of it can start there, whatever was open
        return max(start, 0)
    return start


@dataclass(slots=True)
class Tracks:
    """Candidates' positions, each vessel's ascending from where it is replayed."""

    by_mmsi: dict[int, list[Position]] = field(default_factory=dict)
    #: vessels heard throughout the lead-in: replayed from its start all the same
    unsettled: set[int] = field(default_factory=set)

    def positions(self) -> int:
        """How many positions will be replayed."""
        return sum(len(v) for v in self.by_mmsi.values())


def trim(
    tracks: Mapping[int, Sequence[Position]], since: float, begin: float, forget_s: float
) -> Tracks:
    """Each vessel's positions from its settled start (see :func:`settled_start`)."""
    out = Tracks()
    for mmsi, ps in tracks.items():
        k = settled_start([p.t for p in ps], since, begin, forget_s)
        if k < 0:
            out.unsettled.add(mmsi)
            k = 0
        out.by_mmsi[mmsi] = list(ps[k:])
    return out


@dataclass(frozen=True, slots=True)
class Setting:
    """What live detection judges with, besides the zones (the store's registers)."""

    config: EpisodeConfig = field(default_factory=EpisodeConfig)
    register: AuthorisedRegister = field(default_factory=AuthorisedRegister)
    state_vessels: StateVessels = field(default_factory=StateVessels)
    vessels: Sequence[VesselInfo] = ()


@dataclass(slots=True)
class RunResult:
    """The leads of the zones asked about, started in the window, and the counts."""

    leads: list[Lead]
    counters: dict[str, int]


def _batches(positions: Iterable[Position]) -> Iterator[list[Position]]:
    it = iter(positions)
    while batch := list(islice(it, _BATCH)):
        yield batch


def stream(tracks: Tracks, until: float) -> list[list[Position]]:
    """The tracks' positions up to ``until`` as one stream in time order (MMSI breaks
    ties), in the batches the replay feeds: sorted once, then shared by both runs of a
    backtest (the draft's and the zones in force's)."""
    merged = sorted(
        (p for ps in tracks.by_mmsi.values() for p in ps if p.t <= until),
        key=attrgetter("t", "mmsi"),
    )
    return list(_batches(merged))


def run(
    zones: Sequence[Zone],
    tracks: Tracks,
    setting: Setting,
    *,
    zone_ids: set[str],
    since: float,
    until: float,
    batches: Sequence[Sequence[Position]] | None = None,
) -> RunResult:
    """Replay the tracks through a LeadPipeline over ``zones``; the leads of
    ``zone_ids`` whose first position falls in [since, until]. ``batches``: the
    tracks already as :func:`stream` gives them (else sorted here)."""
    if not tracks.positions():
        # nothing came near the zones: no lead, and no pipeline to run for it
        return RunResult([], {})
    registry = VesselRegistry()
    for info in setting.vessels:
        # what the store knows of the vessel, as the worker loads it at start
        t = info.updated_at if info.updated_at is not None else 0.0
        registry.update(
            StaticData(
                info.mmsi, t, 0, name=info.name, callsign=info.callsign, imo=info.imo,
                ship_type=info.ship_type, length_m=info.length_m, beam_m=info.beam_m,
                destination=info.destination, source="store",
            )
        )  # fmt: skip
    pipeline = LeadPipeline(
        ZoneIndex(list(zones)),
        registry,
        setting.config,
        register=setting.register,
        # going dark is judged on every receiver's traffic, not a zone's: not tried here
        gaps=GapConfig(enabled=False),
    )
    pipeline.state_vessels = setting.state_vessels
    # meetings at sea (STS-ENCOUNTER, LOITER) are leads of no zone, and their watch only
    # reads the records (it changes no vessel's state, alerts/encounters/stage.py): left
    # out, as a broker partition leaves it out (service/runtime/bus/worker.py). A fifth
    # of the replay's time
    pipeline.encounters = None
    leads = [
        lead
        for batch in drive(pipeline, stream(tracks, until) if batches is None else batches)
        for lead in batch
        if lead.zone_id in zone_ids and since <= lead.started_at <= until
    ]
    leads.sort(key=lambda x: (x.started_at, x.mmsi, x.rule, x.zone_id or ""))
    return RunResult(leads, dict(pipeline.counters))
