"""A backtest from the store's point of view: the zones in force, the registers, the
silences and the positions of the period, put through alerts/backtest (issue 36).

The draft's leads are compared with those of the zones in force over the same
positions, both runs through the live LeadPipeline, so the difference is the draft's
alone (a zone edited since the period is judged as it stands now, in both runs).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from vigia.alerts.authorised import AuthorisedRegister
from vigia.alerts.backtest.engine import (
    RunResult,
    Setting,
    Tracks,
    affected,
    apply_draft,
    reach_box,
    run,
    stream,
    trim,
)
from vigia.alerts.backtest.report import Compared, as_stored, compare, per_zone_day, summary
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.identity.state_register import StateVessels
from vigia.alerts.lead import Lead
from vigia.alerts.procedure.routing import jurisdictions
from vigia.alerts.procedure.silencing import Silence
from vigia.service.db.backtest_read import PeriodReader
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository
from vigia.service.errors import RequestInvalidError
from vigia.zones.model import Zone

#: lead-in read before the window; a vessel heard throughout it is read further back,
#: four times as far each round, up to ``MAX_LEAD_IN_S``
LEAD_IN_S = 6 * 3600.0
MAX_LEAD_IN_S = 8 * 86400.0
_DAY_S = 86400.0
Progress = Callable[[str, float], None]
_SPAN = re.compile(r"^(\d+(?:\.\d+)?)([dhm])$")
_UNIT_S = {"d": 86400.0, "h": 3600.0, "m": 60.0}


def instant(text: str, now: float) -> float:
    """A span back from ``now`` (``30d``, ``12h``, ``90m``) or an ISO 8601 instant with
    an offset, as Unix seconds."""
    m = _SPAN.match(text.strip())
    if m:
        return now - float(m.group(1)) * _UNIT_S[m.group(2)]
    try:
        dt = datetime.fromisoformat(text.strip())
    except ValueError:
        raise RequestInvalidError(f"not a span (30d, 12h, 90m) or an instant: {text!r}") from None
    if dt.tzinfo is None:
        raise RequestInvalidError(f"an instant needs its offset (Z or +hh:mm): {text!r}")
    return dt.timestamp()


@dataclass(slots=True)
class Outcome:
    """A backtest's leads (the draft's zones), the comparison and the report."""

    leads: list[Lead]
    compared: Compared
    report: dict[str, Any]


def _silences(repo: SqlRepository) -> list[Silence]:
    return [
        Silence(s["id"], s["mmsi"], s["zone_id"], s["starts_at"], s["until"], s["reason"],
                s.get("authority"))
        for s in repo.list_silences(EVERY_AUTHORITY)
    ]  # fmt: skip


def _begin(since: float, lead_in: float) -> float:
    """Where a lead-in of ``lead_in`` is read from: the start of its UTC day (an archive
    day's row groups are decoded whole whatever part of it is asked for, so a later
    round never reads that day again), never before ``since - MAX_LEAD_IN_S``."""
    return max(math.floor((since - lead_in) / _DAY_S) * _DAY_S, since - MAX_LEAD_IN_S)


def _read(
    reader: PeriodReader, mmsis: set[int], since: float, until: float, forget_s: float
) -> Tracks:
    """The candidates' tracks from a lead-in long enough to know what was open: a vessel
    still unsettled gets only the stretch before what was read already.

    Reading from further back never moves a vessel's start: it is the last silence
    before ``since``, and a stretch holding it finds it (a fix's silence is measured to
    the fix before it, or to the stretch's start when it is the first, which then
    understates it); a vessel unsettled after the last round was read from
    ``since - MAX_LEAD_IN_S`` either way. So the day-aligned rounds replay what the
    6 h, 24 h, 4 d, 8 d rounds would, reading fewer days twice."""
    lead_in = LEAD_IN_S
    begin = _begin(since, lead_in)
    raw = reader.tracks(mmsis, begin, until)
    tracks = trim(raw, since, begin, forget_s)
    while tracks.unsettled and lead_in < MAX_LEAD_IN_S:
        lead_in = min(lead_in * 4, MAX_LEAD_IN_S)
        earlier = _begin(since, lead_in)
        if earlier < begin:
            # the earlier stretch only, up to just before what was read (inclusive bounds)
            more = reader.tracks(tracks.unsettled, earlier, math.nextafter(begin, -math.inf))
            for m, ps in more.items():
                raw[m] = ps + raw[m]
            begin = earlier
        again = trim({m: raw[m] for m in tracks.unsettled}, since, begin, forget_s)
        tracks.by_mmsi.update(again.by_mmsi)
        tracks.unsettled = again.unsettled
    return tracks


def backtest(
    repo: SqlRepository,
    draft: Sequence[Zone],
    since: float,
    until: float,
    *,
    config: EpisodeConfig | None = None,
    progress: Progress | None = None,
    index: bool = True,
) -> Outcome:
    """Try ``draft`` on the store's and the archive's positions of [since, until].
    ``index=False`` reads as if no archived day had its cell index (the same answer,
    slower: the benchmark's and the tests' comparison)."""
    say: Progress = progress or (lambda stage, done: None)
    cfg = config or EpisodeConfig()
    started = time.perf_counter()
    in_force = repo.list_zones(None, None, None)[0]
    ids = affected(in_force, draft, cfg)
    after = apply_draft(in_force, draft)
    # where the zones in question stand in force and in the draft: a moved zone's old
    # place holds the leads the draft would take away
    boxes = list(dict.fromkeys(reach_box(z, cfg) for z in (*in_force, *after) if z.id in ids))
    folder = None if repo.archive is None else repo.archive.folder
    reader = PeriodReader(repo.engine, folder, index=index)
    say("candidates", 0.1)
    mmsis = reader.candidates(boxes, since, until)
    say("tracks", 0.3)
    tracks = _read(reader, mmsis, since, until, cfg.forget_after_s)
    known = [v for v in repo.all_vessels() if v.mmsi in mmsis]
    setting = Setting(
        cfg,
        AuthorisedRegister(repo.list_authorisations()),
        StateVessels(repo.list_state_vessels()),
        known,
    )
    say("draft", 0.5)
    batches = stream(tracks, until)  # read once, sorted once: both runs replay it
    mine = run(after, tracks, setting, zone_ids=ids, since=since, until=until, batches=batches)
    say("in force", 0.75)
    if ids & {z.id for z in in_force}:
        base = run(
            in_force, tracks, setting, zone_ids=ids, since=since, until=until, batches=batches
        )
    else:  # only new zones: nothing in force to compare with, no second run
        base = RunResult([], {})
    juris = jurisdictions(after)
    dest = {v.mmsi: v.destination for v in known}
    silences = _silences(repo)
    compared = compare(
        as_stored(mine.leads, juris, dest, silences),
        as_stored(base.leads, jurisdictions(in_force), dest, silences),
    )
    draft_ids = {z.id for z in draft}
    report = summary(
        compared, since=since, until=until, draft_ids=sorted(draft_ids), affected=sorted(ids),
        counters=mine.counters,
    )  # fmt: skip
    report["most_in_a_day"] = per_zone_day([x for x, _ in compared.draft])
    report["read"] = {
        **reader.counts.as_json(),
        "vessels": len(mmsis),
        "positions_replayed": tracks.positions(),
        "unsettled_vessels": len(tracks.unsettled),
    }
    report["seconds"] = round(time.perf_counter() - started, 3)
    say("done", 1.0)
    leads = [x for x, _ in compared.draft if x.zone_id in draft_ids]
    return Outcome(leads, compared, report)
