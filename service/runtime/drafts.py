"""Draft zones at work (issue 36): a backtest run as a job the API can poll or stream,
and publication, which a lead budget exceeded by the latest backtest holds back until
a reason is stated (kept in the draft's and the zones' history)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vigia.alerts.backtest.export import geojson, to_csv
from vigia.alerts.backtest.report import over_budget
from vigia.service.db.drafts import DROPPED, PUBLISHED, DraftStore
from vigia.service.db.repository import SqlRepository
from vigia.service.errors import ConflictError, NotFoundError
from vigia.service.runtime.backtest import Outcome, backtest
from vigia.zones.catalogue import parse_feature_collection

_KEEP = 32  # finished jobs kept for their results (the oldest go first)


@dataclass
class Job:
    """One backtest of one draft: its stage and progress while it runs, then its result."""

    id: int
    draft_id: int
    since: float
    until: float
    state: str = "running"  # running, done, failed
    stage: str = "queued"
    progress: float = 0.0
    error: str | None = None
    outcome: Outcome | None = None
    changed: threading.Condition = field(default_factory=threading.Condition)

    def view(self) -> dict[str, Any]:
        """The job as the API shows it (the report once done)."""
        out: dict[str, Any] = {
            "id": self.id,
            "draft_id": self.draft_id,
            "state": self.state,
            "stage": self.stage,
            "progress": round(self.progress, 3),
            "error": self.error,
        }
        if self.outcome is not None:
            out["report"] = self.outcome.report
        return out

    def export(self, fmt: str) -> dict[str, Any] | str:
        """The leads, new, kept and gone, as GeoJSON or CSV."""
        if self.outcome is None:
            raise ConflictError(f"backtest {self.id} is {self.state}")
        return geojson(self.outcome.compared) if fmt == "geojson" else to_csv(self.outcome.compared)


class BacktestJobs:
    """Backtests running on threads of their own, one at a time per process (the
    machine's cores go to live detection first)."""

    def __init__(self, repo: SqlRepository) -> None:
        self._repo = repo
        self._drafts = DraftStore(repo.engine)
        self._jobs: dict[int, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._one = threading.Lock()

    def start(self, draft_id: int, since: float, until: float, by: str) -> Job:
        """Start a backtest of the draft's current features."""
        draft = self._drafts.get(draft_id)
        if draft["state"] != "draft":
            raise ConflictError(f"draft {draft_id} is {draft['state']}")
        features = draft["features"]
        zones = parse_feature_collection(features)
        job = Job(next(self._ids), draft_id, since, until)
        with self._lock:
            self._jobs[job.id] = job
            for old in sorted(self._jobs)[:-_KEEP]:
                self._jobs.pop(old)

        def say(stage: str, done: float) -> None:
            with job.changed:
                job.stage, job.progress = stage, done
                job.changed.notify_all()

        def work() -> None:
            try:
                with self._one:
                    outcome = backtest(self._repo, zones, since, until, progress=say)
                self._drafts.tried(draft_id, features, outcome.report, by)
                job.outcome, state, error = outcome, "done", None
            except Exception as exc:  # the job reports it; the service goes on
                state, error = "failed", f"{type(exc).__name__}: {exc}"
            with job.changed:
                job.state, job.error = state, error
                job.changed.notify_all()

        threading.Thread(target=work, name=f"vigia-backtest-{job.id}", daemon=True).start()
        return job

    def get(self, job_id: int) -> Job:
        """A job by id; NotFoundError when unknown (or long finished)."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(f"no backtest {job_id}")
        return job


def wait_change(job: Job, seen: tuple[str, str, float], timeout: float) -> tuple[str, str, float]:
    """Block until the job's (state, stage, progress) differs from ``seen`` or the
    timeout passes; returns it as it is then."""
    with job.changed:
        job.changed.wait_for(lambda: (job.state, job.stage, job.progress) != seen, timeout)
        return (job.state, job.stage, job.progress)


def publish(
    repo: SqlRepository,
    draft_id: int,
    by: str,
    reason: str | None,
    on_published: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Put a tried draft's zones in force. It must have been tried as it stands; a zone
    whose busiest day in that backtest exceeds its budget needs ``reason``."""
    store = DraftStore(repo.engine)
    draft = store.get(draft_id)
    if draft["state"] != "draft":
        raise ConflictError(
            f"draft {draft_id} is {draft['state']}",
            reason="draft-closed",
            facts={"state": str(draft["state"])},
        )
    report = draft["backtest"]
    if report is None:
        raise ConflictError(
            f"draft {draft_id} has not been tried as it stands: backtest it first",
            reason="draft-untried",
        )
    zones = parse_feature_collection(draft["features"])
    ids = [z.id for z in zones]
    over = over_budget(report.get("most_in_a_day") or {}, store.budgets(ids))
    reason = (reason or "").strip() or None
    if over and reason is None:
        raise ConflictError(
            f"the backtest exceeds the lead budget of {_over_text(over)}: state a reason",
            reason="lead-budget-exceeded",
            facts=_over_facts(over, {z.id: z.name or z.id for z in zones}),
        )
    stored = repo.put_zones(zones)
    detail = {"zones": ids, "versions": {z.id: z.version for z in stored}, "over_budget": over}
    out = store.close(draft_id, PUBLISHED, by, reason, detail)
    if on_published is not None:
        on_published()
    return out


def _over_text(over: dict[str, dict[str, int]]) -> str:
    return ", ".join(f"{z} ({v['most_in_a_day']} > {v['budget']} a day)" for z, v in over.items())


def _over_facts(over: dict[str, dict[str, int]], names: dict[str, str]) -> dict[str, str]:
    """The figures of a budget refusal, for a client's own words: the zone furthest over
    its budget (``zone``, ``name``, ``most_in_a_day``, ``budget``), how many zones are
    over (``count``) and all of them as ``name (most > budget)`` (``zones``)."""
    zone = max(over, key=lambda z: (over[z]["most_in_a_day"] - over[z]["budget"], z))
    return {
        "zone": zone,
        "name": names.get(zone, zone),
        "most_in_a_day": str(over[zone]["most_in_a_day"]),
        "budget": str(over[zone]["budget"]),
        "count": str(len(over)),
        "zones": ", ".join(
            f"{names.get(z, z)} ({v['most_in_a_day']} > {v['budget']})" for z, v in over.items()
        ),
    }


def drop(repo: SqlRepository, draft_id: int, by: str, reason: str | None) -> dict[str, Any]:
    """Give a draft up; it stays listed with its history."""
    store = DraftStore(repo.engine)
    draft = store.get(draft_id)
    return store.close(draft_id, DROPPED, by, reason, {"zones": _zone_ids(draft)})


def _zone_ids(draft: dict[str, Any]) -> list[str]:
    return [str(f["properties"]["id"]) for f in draft["features"].get("features", [])]
