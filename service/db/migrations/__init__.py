"""Alembic migrations; run through ``service.db.engine.migrate`` (no alembic.ini needed)."""
