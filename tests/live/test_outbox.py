"""The lead event log: one event per real change, written with the lead, ids in commit
order, on both stores."""

from __future__ import annotations

import dataclasses
import threading

from tests.storage.builders import T0, lead
from tests.storage.conftest import repo  # noqa: F401  (the fixture)
from vigia.alerts.lead import EvidencePoint
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository

INSPECTOR = Actor("test-inspector", "inspector")


def _types(r: SqlRepository, after: int = 0) -> list[tuple[str, str]]:
    return [(e.type, e.lead_id) for e in r.events_after(after, scope=EVERY_AUTHORITY)]


def test_each_real_change_is_one_event(repo: SqlRepository) -> None:  # noqa: F811
    a = lead("L-a")
    repo.upsert_leads([a])
    repo.upsert_leads([a])  # a replay (spool after kill -9): nothing new
    assert _types(repo) == [("lead.opened", "L-a")]
    grown = dataclasses.replace(
        a, evidence=[*a.evidence, EvidencePoint(T0 + 120, -40.0, -22.49, 7.0, 90.0, 0, 90.0)]
    )
    repo.upsert_leads([grown])
    closed = dataclasses.replace(grown, ended_at=T0 + 120)
    repo.upsert_leads([closed])
    repo.upsert_leads([closed])
    # a closed lead is never rewritten, so a late "change" raises nothing either
    repo.upsert_leads([dataclasses.replace(closed, max_sog_kn=30.0)])
    opened, updated = ("lead.opened", "L-a"), ("lead.updated", "L-a")
    assert _types(repo) == [opened, updated, updated]
    events = repo.events_after(0, scope=EVERY_AUTHORITY)
    assert events[-1].data["ended_at"] is not None
    assert len(events[1].data["evidence"]) == 3

    repo.move_lead(
        "L-a", Move("triaged", reason="seen on camera"), INSPECTOR, scope=EVERY_AUTHORITY
    )
    assert repo.move_lead("L-nope", Move("triaged"), INSPECTOR, scope=EVERY_AUTHORITY) is None
    last = repo.events_after(events[-1].id, scope=EVERY_AUTHORITY)
    assert [(e.type, e.data["status"]) for e in last] == [("lead.status", "triaged")]
    # issue 22: a live client says who moved the lead and why
    assert last[0].data["moved_by"] == {"name": INSPECTOR.name, "role": INSPECTOR.role}
    assert last[0].data["move_reason"] == "seen on camera"
    # the workflow status survives an evidence update and is what the event carries
    b = lead("L-b")
    repo.upsert_leads([b])
    repo.move_lead("L-b", Move("triaged"), INSPECTOR, scope=EVERY_AUTHORITY)
    repo.upsert_leads([dataclasses.replace(b, max_sog_kn=12.0)])
    assert repo.events_after(0, scope=EVERY_AUTHORITY)[-1].data["status"] == "triaged"
    assert repo.last_event_id() == repo.events_after(0, scope=EVERY_AUTHORITY)[-1].id


def test_distress_gets_the_smaller_id_in_a_batch_and_listeners_wake(
    repo: SqlRepository,  # noqa: F811
) -> None:
    woken: list[int] = []
    remove = repo.add_event_listener(woken.append)
    sar = lead("L-sar", rule="SAR-DISTRESS", mmsi=970_123_456, zone_id=None)
    repo.upsert_leads([lead("L-1"), lead("L-2"), sar])
    events = repo.events_after(0, scope=EVERY_AUTHORITY)
    assert events[0].lead_id == "L-sar" and events[0].priority == 100
    assert events[0].data["priority"] == 100 and events[1].priority < 100
    assert woken == [events[-1].id]
    remove()
    repo.upsert_leads([lead("L-3")])
    assert len(woken) == 1


def test_a_reader_following_concurrent_writers_misses_nothing(
    repo: SqlRepository,  # noqa: F811
) -> None:
    """Ids become visible in order: a reader that only asks "after my last id" while
    four writers commit gets every event."""
    writers, per = 4, 25
    seen: list[int] = []
    done = threading.Event()

    def write(w: int) -> None:
        for i in range(per):
            repo.upsert_leads([lead(f"L-{w}-{i}")])

    def read() -> None:
        cursor = 0
        while True:
            finished = done.is_set()
            batch = repo.events_after(cursor, scope=EVERY_AUTHORITY)
            seen.extend(e.id for e in batch)
            cursor = batch[-1].id if batch else cursor
            if finished and not batch:
                return

    reader = threading.Thread(target=read)
    reader.start()
    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    reader.join(30)
    assert len(seen) == writers * per == len(set(seen))
    assert seen == sorted(seen)
