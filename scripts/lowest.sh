#!/usr/bin/env bash
# Runs the tests against the LOWEST versions pyproject.toml allows for Vigia's direct
# dependencies (uv's lowest-direct resolution), in a separate venv under build/lowest,
# so the lower bounds we publish are ones we have tested. Pass pytest arguments to
# narrow the run (e.g. bash scripts/lowest.sh tests/ingest -x).
set -euo pipefail
cd "$(dirname "$0")/.."
export UV_PYTHON_DOWNLOADS=never
python3 -m uv --version >/dev/null 2>&1 || python3 -m pip install -q "uv==0.13.9"
OUT=build/lowest
mkdir -p "$OUT"
python3 -m uv pip compile pyproject.toml --extra dev --resolution lowest-direct \
  --python-version 3.11 --quiet -o "$OUT/requirements.txt"
[ -x "$OUT/venv/bin/python" ] || python3 -m uv venv --quiet "$OUT/venv"
python3 -m uv pip sync --quiet -p "$OUT/venv/bin/python" "$OUT/requirements.txt"
python3 -m uv pip install --quiet -p "$OUT/venv/bin/python" --no-deps --reinstall-package vigia .
echo "== lowest direct versions:"
grep -E '^(pyais|shapely|pyproj|numpy|fastapi|uvicorn|sqlalchemy|geoalchemy2|alembic|psycopg|pydantic|pydantic-settings|tqdm|prometheus-client|scipy|pytest|hypothesis|schemathesis|httpx|h5py|pyogrio)==' "$OUT/requirements.txt" | tr '\n' ' '; echo
export VIGIA_TEST_DATABASE_URL=${VIGIA_TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/${VIGIA_TEST_DB:-vigia_test}}
# run from the repository so tests/ and scripts/ import; vigia comes from the venv
"$OUT/venv/bin/python" -m pytest -p no:cacheprovider "$@"
