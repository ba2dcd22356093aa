#!/usr/bin/env bash
# Installs what Vigia and its tests need on a fresh machine of this kind, from the lock:
# uv (from the package index, if missing), the project's environment (.venv, exactly as
# uv.lock says, with the dev extra; a stale lock fails here), gpsd (for the gpsd:// feed
# tests), PostGIS for the machine's
# PostgreSQL, and the test database with the postgis extension. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
export UV_PYTHON_DOWNLOADS=never  # use the machine's Python; never fetch one

# apt-get that waits for another apt or dpkg process (an unattended upgrade, a second
# setup) instead of failing: dpkg's lock through apt's own timeout, the lists' lock
# (apt-get update) by retrying while apt says it could not get a lock
apt_get() {
  local err
  for _ in $(seq 1 60); do
    if err=$(apt-get -o DPkg::Lock::Timeout=600 "$@" 2>&1 >/dev/null); then return 0; fi
    case "$err" in
      *"Could not get lock"*|*"Unable to acquire"*|*"is another process using it"*) sleep 10 ;;
      *) echo "$err" >&2; return 1 ;;
    esac
  done
  echo "$err" >&2; return 1
}

python3 -m uv --version >/dev/null 2>&1 || python3 -m pip install -q "uv==0.13.9"

# gpsd: the ingest tests start a private daemon to check the gpsd:// feed against it
if ! command -v gpsd >/dev/null 2>&1 && [ ! -x /usr/sbin/gpsd ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends gpsd >/dev/null
  # the tests start their own daemon; the packaged service must not hold port 2947
  systemctl disable --now gpsd.socket gpsd.service >/dev/null 2>&1 || true
fi
# bytecode compiled once at install: with PYTHONDONTWRITEBYTECODE set (as on CI
# machines), every test process and server start would otherwise recompile every import
python3 -m uv sync --locked --extra dev --compile-bytecode
# ... and Vigia's own modules, which the environment imports from this checkout
"${UV_PROJECT_ENVIRONMENT:-.venv}/bin/python" -m compileall -q -j 0 ingest zones alerts service benchmarks scripts tests >/dev/null || true

# pdftoppm/pdftotext: the document tests turn the drafted PDFs into images and text
if ! command -v pdftoppm >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt_get update -qq
  apt_get install -y -qq poppler-utils >/dev/null
fi

# GDAL's own command-line client (ogrinfo): the OGC filter tests drive it against a real
# server, as an operator's QGIS/GDAL would (tests/live/test_ogc_clients.py)
if ! command -v ogrinfo >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends gdal-bin >/dev/null
fi

# the dashboard's browser tests drive Debian's chromium through Playwright (never a
# browser downloaded by `playwright install`, which cannot be fetched here)
if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt_get update -qq
  apt_get install -y -qq chromium >/dev/null
fi

PGVER=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1 || true)
if [ -n "${PGVER}" ]; then
  if [ ! -f "/usr/share/postgresql/${PGVER}/extension/postgis.control" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt_get update -qq
    apt_get install -y -qq "postgresql-${PGVER}-postgis-3" >/dev/null
  fi
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    pg_ctlcluster --skip-systemctl-redirect "${PGVER}" main start || true
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
  DB=${VIGIA_TEST_DB:-vigia_test}
  if ! psql -h 127.0.0.1 -U postgres -tAc "select 1 from pg_database where datname='${DB}'" | grep -q 1; then
    psql -h 127.0.0.1 -U postgres -qc "create database ${DB}"
  fi
  psql -h 127.0.0.1 -U postgres -d "${DB}" -qc "create extension if not exists postgis"
fi

# NATS with JetStream for broker mode and its tests: start one at 127.0.0.1:4222 only if
# nothing answers there (an existing server, shared by others, is left alone). The tests
# that restart a broker start their own private one on a free port.
if ! (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; then
  if ! command -v nats-server >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt_get update -qq
    apt_get install -y -qq nats-server >/dev/null
  fi
  NATS_DIR=${VIGIA_NATS_DIR:-/var/lib/vigia-nats}
  mkdir -p "${NATS_DIR}"
  nohup nats-server -js -a 127.0.0.1 -p 4222 -sd "${NATS_DIR}" >"${NATS_DIR}/server.log" 2>&1 &
  for _ in $(seq 1 30); do (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null && break; sleep 0.5; done
fi
