"""A meeting at sea in both stores (issue 37): the lead naming two vessels is stored and
read back whole (both vessels, the partner's evidence, the pollution regime), and an open
provisional lead that does not last is withdrawn: the store deletes it while nobody has
worked it, and keeps it, marked, once an inspector has."""

from __future__ import annotations

from vigia.alerts.encounters.config import EncounterConfig
from vigia.alerts.encounters.watch import EncounterWatch
from vigia.alerts.lead import Lead
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.ingest.records import Position, Record, StaticData
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository
from vigia.zones.evaluate import ZoneIndex

T0 = 1_767_261_600.0
A, B = 710_370_901, 710_370_902


def _meeting(minutes: int) -> list[Record]:
    recs: list[Record] = [
        StaticData(A, T0 - 60, 5, name="SHIP A", ship_type=80),
        StaticData(B, T0 - 60, 5, name="SHIP B", ship_type=80),
    ]
    for i in range(minutes + 1):  # 0.0018 deg of longitude apart: about 184 m at 23 S
        recs.append(Position(A, T0 + 60 * i, 1, -42.45, -23.21, 0.5, 90.0, 90, 0))
        recs.append(Position(B, T0 + 20 + 60 * i, 1, -42.4482, -23.21, 0.5, 90.0, 90, 0))
    return recs


def _shown(minutes: int) -> tuple[EncounterWatch, Lead]:
    w = EncounterWatch(ZoneIndex([]), EncounterConfig(), lateness_s=0.0)
    w.feed(_meeting(minutes))
    w.expire(T0 + 50 * 60 + 4_201.0)
    (lead,) = w.open_leads()
    return w, lead


def test_a_meeting_is_stored_with_both_vessels(repo: SqlRepository) -> None:
    w = EncounterWatch(ZoneIndex([]), EncounterConfig(), lateness_s=0.0)
    w.feed(_meeting(180))
    (lead,) = w.expire(T0 + 4 * 3600.0, final=True)
    repo.upsert_leads([lead])
    got = repo.get_lead(lead.id, EVERY_AUTHORITY)
    assert got is not None
    doc = got.to_json()
    assert doc["rule"] == "STS-ENCOUNTER" and doc["regime"] == "pollution"
    assert [v["mmsi"] for v in doc["details"]["vessels"]] == [A, B]
    assert [v["name"] for v in doc["details"]["vessels"]] == ["SHIP A", "SHIP B"]
    assert doc["details"]["partner_evidence"] == lead.to_json()["details"]["partner_evidence"]
    assert doc["evidence"] == lead.to_json()["evidence"]


def test_a_provisional_lead_that_does_not_last_is_withdrawn(repo: SqlRepository) -> None:
    w, lead = _shown(50)
    repo.upsert_leads([lead])
    assert repo.get_lead(lead.id, EVERY_AUTHORITY) is not None
    w.expire(T0 + 6 * 3600.0)
    w.open_leads()
    (gone,) = w.take_revisions()
    repo.upsert_leads([gone])
    assert repo.get_lead(lead.id, EVERY_AUTHORITY) is None


def test_a_withdrawn_lead_an_inspector_worked_is_kept(repo: SqlRepository) -> None:
    w, lead = _shown(50)
    repo.upsert_leads([lead])
    moved = repo.move_lead(lead.id, Move("triaged"), Actor("insp", "inspector"),
                           scope=EVERY_AUTHORITY)  # fmt: skip
    assert moved is not None
    w.expire(T0 + 6 * 3600.0)
    w.open_leads()
    repo.upsert_leads(w.take_revisions())
    kept = repo.get_lead(lead.id, EVERY_AUTHORITY)
    assert kept is not None and kept.status == "triaged"
