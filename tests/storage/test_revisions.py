"""A late record revises an open lead (issue 31), on both stores: a superseded lead
nobody worked goes (so one episode is never two leads) and the change is an event; one
whose Notice is out keeps its served facts, the revision attached beside them."""

from __future__ import annotations

import dataclasses

from tests.storage.builders import T0, lead
from vigia.alerts.lead import EvidencePoint
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository

ACTOR = Actor("test-inspector", "inspector")
EARLIER = EvidencePoint(T0 - 30, -40.02, -22.5, 8.5, 90.0, 0, 400.0)


def _events(repo: SqlRepository) -> list[tuple[str, str, dict[str, object]]]:
    return [(e.type, e.lead_id, e.data) for e in repo.events_after(0, scope=EVERY_AUTHORITY)]


def test_a_superseded_lead_nobody_worked_is_replaced_by_its_revision(
    repo: SqlRepository,
) -> None:
    repo.upsert_leads([lead("L-old")])
    gone = lead("L-old", details={"superseded_by": "L-new"})
    new = lead(
        "L-new",
        started_at=T0 - 30,
        evidence=[EARLIER, *lead("x").evidence],
        details={"revisions": 1, "supersedes": ["L-old"]},
    )
    repo.upsert_leads([gone, new])
    assert repo.get_lead("L-old", EVERY_AUTHORITY) is None
    kept = repo.get_lead("L-new", EVERY_AUTHORITY)
    assert kept is not None and kept.details["supersedes"] == ["L-old"]
    assert kept.started_at == T0 - 30 and len(kept.evidence) == 3
    kinds = [(t, i, d["details"].get("superseded_by")) for t, i, d in _events(repo)]  # type: ignore[attr-defined]
    assert ("lead.updated", "L-old", "L-new") in kinds
    assert ("lead.opened", "L-new", None) in kinds


def test_a_superseded_lead_never_stored_leaves_nothing(repo: SqlRepository) -> None:
    repo.upsert_leads([lead("L-old", details={"superseded_by": None})])
    assert repo.get_lead("L-old", EVERY_AUTHORITY) is None
    assert _events(repo) == []


def test_a_worked_lead_is_kept_and_marked_when_superseded(repo: SqlRepository) -> None:
    repo.upsert_leads([lead("L-old")])
    assert repo.move_lead("L-old", Move("triaged"), ACTOR, scope=EVERY_AUTHORITY)
    repo.upsert_leads([lead("L-old", details={"superseded_by": "L-new"})])
    kept = repo.get_lead("L-old", EVERY_AUTHORITY)
    assert kept is not None and kept.status == "triaged"
    assert kept.details["superseded_by"] == "L-new"


def test_a_revision_of_a_notified_lead_is_attached_beside_its_served_facts(
    repo: SqlRepository,
) -> None:
    repo.upsert_leads([lead("L1")])
    assert repo.move_lead("L1", Move("triaged"), ACTOR, scope=EVERY_AUTHORITY)
    notice = Move("notified", data={"notice": {"date": "2025-11-25", "appear_by": "2025-12-05"}})
    assert repo.move_lead("L1", notice, ACTOR, scope=EVERY_AUTHORITY)
    served = repo.get_lead("L1", EVERY_AUTHORITY)
    assert served is not None
    revised = dataclasses.replace(
        served,
        min_distance_m=80.0,
        evidence=[*served.evidence, EvidencePoint(T0 + 90, -40.0, -22.5, 8.0, 91.0, 0, 80.0)],
        details={**served.details, "revisions": 1},
    )
    repo.upsert_leads([revised])
    now = repo.get_lead("L1", EVERY_AUTHORITY)
    assert now is not None and now.status == "notified"
    assert now.evidence == served.evidence and now.min_distance_m == 120.0
    late = now.details["late_revision"]
    assert late["revisions"] == 1 and late["min_distance_m"] == 80.0
    assert len(late["evidence"]) == 3
    # an ordinary update of the open episode (no revision) still goes through
    repo.upsert_leads([dataclasses.replace(now, max_sog_kn=9.0, details=served.details)])
    again = repo.get_lead("L1", EVERY_AUTHORITY)
    assert again is not None and again.max_sog_kn == 9.0
