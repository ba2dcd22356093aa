# Vigia service image: the API and the ingest worker in one process.
# DATABASE_URL=postgresql+psycopg://... switches from the embedded SQLite file to PostGIS.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app

COPY pyproject.toml README.md ./
COPY ingest ./ingest
COPY zones ./zones
COPY alerts ./alerts
COPY service ./service
COPY data ./data
RUN pip install --no-cache-dir . && useradd --create-home vigia && mkdir -p /var/lib/vigia \
    && chown vigia /var/lib/vigia

USER vigia
WORKDIR /var/lib/vigia
ENV VIGIA_ZONES_DIR=/app/data/geojson
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)" || exit 1
CMD ["vigia", "serve", "--host", "0.0.0.0", "--port", "8000"]
