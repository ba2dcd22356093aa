"""Initial schema: vessels, partitioned positions, latest positions, zone versions, leads,
counters, API keys and ballast audits.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from geoalchemy2 import Geometry

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

FIVE_YEARS_S = 157_788_000  # 5 x 365.25 days


def _is_pg() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def _geom(kind: str) -> Any:
    if _is_pg():
        return Geometry(kind, srid=4326, spatial_index=False)
    return sa.LargeBinary()


def _position_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("mmsi", sa.BigInteger(), nullable=False),
        sa.Column("t", sa.Float(), nullable=False),
        sa.Column("msg_type", sa.Integer(), nullable=False),
        sa.Column("lon", sa.Float(), nullable=False),
        sa.Column("lat", sa.Float(), nullable=False),
        sa.Column("sog", sa.Float()),
        sa.Column("cog", sa.Float()),
        sa.Column("heading", sa.Integer()),
        sa.Column("nav_status", sa.Integer()),
        sa.Column("accuracy", sa.Boolean()),
        sa.Column("source", sa.Text(), nullable=False, server_default=""),
    ]


def _point_geom(lon: str, lat: str, name: str = "geom") -> list[sa.Column[Any]]:
    """On PostGIS, a point generated from the lon/lat columns (so no writer has to build
    geometry); on SQLite the lon/lat columns are the point and its bounding box."""
    if not _is_pg():
        return []
    expr = f"ST_SetSRID(ST_MakePoint({lon}, {lat}), 4326)"
    return [sa.Column(name, _geom("POINT"), sa.Computed(expr, persisted=True))]


def _create_spatial_table(name: str, *items: Any, **kw: Any) -> None:
    if _is_pg():
        op.create_geospatial_table(name, *items, **kw)  # type: ignore[attr-defined]
    else:
        op.create_table(name, *items, **kw)


def _gist(index: str, table: str, column: str) -> None:
    if _is_pg():
        op.create_geospatial_index(  # type: ignore[attr-defined]
            index, table, [column], postgresql_using="gist"
        )


def upgrade() -> None:
    """Create every table, index, partition and the audit retention guard."""
    pg = _is_pg()
    op.create_table(
        "vessels",
        sa.Column("mmsi", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("name", sa.Text()),
        sa.Column("callsign", sa.Text()),
        sa.Column("imo", sa.BigInteger()),
        sa.Column("ship_type", sa.Integer()),
        sa.Column("length_m", sa.Float()),
        sa.Column("beam_m", sa.Float()),
        sa.Column("destination", sa.Text()),
        sa.Column("updated_at", sa.Float()),
        sa.Column("extra", sa.JSON(), nullable=False),
    )

    partition = {"postgresql_partition_by": "RANGE (t)"} if pg else {}
    _create_spatial_table(
        "positions",
        *_position_columns(),
        *_point_geom("lon", "lat"),
        sa.PrimaryKeyConstraint("mmsi", "t", name="pk_positions"),
        **partition,
    )
    if pg:
        # rows outside every monthly partition land here instead of failing the batch
        op.execute("CREATE TABLE positions_default PARTITION OF positions DEFAULT")
    _gist("ix_positions_geom", "positions", "geom")

    _create_spatial_table(
        "vessel_latest",
        *_position_columns(),
        *_point_geom("lon", "lat"),
        sa.PrimaryKeyConstraint("mmsi", name="pk_vessel_latest"),
    )
    if pg:
        _gist("ix_vessel_latest_geom", "vessel_latest", "geom")
    else:
        # SQLite filters on lon/lat; on PostGIS this B-tree would only slow every upsert
        op.create_index("ix_vessel_latest_lon_lat", "vessel_latest", ["lon", "lat"])

    _create_spatial_table(
        "zone_versions",
        sa.Column("zone_id", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("name", sa.Text()),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("geom", _geom("GEOMETRY"), nullable=False),
        sa.Column("min_lon", sa.Float(), nullable=False),
        sa.Column("min_lat", sa.Float(), nullable=False),
        sa.Column("max_lon", sa.Float(), nullable=False),
        sa.Column("max_lat", sa.Float(), nullable=False),
        sa.Column("valid_from", sa.Float()),
        sa.Column("valid_to", sa.Float()),
        sa.Column("retired", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("current", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("zone_id", "version", name="pk_zone_versions"),
    )
    op.create_index("ix_zone_versions_current", "zone_versions", ["current", "zone_id"])
    _gist("ix_zone_versions_geom", "zone_versions", "geom")

    _create_spatial_table(
        "leads",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("mmsi", sa.BigInteger(), nullable=False),
        sa.Column("rule", sa.Text(), nullable=False),
        sa.Column("citation", sa.Text(), nullable=False),
        sa.Column("zone_id", sa.Text()),
        sa.Column("zone_kind", sa.Text()),
        sa.Column("zone_version", sa.Integer()),
        sa.Column("started_at", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float()),
        sa.Column("min_distance_m", sa.Float(), nullable=False),
        sa.Column("max_sog_kn", sa.Float()),
        sa.Column("closest_lon", sa.Float(), nullable=False),
        sa.Column("closest_lat", sa.Float(), nullable=False),
        sa.Column("closest_t", sa.Float(), nullable=False),
        *_point_geom("closest_lon", "closest_lat", "closest_geom"),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("raw_sentences", sa.JSON(), nullable=False),
        sa.Column("vessel", sa.JSON(), nullable=False),
        sa.Column("authority", sa.Text()),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
    )
    for col in ("started_at", "mmsi", "rule", "zone_id", "status"):
        op.create_index(f"ix_leads_{col}", "leads", [col])
    op.create_index("ix_leads_closest", "leads", ["closest_lon", "closest_lat"])
    _gist("ix_leads_closest_geom", "leads", "closest_geom")

    op.create_table(
        "ingest_counters",
        sa.Column("name", sa.Text(), primary_key=True),
        sa.Column("value", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("role", sa.Text(), nullable=False),
        sa.Column("key_hash", sa.Text(), nullable=False, unique=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("revoked", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "ballast_audits",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
    )
    op.create_index("ix_ballast_audits_created_at", "ballast_audits", ["created_at"])
    _audit_retention_guard(pg)


def _audit_retention_guard(pg: bool) -> None:
    """Refuse, in the database itself, any delete of an audit younger than five years."""
    if pg:
        op.execute(
            f"""
            CREATE FUNCTION vigia_audit_retention() RETURNS trigger AS $$
            BEGIN
              IF OLD.created_at > extract(epoch FROM now()) - {FIVE_YEARS_S} THEN
                RAISE EXCEPTION 'ballast audit % is younger than five years', OLD.id;
              END IF;
              RETURN OLD;
            END $$ LANGUAGE plpgsql
            """
        )
        op.execute(
            "CREATE TRIGGER ballast_audits_retention BEFORE DELETE ON ballast_audits "
            "FOR EACH ROW EXECUTE FUNCTION vigia_audit_retention()"
        )
    else:
        op.execute(
            f"""
            CREATE TRIGGER ballast_audits_retention BEFORE DELETE ON ballast_audits
            WHEN OLD.created_at > (julianday('now') - 2440587.5) * 86400.0 - {FIVE_YEARS_S}
            BEGIN SELECT RAISE(ABORT, 'ballast audit is younger than five years'); END
            """
        )


def downgrade() -> None:
    """Drop everything this revision created."""
    for table in (
        "ballast_audits",
        "api_keys",
        "ingest_counters",
        "leads",
        "zone_versions",
        "vessel_latest",
        "positions",
        "vessels",
    ):
        op.drop_table(table)
    if _is_pg():
        op.execute("DROP FUNCTION IF EXISTS vigia_audit_retention()")
