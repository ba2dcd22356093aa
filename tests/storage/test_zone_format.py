"""Zones are stored in the contract's Feature format, and old rows are rewritten to it."""

from __future__ import annotations

import json
from pathlib import Path

from alembic import command
from shapely.geometry import Point
from sqlalchemy import create_engine, text

from vigia.service.db.codec import geometry_wkb, zone_properties
from vigia.service.db.engine import alembic_config
from vigia.service.db.store import open_repository
from vigia.zones.catalogue import zone_to_feature
from vigia.zones.model import Zone, ZoneKind

# a row as revision 0002 wrote it (every key present, extras nested, allow-lists flat)
OLD = {
    "name": "P-66",
    "distance_m": 500.0,
    "valid_from": None,
    "valid_to": None,
    "allowed_mmsi": [710000002, 710000001],
    "allowed_ship_types": [],
    "anchoring_prohibited": False,
    "max_dwell_min": None,
    "authority": "CPRJ",
    "notice": None,
    "source": "ENC BR400001",
    "properties": {"operator": "Petrobras"},
}


def test_a_zone_is_stored_as_its_feature_properties() -> None:
    """One JSON format: what the store keeps is the file's Feature properties."""
    z = Zone("p-66", ZoneKind.PLATFORM, Point(-40.05, -22.37), name="P-66", distance_m=500.0)
    props = zone_properties(z)
    assert props == zone_to_feature(z)["properties"]


def test_migration_rewrites_old_zone_rows(tmp_path: Path) -> None:
    """A store written before 0003 reads back the same zone after upgrading."""
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    engine = create_engine(url)
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
        conn.execute(
            text(
                "INSERT INTO zone_versions (zone_id, version, kind, name, properties, geom,"
                " min_lon, min_lat, max_lon, max_lat, retired, current, created_at)"
                " VALUES ('p-66', 2, 'platform', 'P-66', :props, :geom,"
                " -40.05, -22.37, -40.05, -22.37, 0, 1, 0)"
            ),
            {"props": json.dumps(OLD), "geom": geometry_wkb(Point(-40.05, -22.37))},
        )
    engine.dispose()
    repo = open_repository(url)
    try:
        repo.migrate()
        z = repo.get_zone("p-66")
    finally:
        repo.close()
    assert z is not None
    assert (z.name, z.distance_m, z.authority, z.source) == ("P-66", 500.0, "CPRJ", OLD["source"])
    assert z.allowed_mmsi == {710000001, 710000002} and z.version == 2
    assert z.properties == {"operator": "Petrobras"}
