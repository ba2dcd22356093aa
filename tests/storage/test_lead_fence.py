"""Broker mode's fence in the store (migration 0019): a lead version committed at a lower
stream sequence never goes back over one committed at a higher one, on both stores. A
worker that stalled while writing its last checkpoint's leads wakes after the next holder
has stored newer versions; before the fence it put the older ones back (what
tests/bus/test_faults.py's paused worker showed under load)."""

from __future__ import annotations

from tests.storage.builders import T0, lead
from vigia.alerts.lead import EvidencePoint
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository


def _longer() -> list[EvidencePoint]:
    return [EvidencePoint(T0 + 60 * k, -40.0, -22.5, 8.0, 90.0, 0, 120.0) for k in range(5)]


def _evidence(repo: SqlRepository) -> int:
    got = repo.get_lead("L1", EVERY_AUTHORITY)
    assert got is not None
    return len(got.evidence)


def test_an_older_commit_never_overwrites_a_newer_one(repo: SqlRepository) -> None:
    older, newer = lead("L1"), lead("L1", evidence=_longer(), closest_t=T0 + 240)
    repo.upsert_leads([newer], seq=120)
    assert _evidence(repo) == 5
    # the stalled writer's version, committed at 119: kept out
    repo.upsert_leads([older], seq=119)
    assert _evidence(repo) == 5
    # the same commit written again (the next holder flushing the outbox it claimed):
    # at the bound itself the write goes through
    repo.upsert_leads([older], seq=120)
    assert _evidence(repo) == 2
    repo.upsert_leads([newer], seq=121)
    assert _evidence(repo) == 5
    # a write with no sequence (single-process mode, a replay) is not compared
    repo.upsert_leads([older])
    assert _evidence(repo) == 2


def test_only_the_stale_lead_of_a_batch_is_kept_out(repo: SqlRepository) -> None:
    repo.upsert_leads([lead("L1", evidence=_longer())], seq=50)
    repo.upsert_leads([lead("L1"), lead("L2")], seq=40)  # L2 is new: stored
    assert _evidence(repo) == 5
    assert repo.get_lead("L2", EVERY_AUTHORITY) is not None
