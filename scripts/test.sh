#!/usr/bin/env bash
# The whole test suite: setup from the lock, lint, format check, strict typing, then
# pytest (SQLite and PostGIS stores both, real sockets, real NMEA files).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
VENV=${UV_PROJECT_ENVIRONMENT:-.venv}
export PATH="$PWD/$VENV/bin:$PATH"
export VIGIA_TEST_DATABASE_URL=${VIGIA_TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/${VIGIA_TEST_DB:-vigia_test}}
echo "== ruff check"; ruff check .
echo "== ruff format --check"; ruff format --check .
echo "== hadolint Dockerfile"; hadolint Dockerfile
echo "== mypy --strict"; bash scripts/typecheck.sh
# Several workers (pytest-xdist), whole modules each (--dist loadscope: a module's servers
# and browser start once): most of the suite's time is spent waiting on servers it
# kills, stops and restarts, and workers overlap those waits. VIGIA_TEST_WORKERS=0 runs
# in this one process.
echo "== pytest"
python -m pytest -n "${VIGIA_TEST_WORKERS:-4}" --dist loadscope --durations=15 "$@"
