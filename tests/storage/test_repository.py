"""The Repository contract, run against both stores (SQLite file and a fresh PostGIS)."""

from __future__ import annotations

import dataclasses
import time
from datetime import UTC, datetime

import pytest
from alembic.script import ScriptDirectory
from shapely.geometry import LineString, Point, Polygon, box
from sqlalchemy import text

from tests.storage.builders import T0, lead, pos
from vigia.alerts.lead import EvidencePoint
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.ingest.records import Position, VesselInfo
from vigia.service.db.admin_store import AUDIT_RETENTION_S
from vigia.service.db.engine import alembic_config
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import StoreConfigError, open_repository
from vigia.zones.model import Zone, ZoneKind

ACTOR = Actor("test-inspector", "inspector")
# vessels with MMSIs the store keeps (tests/ingest/test_mmsi.py)
RIO, SANTOS, NOWHERE = 710_000_001, 710_000_002, 710_000_003


def test_vessels_keep_the_newest_static_data(repo: SqlRepository) -> None:
    """A later report replaces the static data; an older one arriving late does not."""
    repo.upsert_vessels([VesselInfo(710_000_001, name="OLD", ship_type=70, updated_at=T0)])
    repo.upsert_vessels(
        [VesselInfo(710_000_001, name="NEW", imo=9_000_001, updated_at=T0 + 10, extra={"a": 1})]
    )
    repo.upsert_vessels([VesselInfo(710_000_001, name="STALE", updated_at=T0 + 5)])
    v = repo.get_vessel(710_000_001)
    assert v is not None
    assert (v.name, v.imo, v.updated_at, v.extra) == ("NEW", 9_000_001, T0 + 10, {"a": 1})
    assert repo.get_vessel(123) is None


def test_positions_track_and_latest_in_bbox(repo: SqlRepository) -> None:
    """Batches land once; the track is ordered and bounded; latest is per vessel in bbox."""
    rio = [pos(RIO, T0 + i, -43.1 + i * 0.001, -22.9, sog=5.0, source="tcp") for i in range(10)]
    santos = [pos(SANTOS, T0 + i, -46.3, -24.0, heading=90, accuracy=True) for i in range(5)]
    assert repo.add_positions(rio + santos) == 15
    # the same reports heard again (a retried batch) are not stored twice
    assert repo.add_positions(rio[:3]) == 0
    # no location: not storable, skipped
    unusable = [
        pos(NOWHERE, T0, None, None),
        pos(NOWHERE, T0 + 1, 181.0, 91.0),
        pos(NOWHERE, float("inf"), -43.0, -22.9),
        pos(NOWHERE, T0 + 2, float("nan"), -22.9),
    ]
    assert repo.add_positions(unusable) == 0
    assert repo.count_positions() == 15

    track = repo.track(RIO, T0 + 2, T0 + 5)
    assert [p.t for p in track] == [T0 + 2, T0 + 3, T0 + 4, T0 + 5]
    assert track[0].source == "tcp" and track[0].sog == 5.0
    assert len(repo.track(RIO, None, None)) == 10

    latest = repo.latest_positions(None, 100)
    assert [(p.mmsi, p.t) for p in latest] == [(RIO, T0 + 9), (SANTOS, T0 + 4)]
    assert latest[1].heading == 90 and latest[1].accuracy is True
    in_rio = repo.latest_positions((-44.0, -23.5, -42.0, -22.0), 100)
    assert [p.mmsi for p in in_rio] == [RIO]
    # an older report arriving late does not move the latest position back
    repo.add_positions([pos(SANTOS, T0 - 100, -43.0, -22.9)])
    assert [p.mmsi for p in repo.latest_positions((-44.0, -23.5, -42.0, -22.0), 100)] == [RIO]
    assert [p.mmsi for p in repo.latest_positions(None, 1, offset=1)] == [SANTOS]


def _zone(zid: str = "mil-forte", **kw: object) -> Zone:
    base: dict[str, object] = {
        "id": zid,
        "kind": ZoneKind.MILITARY,
        "geometry": box(-43.2, -22.95, -43.15, -22.9),
        "name": "Forte",
        "distance_m": 200.0,
    }
    base.update(kw)
    return Zone(**base)  # type: ignore[arg-type]


