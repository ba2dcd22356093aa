"""The register of state vessels (issue 34), revision 0012_state_vessels after
0011_archived_days: a ship type 35 or 55 exempts only the vessels on it, and every entry
says where it comes from.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0012_state_vessels", "0011_archived_days"
TABLE, INDEX = "state_vessels", "ix_state_vessels_mmsi"
#: every column but the id: name, type, whether it may be empty
COLUMNS = (
    ("mmsi", sa.BigInteger, False),
    *((text, sa.Text, False) for text in ("name", "kind", "source")),
    *((end, sa.Float, True) for end in ("valid_from", "valid_to")),
    ("note", sa.Text, True),
    ("created_at", sa.Float, False),
)


def upgrade() -> None:
    """Create the table and its MMSI index."""
    key = sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True)
    op.create_table(TABLE, key, *(sa.Column(n, t(), nullable=e) for n, t, e in COLUMNS))
    op.create_index(INDEX, TABLE, ["mmsi"])


def downgrade() -> None:
    """Drop them."""
    op.drop_index(INDEX, table_name=TABLE)
    op.drop_table(TABLE)
