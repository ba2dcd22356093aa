"""An import of zones into the store: plan it against the zones held, then store it in
one transaction (the command line and the admin route share this)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vigia.service.db.protocol import Repository
from vigia.zones.import_plan import ImportPlan, plan_import
from vigia.zones.import_types import ImportResult


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import read and what it did to the store (``plan`` None: not stored)."""

    result: ImportResult
    plan: ImportPlan | None

    def json(self) -> dict[str, Any]:
        """The report as JSON: counts, the ids of each outcome, the features skipped."""
        out: dict[str, Any] = {
            "zones": len(self.result.zones),
            "skipped": [{"where": s.where, "reason": s.reason} for s in self.result.skipped],
        }
        if self.plan is not None:
            summary = self.plan.summary()
            out["counts"] = {k: len(v) for k, v in summary.items()}
            out |= summary
        return out


def store_import(repo: Repository, result: ImportResult, *, force: bool) -> ImportReport:
    """Replace what came from the import's scopes by ``result``; zones edited by hand
    since their import, and ids held by zones from elsewhere, are kept (and reported)
    unless ``force``."""
    current, _ = repo.list_zones(None, None, None)
    plan = plan_import(result.zones, result.scopes, current, force=force)
    if plan.put or plan.retire:
        repo.replace_zones(plan.put, plan.retire, plan.seen)
    return ImportReport(result, plan)
