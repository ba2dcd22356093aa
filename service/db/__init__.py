"""Storage: SQLAlchemy models, engine creation and the SQL repository (SQLite and PostGIS)."""
