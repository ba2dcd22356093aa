"""Migration 0007 on a store written before it (both stores): existing leads start at
version 1 and stay editable, existing silences keep hiding every authority's leads."""

from __future__ import annotations

import json

import pytest
from alembic import command
from sqlalchemy import create_engine, text

from tests.storage.builders import T0, lead
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.service.db.engine import alembic_config
from vigia.service.db.protocol import EVERY_AUTHORITY, Scope
from vigia.service.db.store import open_repository

pytestmark = pytest.mark.postgis
_LEAD = (
    "INSERT INTO leads (id, mmsi, rule, citation, started_at, min_distance_m, closest_lon,"
    " closest_lat, closest_t, evidence, raw_sentences, vessel, authority, status, details,"
    " updated_at) VALUES ('L-old', 710000001, 'SEC-PLATFORM', 'NORMAM-07/DPC 0212 f)', :t,"
    " 120.0, -40.0, -22.5, :t, :ev, '[]', '{}', 'CP-TESTE-Macaé', 'new', '{}', :t)"
)
_SILENCE = (
    "INSERT INTO silences (mmsi, until, reason, created_by, created_at)"
    " VALUES (710000001, :until, 'survey before 0007', 'inspector', :t)"
)


def test_0007_keeps_old_leads_editable_and_old_silences_whole(empty_url: str) -> None:
    engine = create_engine(empty_url)
    cfg = alembic_config()
    ev = [{"t": T0, "lon": -40.0, "lat": -22.5, "sog": 8.0, "cog": 90.0, "nav_status": 0,
           "distance_m": 120.0}]  # fmt: skip
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0006_authorised_vessels")
        conn.execute(text(_LEAD), {"t": T0, "ev": json.dumps(ev)})
        conn.execute(text(_SILENCE), {"until": T0 + 86_400, "t": T0})
    engine.dispose()
    repo = open_repository(empty_url)
    try:
        repo.migrate()
        old = repo.get_lead("L-old", EVERY_AUTHORITY)
        assert old is not None and old.version == 1
        moved = repo.move_lead("L-old", Move("triaged"), Actor("i", "inspector"),
                               scope=Scope("CP-TESTE-Macaé"), if_version=1)  # fmt: skip
        assert moved is not None and moved.version == 2 and moved.status == "triaged"
        assert [s["authority"] for s in repo.list_silences(EVERY_AUTHORITY)] == [None]
        # the silence made before authorities had silences still covers any authority
        santos = lead("L-new", started_at=T0 + 60, authority="CP-TESTE-Santos")
        repo.upsert_leads([santos])
        stored = repo.get_lead("L-new", EVERY_AUTHORITY)
        assert stored is not None and stored.silence_id is not None
    finally:
        repo.close()
