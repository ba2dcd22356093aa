"""SQL expressions on a lead's JSON documents that each store renders in its own dialect
and that an expression index can hold (models.py declares the indexes, the migrations
create them)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Text
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement


class AssignedOfficer(FunctionElement[str]):
    """The officer a lead is assigned to (``procedure.assignment.officer``), NULL for
    none: SQLite ``json_extract(procedure, '$.assignment.officer')``, PostgreSQL
    ``((procedure -> 'assignment') ->> 'officer')``.

    One construct rendered per dialect, so the filter and the index expression of
    migration 0017 are the same text: each store uses an expression index only for a
    query naming the same expression. The path is written into the SQL, never bound: a
    bound path (``json_extract(procedure, ?)``) matches no index on SQLite, nor in a
    PostgreSQL generic plan, and lead_pages runs compiled counts as raw SQL. On
    PostgreSQL the operator form, as ``pg_get_indexdef`` gives it back, so Alembic's
    comparison of models and schema sees one expression (json_extract_path_text comes
    back as ``VARIADIC ARRAY[...]``)."""

    type = Text()
    name = "assigned_officer"
    inherit_cache = True


@compiles(AssignedOfficer)
def _officer_sqlite(element: AssignedOfficer, compiler: Any, **kw: Any) -> str:
    # SQLite's and the default rendering (str() of a statement)
    return f"json_extract({compiler.process(element.clauses, **kw)}, '$.assignment.officer')"


@compiles(AssignedOfficer, "postgresql")
def _officer_pg(element: AssignedOfficer, compiler: Any, **kw: Any) -> str:
    # parenthesised whole: CREATE INDEX needs an operator expression in parentheses
    return f"(({compiler.process(element.clauses, **kw)} -> 'assignment') ->> 'officer')"
