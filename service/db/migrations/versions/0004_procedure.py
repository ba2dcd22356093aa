"""The administrative procedure: lead procedure record, append-only history, keys limited
to one authority, silences and the 0310 watch-list.

The history and a closed lead's evidence are guarded by triggers in the database
itself, so no code path (and no hand-typed SQL) can rewrite them.

Revision ID: 0004_procedure
Revises: 0003_zone_properties
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_procedure"
down_revision = "0003_zone_properties"
branch_labels = None
depends_on = None

# columns of a lead that are its evidence: frozen once the episode has ended
_EVIDENCE = (
    "mmsi",
    "rule",
    "zone_id",
    "zone_version",
    "started_at",
    "ended_at",
    "min_distance_m",
    "max_sog_kn",
    "closest_lon",
    "closest_lat",
    "closest_t",
)
_EVIDENCE_JSON = ("evidence", "raw_sentences")


def _guards(pg: bool) -> None:
    if pg:
        op.execute(
            """
            CREATE FUNCTION vigia_history_append_only() RETURNS trigger AS $$
            BEGIN
              RAISE EXCEPTION 'lead history is append-only';
            END $$ LANGUAGE plpgsql
            """
        )
        op.execute(
            "CREATE TRIGGER lead_history_append_only BEFORE UPDATE OR DELETE ON lead_history "
            "FOR EACH ROW EXECUTE FUNCTION vigia_history_append_only()"
        )
        op.execute(
            "CREATE TRIGGER lead_history_no_truncate BEFORE TRUNCATE ON lead_history "
            "FOR EACH STATEMENT EXECUTE FUNCTION vigia_history_append_only()"
        )
        changed = " OR ".join(
            [f"NEW.{c} IS DISTINCT FROM OLD.{c}" for c in _EVIDENCE]
            + [f"NEW.{c}::text IS DISTINCT FROM OLD.{c}::text" for c in _EVIDENCE_JSON]
        )
        op.execute(
            f"""
            CREATE FUNCTION vigia_closed_evidence() RETURNS trigger AS $$
            BEGIN
              IF OLD.ended_at IS NOT NULL AND ({changed}) THEN
                RAISE EXCEPTION 'the evidence of closed lead % cannot change', OLD.id;
              END IF;
              RETURN NEW;
            END $$ LANGUAGE plpgsql
            """
        )
        op.execute(
            "CREATE TRIGGER leads_closed_evidence BEFORE UPDATE ON leads "
            "FOR EACH ROW EXECUTE FUNCTION vigia_closed_evidence()"
        )
        return
    for event in ("UPDATE", "DELETE"):
        op.execute(
            f"""
            CREATE TRIGGER lead_history_no_{event.lower()} BEFORE {event} ON lead_history
            BEGIN SELECT RAISE(ABORT, 'lead history is append-only'); END
            """
        )
    changed = " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in (*_EVIDENCE, *_EVIDENCE_JSON))
    op.execute(
        f"""
        CREATE TRIGGER leads_closed_evidence BEFORE UPDATE ON leads
        WHEN OLD.ended_at IS NOT NULL AND ({changed})
        BEGIN SELECT RAISE(ABORT, 'the evidence of a closed lead cannot change'); END
        """
    )


def upgrade() -> None:
    """Add the procedure columns and tables, and the guards."""
    pg = op.get_bind().dialect.name == "postgresql"
    with op.batch_alter_table("leads") as batch:
        batch.add_column(sa.Column("procedure", sa.JSON()))
        batch.add_column(sa.Column("due_on", sa.Text()))
        batch.add_column(sa.Column("infraction_on", sa.Text()))
        batch.add_column(sa.Column("silence_id", sa.Integer()))
    op.create_index("ix_leads_authority", "leads", ["authority"])
    op.create_index("ix_leads_due_on", "leads", ["due_on"])
    op.create_index("ix_leads_mmsi_infraction_on", "leads", ["mmsi", "infraction_on"])
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("authority", sa.Text()))
    op.create_table(
        "lead_history",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("lead_id", sa.Text(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("by_name", sa.Text(), nullable=False),
        sa.Column("by_role", sa.Text(), nullable=False),
        sa.Column("from_status", sa.Text(), nullable=False),
        sa.Column("to_status", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text()),
        sa.Column("before", sa.JSON(), nullable=False),
        sa.Column("after", sa.JSON(), nullable=False),
    )
    op.create_index("ix_lead_history_lead", "lead_history", ["lead_id", "id"])
    op.create_table(
        "silences",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("mmsi", sa.BigInteger()),
        sa.Column("zone_id", sa.Text()),
        sa.Column("starts_at", sa.Float()),
        sa.Column("until", sa.Float(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "watchlist",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("mmsi", sa.BigInteger(), nullable=False),
        sa.Column("lon", sa.Float(), nullable=False),
        sa.Column("lat", sa.Float(), nullable=False),
        sa.Column("radius_m", sa.Float(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("authority", sa.Text()),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False, server_default=sa.true()),
    )
    op.create_index("ix_watchlist_mmsi", "watchlist", ["mmsi"])
    _guards(pg)


def downgrade() -> None:
    """Drop what this revision added."""
    pg = op.get_bind().dialect.name == "postgresql"
    op.execute("DROP TRIGGER IF EXISTS leads_closed_evidence" + (" ON leads" if pg else ""))
    if pg:
        op.execute("DROP FUNCTION IF EXISTS vigia_closed_evidence()")
    op.drop_table("watchlist")
    op.drop_table("silences")
    op.drop_table("lead_history")
    if pg:
        op.execute("DROP FUNCTION IF EXISTS vigia_history_append_only()")
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("authority")
    for index in ("ix_leads_mmsi_infraction_on", "ix_leads_due_on", "ix_leads_authority"):
        op.drop_index(index, table_name="leads")
    with op.batch_alter_table("leads") as batch:
        for col in ("silence_id", "infraction_on", "due_on", "procedure"):
            batch.drop_column(col)
