"""Keyset indexes for the lead lists (issue 39): every offered order and common filter.

``GET /leads`` and ``/collections/leads/items`` page with cursors (the last lead's sort
key) instead of OFFSET, and each page is one range read of one of these indexes, in the
list's own order, over the unsilenced leads every list shows by default (partial
indexes: ``WHERE silence_id IS NULL``, and ``AND due_on IS NOT NULL`` for the deadline
order, whose leads without a deadline come from ``ix_leads_newest``):

- ``ix_leads_newest``: (started_at DESC, id), the default list;
- ``ix_leads_due``: (due_on, started_at DESC, id), ``sort=due``;
- ``ix_leads_rule_newest``, ``ix_leads_status_newest``, ``ix_leads_authority_newest``:
  the same order under a rule, a status or an authority (a scoped key's every list);
- ``ix_leads_authority_due``: a scoped key's deadline view.

docs/caseload.md gives each query's plan on both stores.

Revision ID: 0013_lead_list_indexes
Revises: 0012_state_vessels
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0013_lead_list_indexes", "0012_state_vessels"
branch_labels = None
depends_on = None
_UNSILENCED = "silence_id IS NULL"
_DUE = "silence_id IS NULL AND due_on IS NOT NULL"
#: name, leading columns, partial condition (each ends with started_at DESC, id)
INDEXES = (
    ("ix_leads_newest", (), _UNSILENCED),
    ("ix_leads_due", ("due_on",), _DUE),
    ("ix_leads_rule_newest", ("rule",), _UNSILENCED),
    ("ix_leads_status_newest", ("status",), _UNSILENCED),
    ("ix_leads_authority_newest", ("authority",), _UNSILENCED),
    ("ix_leads_authority_due", ("authority", "due_on"), _DUE),
)


def upgrade() -> None:
    """Create the indexes (both stores: partial B-trees)."""
    for name, lead, where in INDEXES:
        cols = [sa.text(c) for c in lead] + [sa.text("started_at DESC"), sa.text("id")]
        op.create_index(
            name, "leads", cols, sqlite_where=sa.text(where), postgresql_where=sa.text(where)
        )


def downgrade() -> None:
    """Drop them."""
    for name, _lead, _where in INDEXES:
        op.drop_index(name, table_name="leads")
