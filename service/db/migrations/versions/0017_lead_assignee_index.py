"""An officer's leads (issue 39, "meus indícios"): ``GET /leads?assignee=NAME``.

The officer lives in the lead's procedure record (``procedure.assignment.officer``), a
JSON field no index held: the page read the newest-first index and tested every lead's
JSON until it had a page, and the count read them all (100,000 leads on SQLite: p50
77 ms). ``ix_leads_assignee_newest`` holds (officer, started_at DESC, id), so an
officer's page is one range read in the list's order and the count a range count:

- the expression is the one the filter renders (``AssignedOfficer`` in models.py), as
  text here, as every migration keeps its own: SQLite
  ``json_extract(procedure, '$.assignment.officer')``, PostgreSQL
  ``((procedure -> 'assignment') ->> 'officer')`` (a store uses an expression index only
  for a query naming the same expression);
- partial, like migration 0013's, over the unsilenced leads, and only those with an
  officer: a lead nobody was assigned takes no entry and its writes no index work.

docs/caseload.md gives the plans on both stores.

Revision ID: 0017_lead_assignee_index
Revises: 0016_identity_history
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0017_lead_assignee_index", "0016_identity_history"
branch_labels = None
depends_on = None
NAME = "ix_leads_assignee_newest"


def upgrade() -> None:
    """Create the index (both stores: a partial B-tree on an expression)."""
    if op.get_bind().dialect.name == "postgresql":
        # parenthesised: CREATE INDEX takes an operator expression only in parentheses
        officer = "((procedure -> 'assignment') ->> 'officer')"
    else:
        officer = "json_extract(procedure, '$.assignment.officer')"
    where = sa.text(f"silence_id IS NULL AND {officer} IS NOT NULL")
    cols = [sa.text(officer), sa.text("started_at DESC"), sa.text("id")]
    op.create_index(NAME, "leads", cols, sqlite_where=where, postgresql_where=where)


def downgrade() -> None:
    """Drop it."""
    op.drop_index(NAME, table_name="leads")
