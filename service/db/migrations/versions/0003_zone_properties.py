"""Zones are stored in one JSON format: the contract's Feature properties.

Before this revision a zone version's ``properties`` column held a format of its own
(``allowed_mmsi``/``allowed_ship_types`` lists, the file's extra properties nested under
``properties``, every key present even when null), beside the Feature format zone files
and the API use. Now the column holds the Feature properties (less ``id``, ``kind`` and
``version``, which have columns), so one reader and one writer serve both. This rewrites
the stored rows in place; downgrade writes the old format back. Written against plain
dicts, not Vigia's classes, so later code changes cannot alter what it does.

Revision ID: 0003_zone_properties
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003_zone_properties"
down_revision = "0002"
branch_labels = None
depends_on = None

_OPTIONAL = (
    "name",
    "distance_m",
    "valid_from",
    "valid_to",
    "max_dwell_min",
    "authority",
    "notice",
    "source",
)
_TABLE = sa.table(
    "zone_versions",
    sa.column("zone_id", sa.Text),
    sa.column("version", sa.Integer),
    sa.column("properties", sa.JSON),
)


def to_feature_properties(old: dict[str, Any]) -> dict[str, Any]:
    """The Feature properties of a row written in the old format."""
    if "allowed_mmsi" not in old and "properties" not in old:
        return old  # already the new format
    new: dict[str, Any] = dict(old.get("properties") or {})
    new.update({k: old[k] for k in _OPTIONAL if old.get(k) is not None})
    mmsi, types = old.get("allowed_mmsi") or [], old.get("allowed_ship_types") or []
    if mmsi or types:
        new["allowed"] = {"mmsi": sorted(mmsi), "ship_types": sorted(types)}
    new["anchoring_prohibited"] = bool(old.get("anchoring_prohibited", False))
    return new


def to_old_properties(new: dict[str, Any]) -> dict[str, Any]:
    """The old row format of Feature properties."""
    known = {*_OPTIONAL, "allowed", "anchoring_prohibited"}
    allowed = new.get("allowed") or {}
    return {
        **{k: new.get(k) for k in _OPTIONAL},
        "allowed_mmsi": sorted(allowed.get("mmsi", [])),
        "allowed_ship_types": sorted(allowed.get("ship_types", [])),
        "anchoring_prohibited": bool(new.get("anchoring_prohibited", False)),
        "properties": {k: v for k, v in new.items() if k not in known},
    }


def _rewrite(convert: Any) -> None:
    conn = op.get_bind()
    rows = conn.execute(sa.select(_TABLE.c.zone_id, _TABLE.c.version, _TABLE.c.properties))
    for zone_id, version, props in rows.all():
        conn.execute(
            _TABLE.update()
            .where(_TABLE.c.zone_id == zone_id, _TABLE.c.version == version)
            .values(properties=convert(dict(props or {})))
        )


def upgrade() -> None:
    """Rewrite every stored zone version in the Feature format."""
    _rewrite(to_feature_properties)


def downgrade() -> None:
    """Write them back in the old format."""
    _rewrite(to_old_properties)