def test_zone_edit_makes_a_version_and_old_versions_stay(repo: SqlRepository) -> None:
    """An edit makes version 2; version 1 stays retrievable; delete retires all."""
    (v1,) = repo.put_zones([_zone()])
    assert v1.version == 1
    # the same zone again is not an edit
    assert repo.put_zones([_zone()])[0].version == 1
    (v2,) = repo.put_zones([_zone(name="Forte de Copacabana", distance_m=250.0)])
    assert v2.version == 2
    cur = repo.get_zone("mil-forte")
    assert cur is not None and cur.version == 2 and cur.distance_m == 250.0
    old = repo.get_zone("mil-forte", version=1)
    assert old is not None and old.name == "Forte" and old.geometry.equals(_zone().geometry)
    assert repo.count_zones() == 1
    # a lead records the version it was judged against
    repo.upsert_leads([lead("L1", zone_id="mil-forte", zone_version=v2.version)])
    got = repo.get_lead("L1", EVERY_AUTHORITY)
    assert got is not None and got.zone_version == 2

    assert repo.delete_zone("mil-forte") is True
    assert repo.delete_zone("mil-forte") is False
    assert repo.get_zone("mil-forte") is None
    assert repo.count_zones() == 0
    assert repo.get_zone("mil-forte", version=2) is not None
    # re-created after a delete: a new version, never a reused number
    assert repo.put_zones([_zone()])[0].version == 3


def test_zone_round_trip_keeps_every_attribute(repo: SqlRepository) -> None:
    """A special area with validity, allow-lists and free properties reads back equal."""
    z = Zone(
        id="esp-1",
        kind=ZoneKind.SPECIAL_AREA,
        geometry=Polygon([(-43.0, -23.0), (-42.9, -23.0), (-42.9, -22.9), (-43.0, -23.0)]),
        valid_from=datetime(2025, 11, 1, tzinfo=UTC),
        valid_to=datetime(2025, 12, 1, tzinfo=UTC),
        allowed_mmsi=frozenset({1, 2}),
        allowed_ship_types=frozenset({35}),
        notice="NM 123/25",
        properties={"note": "regata"},
    )
    (stored,) = repo.put_zones([z])
    got = repo.get_zone("esp-1")
    assert got == dataclasses.replace(z, version=1) == stored


def test_list_zones_filters_bbox_and_time_and_pages(repo: SqlRepository) -> None:
    """Bbox is an exact intersection; ``at`` honours the validity window; pages add up."""
    beach = Zone(
        id="praia-a",
        kind=ZoneKind.BATHER_BEACH,
        geometry=LineString([(-43.19, -22.98), (-43.17, -22.97)]),
    )
    plat = Zone(id="plat-p50", kind=ZoneKind.PLATFORM, geometry=Point(-40.0, -22.5))
    temp = _zone(
        "esp-2",
        kind=ZoneKind.SPECIAL_AREA,
        geometry=box(-40.1, -22.6, -39.9, -22.4),
        valid_from=datetime(2025, 11, 1, tzinfo=UTC),
        valid_to=datetime(2025, 11, 2, tzinfo=UTC),
    )
    repo.put_zones([beach, plat, temp, _zone()])
    zones, total = repo.list_zones(None, None, 2)
    assert total == 4 and [z.id for z in zones] == ["esp-2", "mil-forte"]
    zones, _ = repo.list_zones(None, None, 2, offset=2)
    assert [z.id for z in zones] == ["plat-p50", "praia-a"]
    campos = (-41.0, -23.0, -39.0, -22.0)
    assert [z.id for z in repo.list_zones(campos, None, 10)[0]] == ["esp-2", "plat-p50"]
    later = datetime(2025, 11, 5, tzinfo=UTC).timestamp()
    zones, total = repo.list_zones(campos, later, 10)
    assert (total, [z.id for z in zones]) == (1, ["plat-p50"])
    # the line's bbox overlaps this box, the line itself does not: not a match
    corner = (-43.175, -22.99, -43.16, -22.978)
    assert "praia-a" not in [z.id for z in repo.list_zones(corner, None, 10)[0]]


