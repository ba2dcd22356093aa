# Vigia service image, built from uv.lock (the versions the test suite ran against).
#   docker build -t vigia .
#   docker run -p 8000:8000 -p 10110:10110/udp -v vigia-data:/var/lib/vigia vigia
# Modes (one image): the API and the ingest worker (default), the API alone
# (`vigia serve --no-worker`), or the worker alone (`vigia serve --worker-only`); the
# health check (`vigia healthcheck`) suits all three: the API answers /healthz, the
# worker alone touches a heartbeat file.
# DATABASE_URL=postgresql+psycopg://... switches from the embedded SQLite file to PostGIS.

FROM python:3.11-slim AS build
# uv from the package index, pinned like scripts/setup.sh
RUN pip install --no-cache-dir "uv==0.13.9"
ENV UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/opt/vigia
WORKDIR /src
# dependencies first, exactly as locked (a layer that survives code changes)
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --locked --no-dev --no-install-project
COPY ingest ./ingest
COPY zones ./zones
COPY alerts ./alerts
COPY service ./service
COPY data/geojson ./data/geojson
# Vigia itself, not editable: the bundled zones and basemaps travel inside the package
RUN uv sync --locked --no-dev --no-editable

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PATH=/opt/vigia/bin:$PATH \
    VIGIA_API_HOST=0.0.0.0 VIGIA_API_PORT=8000 \
    VIGIA_INGEST_UDP_PORTS=10110 \
    VIGIA_HEARTBEAT_FILE=/tmp/vigia.alive \
    VIGIA_DATA_DIR=/var/lib/vigia
COPY --from=build /opt/vigia /opt/vigia
RUN useradd --create-home --uid 10001 vigia \
    && mkdir -p /var/lib/vigia && chown vigia /var/lib/vigia
USER 10001
# the SQLite store, the writer's spool and its counters live here: keep it on a volume
WORKDIR /var/lib/vigia
VOLUME ["/var/lib/vigia"]
# HTTP API; NMEA over UDP (10110 is the port NMEA 0183 over IP conventionally uses;
# change VIGIA_INGEST_UDP_PORTS and publish the same port to listen elsewhere)
EXPOSE 8000/tcp 10110/udp
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["vigia", "healthcheck", "--max-age", "60"]
CMD ["vigia", "serve"]
