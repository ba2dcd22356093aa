"""Maintenance scripts, importable (run as ``python -m scripts.NAME`` from the repository)."""