def test_open_lead_grows_closed_lead_is_immutable(repo: SqlRepository) -> None:
    """Upsert updates an open lead, keeps its workflow status, and never touches a closed one."""
    repo.upsert_leads([lead("L1")])
    assert repo.move_lead("L1", Move("triaged"), ACTOR, scope=EVERY_AUTHORITY) is not None
    grown = lead(
        "L1",
        min_distance_m=80.0,
        evidence=[
            *lead("L1").evidence,
            EvidencePoint(T0 + 120, -40.0, -22.501, 7.0, 92.0, 0, 80.0),
        ],
    )
    repo.upsert_leads([grown])
    got = repo.get_lead("L1", EVERY_AUTHORITY)
    assert got is not None
    assert (got.min_distance_m, len(got.evidence), got.status) == (80.0, 3, "triaged")
    assert got.evidence[2] == grown.evidence[2]

    closed = lead("L1", ended_at=T0 + 180, min_distance_m=80.0, evidence=grown.evidence)
    repo.upsert_leads([closed])
    tampered = lead("L1", ended_at=T0 + 999, min_distance_m=1.0, evidence=[], raw_sentences=[])
    repo.upsert_leads([tampered])
    got = repo.get_lead("L1", EVERY_AUTHORITY)
    assert got is not None
    assert got.ended_at == T0 + 180 and got.min_distance_m == 80.0 and len(got.evidence) == 3
    assert got.raw_sentences == lead("L1").raw_sentences
    assert repo.get_lead("nope", EVERY_AUTHORITY) is None
    assert repo.move_lead("nope", Move("triaged"), ACTOR, scope=EVERY_AUTHORITY) is None


def test_list_leads_filters_and_pages(repo: SqlRepository) -> None:
    """Each filter narrows; newest first; the total ignores the page."""
    repo.upsert_leads(
        [
            lead("A", started_at=T0, ended_at=T0 + 100),
            lead("B", started_at=T0 + 1000, mmsi=2, rule="SEC-MILITARY", zone_id="mil-forte"),
            lead(
                "C",
                started_at=T0 + 2000,
                ended_at=T0 + 2100,
                closest_lon=-43.17,
                closest_lat=-22.93,
                zone_id="mil-forte",
            ),
        ]
    )
    repo.move_lead("C", Move("dismissed", "a test"), ACTOR, scope=EVERY_AUTHORITY)

    def ids(q: LeadQuery, limit: int = 10, offset: int = 0) -> tuple[list[str], int]:
        page, total = repo.list_leads(q, limit, offset, scope=EVERY_AUTHORITY)
        return [x.id for x in page], total

    assert ids(LeadQuery()) == (["C", "B", "A"], 3)
    assert ids(LeadQuery(), limit=1, offset=1) == (["B"], 3)
    assert ids(LeadQuery(rule="SEC-MILITARY")) == (["B"], 1)
    assert ids(LeadQuery(zone_id="mil-forte")) == (["C", "B"], 2)
    assert ids(LeadQuery(mmsi=2)) == (["B"], 1)
    assert ids(LeadQuery(status="dismissed")) == (["C"], 1)
    # start: still going on at or after; B is open so it is
    assert ids(LeadQuery(start=T0 + 500)) == (["C", "B"], 2)
    assert ids(LeadQuery(end=T0 + 500)) == (["A"], 1)
    assert ids(LeadQuery(bbox=(-43.5, -23.0, -43.0, -22.8))) == (["C"], 1)
    assert ids(LeadQuery(rule="SEC-PLATFORM", bbox=(-41.0, -23.0, -39.0, -22.0))) == (["A"], 1)


def test_counters_keys(repo: SqlRepository) -> None:
    """Counters persist (replaced by the cumulative values); keys are found by hash."""
    repo.save_counters({"sentences_ok": 10, "decode_errors": 2})
    repo.save_counters({"sentences_ok": 25})
    assert repo.load_counters() == {"sentences_ok": 25, "decode_errors": 2}

    k = repo.add_api_key("ops", "inspector", "ab" * 32)
    found = repo.find_api_key("ab" * 32)
    assert found == k and found.role == "inspector" and not found.revoked
    assert repo.find_api_key("cd" * 32) is None
    k2 = repo.add_api_key("admin", "admin", "cd" * 32)
    assert [x.id for x in repo.list_api_keys()] == [k.id, k2.id]
    assert repo.revoke_api_key(k.id) is True
    revoked = repo.find_api_key("ab" * 32)
    assert revoked is not None and revoked.revoked
    assert repo.revoke_api_key(9999) is False


def test_audits_are_kept_five_years(repo: SqlRepository) -> None:
    """A purge never deletes an audit younger than five years; the database refuses too."""
    doc = {"mmsi": 710_000_001, "exchanges": [{"verdict": "compliant", "volume_m3": 1200.5}]}
    young = repo.save_audit(doc, EVERY_AUTHORITY)
    assert repo.get_audit(young, EVERY_AUTHORITY) == doc
    assert repo.get_audit("missing", EVERY_AUTHORITY) is None
    now = time.time()
    old_t = now - AUDIT_RETENTION_S - 10 * 86_400
    with repo.engine.begin() as conn:
        conn.execute(
            text("INSERT INTO ballast_audits (id, created_at, document) VALUES ('old', :t, '{}')"),
            {"t": old_t},
        )
    # asking to purge everything is clamped to five years: only the old one goes
    assert repo.purge_audits(now + 1) == 1
    assert (
        repo.get_audit(young, EVERY_AUTHORITY) == doc
        and repo.get_audit("old", EVERY_AUTHORITY) is None
    )
    with pytest.raises(Exception, match="five years"), repo.engine.begin() as conn:
        conn.execute(text("DELETE FROM ballast_audits"))
    assert repo.get_audit(young, EVERY_AUTHORITY) == doc


def test_migrations_are_idempotent(repo: SqlRepository) -> None:
    """Migrating an up-to-date database changes nothing and keeps the data."""
    repo.add_positions([pos(RIO, T0, -43.0, -22.9)])
    repo.migrate()
    repo.migrate()
    assert repo.count_positions() == 1
    with repo.engine.connect() as conn:
        at = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    assert at == ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_open_repository_refuses_unknown_urls(tmp_path: object) -> None:
    """A URL for a database Vigia cannot use is a clear error."""
    with pytest.raises(StoreConfigError, match="unsupported database URL"):
        open_repository("mysql://u@h/db")


def _dialect_difference(item: tuple[object, ...], dialect: str) -> bool:
    """Differences between the models and the migrated schema that are by design."""
    op = item[0]
    if dialect == "postgresql":
        # partitions are made on demand; GiST indexes come from GeoAlchemy2's alembic helper
        if op == "remove_table":
            return str(item[1].name).startswith("positions_")  # type: ignore[attr-defined]
        if op == "remove_index":
            return "geom" in str(item[1].name)  # type: ignore[attr-defined]
    else:
        # generated PostGIS points do not exist on SQLite; its lon/lat B-tree stands in
        if op == "add_column":
            return item[3].name in {"geom", "closest_geom"}  # type: ignore[attr-defined]
        if op == "remove_index":
            # its lon/lat and time B-trees stand in for the GiST indexes
            return item[1].name in {"ix_vessel_latest_lon_lat", "ix_positions_t"}  # type: ignore[attr-defined]
    return False


def test_models_and_migrations_agree(repo: SqlRepository) -> None:
    """Alembic finds no difference between the models and the migrated schema beyond the
    documented per-dialect ones (so a model change without a migration fails here)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from geoalchemy2 import alembic_helpers

    from vigia.service.db.models import Base

    with repo.engine.connect() as conn:
        ctx = MigrationContext.configure(
            conn, opts={"include_object": alembic_helpers.include_object, "compare_type": True}
        )
        diff = compare_metadata(ctx, Base.metadata)
    items = [x for d in diff for x in (d if isinstance(d, list) else [d])]
    unexpected = [x[:3] for x in items if not _dialect_difference(x, repo.dialect)]
    assert unexpected == []


def test_every_position_field_comes_back_as_written(repo: SqlRepository) -> None:
    # the PostGIS path writes with binary COPY, SQLite with executemany: both must give
    # back each value, its absence (None) and text that COPY's text format had to escape
    written = [
        Position(710000010, T0, 1, -43.1, -22.9, None, None, None, None, None, ""),
        Position(710000010, T0 + 1.5, 18, -43.25, -22.95, 12.3, 359.9, 511, 15, True,
                 "rx\\one\ttab\nline\rcr ção 📡"),
        Position(710000010, T0 + 3, 3, 180.0, -90.0, 0.0, 0.0, 0, 0, False, "udp:1"),
    ]  # fmt: skip
    assert repo.add_positions(written) == 3
    back = repo.track(710000010, None, None)
    fields = ("mmsi", "t", "msg_type", "lon", "lat", "sog", "cog", "heading", "nav_status",
              "accuracy", "source")  # fmt: skip
    assert [[getattr(p, f) for f in fields] for p in back] == [
        [getattr(p, f) for f in fields] for p in written
    ]


def test_positions_and_vessels_of_no_station_identity_are_not_kept(repo: SqlRepository) -> None:
    # the rule ingest applies (tests/ingest/test_mmsi.py), held by the store as well
    invalid = (0, 1, 12345, 999_999_999, 1_073_741_823)
    batch = [pos(m, T0, -43.1, -22.9) for m in (*invalid, RIO)]
    assert repo.add_positions(batch) == 1
    repo.upsert_vessels([VesselInfo(m, name="X", updated_at=T0) for m in (*invalid, RIO)])
    assert all(repo.get_vessel(m) is None for m in invalid)
    assert repo.get_vessel(RIO) is not None
    assert [p.mmsi for p in repo.latest_positions(None, 10)] == [RIO]
