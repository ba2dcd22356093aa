"""Service settings, one pydantic-settings class per concern.

Every class reads environment variables prefixed ``VIGIA_`` (the database URL is plain
``DATABASE_URL``, as most platforms set it). Nothing is read at import: ``Settings.load()``
is called by ``create_app`` or the command that needs it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BaseModel, Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


def _split_list(value: Any) -> Any:
    """Accept ``a,b,c`` (as an environment variable) as well as a real list."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            import json

            return json.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value


class DatabaseSettings(BaseSettings):
    """Where the store lives: PostGIS when ``DATABASE_URL`` is set, else a SQLite file."""

    model_config = SettingsConfigDict(env_prefix="VIGIA_", extra="ignore", populate_by_name=True)

    url: str | None = Field(
        default=None, validation_alias=AliasChoices("DATABASE_URL", "VIGIA_DATABASE_URL")
    )
    sqlite_path: str = "vigia.sqlite"


class ApiSettings(BaseSettings):
    """HTTP server address, upload limits and page sizes."""

    model_config = SettingsConfigDict(env_prefix="VIGIA_API_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    max_upload_bytes: int = Field(default=5_000_000, gt=0)
    max_upload_features: int = Field(default=2_000, gt=0)
    max_upload_vertices: int = Field(default=200_000, gt=0)
    default_page_limit: int = Field(default=100, gt=0)
    max_page_limit: int = Field(default=1_000, gt=0)
    # a vessel's track is paged: one page holds at most this many positions
    track_default_limit: int = Field(default=10_000, gt=0)
    track_max_limit: int = Field(default=50_000, gt=0)
    # production mode turns off what only a developer needs (the API docs, by default)
    production: bool = False
    # serve /docs, /redoc and /openapi.json; unset: on, except in production mode
    docs: bool | None = None
    # the address clients reach the API at (e.g. https://vigia.example/api); absolute
    # links are built from it, never from the request's Host header
    public_url: str | None = None

    @field_validator("public_url")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("public_url must be an absolute http(s) URL")
        return value.rstrip("/")

    @property
    def docs_enabled(self) -> bool:
        """Whether the API description and its pages are served."""
        return (not self.production) if self.docs is None else self.docs

    # a request's headers must be complete this long after the connection opens or the
    # previous response ends, or the connection is closed (slow or partial headers)
    header_timeout_s: float = Field(default=10.0, gt=0, le=600)
    # a request's body must be complete this long after its headers, or the connection is
    # closed: a client that declares a length and trickles (or never sends) the body would
    # otherwise hold its connection for ever. 5 MB (max_upload_bytes) in 60 s is 0.7 Mbit/s
    body_timeout_s: float = Field(default=60.0, gt=0, le=3600)
    # a client that reads nothing of its answers this long while more wait for it is cut
    # off (an idle timer: a slow reader that makes progress is never cut)
    send_timeout_s: float = Field(default=60.0, gt=0, le=3600)

    # requests a second (refill) and burst (bucket size) allowed per API key and per client
    # address (the proxy's X-Forwarded-For client when it is trusted: uvicorn's
    # FORWARDED_ALLOW_IPS); one more gets a 429 with Retry-After before any work is done.
    # 0 turns a limit off. Generous: a dashboard makes a few requests a second
    rate_per_key: int = Field(default=100, ge=0, le=1_000_000)
    rate_per_key_burst: int = Field(default=400, gt=0, le=1_000_000)
    rate_per_address: int = Field(default=200, ge=0, le=1_000_000)
    rate_per_address_burst: int = Field(default=800, gt=0, le=1_000_000)

    # how often (s) CPython lets another thread run; shorter keeps API latency low while
    # the worker decodes in the same process (Python's default is 0.005)
    switch_interval_s: float = Field(default=0.005, gt=0, le=1)
    # freeze the start-up heap out of the garbage collector once the service has started
    # (service/runtime/gc_tune.py): full collections over it stopped the event loop for
    # 0.2 s every few seconds under load. Off in the test suite, which builds many apps
    # in one process and must get each one's memory back
    gc_freeze: bool = True


class IngestSettings(BaseSettings):
    """The worker's sources, pacing, and what it accepts from the wire.

    ``tcp_feeds`` are ``host:port`` line feeds or ``gpsd://host:port`` gpsd daemons.
    ``udp_host`` is the address UDP ports listen on: loopback by default, so that nobody
    off the machine can inject positions; set it to the receiver-facing interface (or
    ``0.0.0.0``) only behind a firewall that admits your receivers alone.
    """

    model_config = SettingsConfigDict(env_prefix="VIGIA_INGEST_", extra="ignore")

    worker: bool = True
    tcp_feeds: Annotated[list[str], NoDecode] = Field(default_factory=list)
    udp_ports: Annotated[list[int], NoDecode] = Field(default_factory=list)
    files: Annotated[list[str], NoDecode] = Field(default_factory=list)
    udp_host: str = "127.0.0.1"
    queue_size: int = Field(default=50_000, gt=0)
    write_buffer: int = Field(default=500_000, gt=0)
    # the write buffer's bound in bytes too (raw sentences included), whatever the count
    write_buffer_bytes: int = Field(default=256 << 20, gt=0)
    # longest line accepted from any source (NMEA's 82 + tag block + USCG fields + slack)
    max_line_chars: int = Field(default=1024, ge=100)
    # characters of incomplete multi-sentence messages held while waiting for the rest
    max_pending_bytes: int = Field(default=4 << 20, gt=0)
    # a message time this far after its receipt is clamped to the receipt time
    max_ahead_s: float = Field(default=300.0, ge=0)
    # on live feeds (not file replays) a message time this far before its receipt is
    # refused; satellite feeds arrive late, so keep it hours, not minutes
    max_behind_s: float | None = Field(default=6 * 3600.0, gt=0)
    flush_interval_s: float = Field(default=1.0, gt=0)
    counters_interval_s: float = Field(default=10.0, gt=0)
    ready_max_message_age_s: float | None = None
    # the writer's durable journal (a folder; relative: next to the SQLite file, else the
    # working directory; empty: off, and a killed process loses what it had buffered)
    spool_dir: str | None = "vigia-spool"
    # ATON-DAMAGE: vessels within this distance of an aid to navigation in the lookback
    # before it went off position (or silent) are listed as candidates for the damage
    aton_radius_m: float = Field(default=500.0, gt=0, le=50_000)
    aton_lookback_s: float = Field(default=3_600.0, gt=0, le=86_400)
    aton_silent_s: float = Field(default=1_800.0, gt=0)
    # the lateness bound (docs/leads.md, "However the data arrives"): a record up to this
    # much older than the stream clock takes its place in its vessel's history, and no
    # lead is settled (closed for good) before the bound has passed it. Satellite AIS
    # arrives minutes to a couple of hours late; 0 judges in arrival order
    lateness_s: float = Field(default=7_200.0, ge=0, le=86_400)

    @field_validator("tcp_feeds", "udp_ports", "files", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        return _split_list(value)

    @field_validator("tcp_feeds")
    @classmethod
    def _host_port(cls, value: list[str]) -> list[str]:
        for feed in value:
            host, sep, port = feed.removeprefix("gpsd://").rpartition(":")
            if not sep or not host or not port.isdigit():
                raise ValueError(f"TCP feed {feed!r} is not host:port or gpsd://host:port")
        return value


def spool_path(ingest: IngestSettings, database: DatabaseSettings) -> Path | None:
    """The writer's spool folder for this database, or None when the spool is off.

    One subfolder per database (named by a hash of its URL without the password), so a
    spool is only ever replayed into the database it was journaled for, and services on
    different databases never share one.
    """
    if not ingest.spool_dir:
        return None
    base = Path(ingest.spool_dir)
    url = database.url or f"sqlite:///{Path(database.sqlite_path)}"
    if url.startswith("sqlite:///"):
        db_file = Path(url.removeprefix("sqlite:///")).resolve()
        if not base.is_absolute():
            base = db_file.parent / base
        key = f"sqlite:///{db_file}"
    else:
        from sqlalchemy.engine import make_url

        key = make_url(url).render_as_string(hide_password=True)
    return base.resolve() / hashlib.sha256(key.encode()).hexdigest()[:16]


class ArchiveSettings(BaseSettings):
    """The hot window and the GeoParquet archive behind it (docs/archive.md)."""

    model_config = SettingsConfigDict(env_prefix="VIGIA_", extra="ignore")

    # VIGIA_ARCHIVE_DIR; default: a ``vigia-archive`` folder beside the SQLite file, or
    # for PostGIS ``VIGIA_DATA_DIR/<database>/vigia-archive``
    archive_dir: str | None = None
    # VIGIA_DATA_DIR: where a PostGIS store's files on this machine go (its archive):
    # never the working directory, which changes with how the service is started (a
    # restored service started elsewhere showed 3 of 7 days of a track, and said nothing)
    data_dir: str | None = None
    # VIGIA_RETENTION_HOT_DAYS: days of positions the store keeps; ``vigia serve``
    # moves older whole UTC days to the archive once a day. Empty: never.
    retention_hot_days: float | None = Field(default=30.0, gt=0)
    # VIGIA_ARCHIVE_GEOMETRY_ENCODING: ``wkb`` adds each point as WKB, declared as the
    # files' geometry, for readers that know no native GeoParquet encoding (GDAL before
    # 3.9, geopandas before 1.0, DuckDB's GEOMETRY: docs/archive.md)
    archive_geometry_encoding: Literal["native", "wkb"] = "native"

    @field_validator("retention_hot_days", mode="before")
    @classmethod
    def _empty_is_off(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() in ("", "off", "none"):
            return None
        return value


def archive_path(archive: ArchiveSettings, database: DatabaseSettings) -> Path:
    """The archive folder for this store."""
    if archive.archive_dir:
        return Path(archive.archive_dir).resolve()
    url = database.url or ""
    if url and not url.startswith("sqlite:///"):
        from sqlalchemy.engine import make_url

        return data_dir(archive) / str(make_url(url).database) / "vigia-archive"
    db_file = Path(url.removeprefix("sqlite:///") if url else database.sqlite_path)
    return db_file.resolve().parent / "vigia-archive"


def data_dir(archive: ArchiveSettings) -> Path:
    """VIGIA_DATA_DIR, else the user's data folder (``$XDG_DATA_HOME/vigia``, by default
    ``~/.local/share/vigia``; the container image sets ``/var/lib/vigia``)."""
    if archive.data_dir:
        return Path(archive.data_dir).resolve()
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg).resolve() / "vigia"


MIN_BOOTSTRAP_KEY = 24


class AuthSettings(BaseSettings):
    """Keys: an optional admin key handed in by the deployment (stored hashed at start)."""

    model_config = SettingsConfigDict(env_prefix="VIGIA_AUTH_", extra="ignore")

    bootstrap_admin_key: SecretStr | None = None
    # signs the stream tokens an EventSource opens /leads/stream with; unset, one is drawn
    # at start (tokens then die with the process, and replicas cannot share them)
    stream_token_secret: SecretStr | None = None
    # how long a stream token opens the stream; an open stream is not cut when it expires
    stream_token_ttl_s: float = Field(default=300.0, ge=5.0, le=3600.0)

    @field_validator("bootstrap_admin_key", "stream_token_secret")
    @classmethod
    def _long_enough(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        # an admin key is the whole API, and a token secret forges any caller's token;
        # `vigia apikey create` makes 43-character keys
        if value is not None and len(value.get_secret_value()) < MIN_BOOTSTRAP_KEY:
            name = f"VIGIA_AUTH_{str(info.field_name).upper()}"
            raise ValueError(f"{name} must be at least {MIN_BOOTSTRAP_KEY} characters")
        return value


class ZoneSettings(BaseSettings):
    """Where the bundled zones come from, loaded into an empty store at start; and the
    bundled register of state vessels (``VIGIA_STATE_VESSELS_FILE``, a CSV; default the
    bundled data/state_vessels.csv), offered once to a store that holds none."""

    model_config = SettingsConfigDict(env_prefix="VIGIA_", extra="ignore")

    zones_dir: str | None = None
    load_bundled: bool = True
    state_vessels_file: str | None = None


class BusSettings(BaseSettings):
    """Broker mode (NATS JetStream): off by default, the service then runs as one process.

    ``partitions`` fixes how MMSIs map to subjects (``mmsi % partitions``); every ingest
    and evaluation process of one deployment must agree on it, and changing it needs an
    empty stream (a vessel would otherwise sit in two partitions at once).
    """

    model_config = SettingsConfigDict(env_prefix="VIGIA_BUS_", extra="ignore")

    url: str = "nats://127.0.0.1:4222"
    prefix: str = Field(default="vigia", pattern=r"^[a-z][a-z0-9_]*$")
    partitions: int = Field(default=16, ge=1, le=1024)
    # records per bus message: one publish per partition per ingest batch
    batch: int = Field(default=2_000, gt=0, le=50_000)
    # a held partition is released by its owner (or freed by this TTL when it dies)
    lease_ttl_s: float = Field(default=6.0, ge=1.0)
    # how often a worker stores positions/leads, saves partition state and acks
    checkpoint_s: float = Field(default=1.0, gt=0)
    max_ack_pending: int = Field(default=200, gt=0)
    stream_max_age_s: float = Field(default=7 * 86_400.0, gt=0)
    stream_max_bytes: int = Field(default=10 * 2**30, gt=0)


class LiveSettings(BaseSettings):
    """Live delivery: SSE pacing and the webhook dispatcher."""

    model_config = SettingsConfigDict(env_prefix="VIGIA_LIVE_", extra="ignore")

    # keep-alive comment interval on idle streams (proxies close silent connections)
    sse_ping_s: float = Field(default=15.0, gt=0)
    # how often a stream re-reads the store when nothing woke it (writers in other
    # processes, e.g. bus consumers, do not wake this one)
    poll_s: float = Field(default=1.0, gt=0)
    sse_batch: int = Field(default=500, gt=0, le=10_000)
    # a positions stream gets its vessel positions at most this often, in one write
    # (0: at every commit); lead events are never held back
    sse_positions_interval_s: float = Field(default=0.5, ge=0, le=60)
    # backlog pages (of sse_batch events) replayed per second, all streams together:
    # reconnecting clients far behind catch up without taking the loop from requests
    sse_replay_pages_per_s: float = Field(default=20.0, gt=0)
    # open event streams allowed per API key and in total; one more gets a 429 with
    # Retry-After (each stream holds a connection and its share of every event)
    sse_max_per_key: int = Field(default=20, gt=0, le=10_000)
    sse_max_total: int = Field(default=500, gt=0, le=100_000)
    sse_retry_after_s: int = Field(default=10, gt=0, le=3_600)
    webhooks: bool = True
    # one total deadline per delivery attempt: resolve, connect, send, read the answer
    webhook_timeout_s: float = Field(default=5.0, gt=0)
    # at most this much of a receiver's answer is read (it is not used), then dropped
    webhook_max_answer_bytes: int = Field(default=64 * 1024, ge=1, le=2**24)
    webhook_backoff_initial_s: float = Field(default=1.0, gt=0)
    webhook_backoff_max_s: float = Field(default=300.0, gt=0)
    # consecutive failed attempts before an endpoint is disabled (0: never)
    webhook_disable_after: int = Field(default=10, ge=0)
    # threads for the dispatcher's store calls (endpoints themselves are served
    # concurrently on one event loop, however many there are)
    webhook_workers: int = Field(default=4, gt=0, le=64)


class Settings(BaseModel):
    """Every concern's settings together."""

    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    auth: AuthSettings = Field(default_factory=AuthSettings)
    zones: ZoneSettings = Field(default_factory=ZoneSettings)
    bus: BusSettings = Field(default_factory=BusSettings)
    live: LiveSettings = Field(default_factory=LiveSettings)
    archive: ArchiveSettings = Field(default_factory=ArchiveSettings)

    @classmethod
    def load(cls) -> Settings:
        """Read every concern from the environment (and nothing else)."""
        return cls(
            database=DatabaseSettings(),
            api=ApiSettings(),
            ingest=IngestSettings(),
            auth=AuthSettings(),
            zones=ZoneSettings(),
            bus=BusSettings(),
            live=LiveSettings(),
            archive=ArchiveSettings(),
        )


class BallastSettings(BaseSettings):
    """Basemaps and audit assumptions (``VIGIA_BALLAST_*``)."""

    model_config = SettingsConfigDict(env_prefix="VIGIA_BALLAST_")
    land: str | None = None  # a land/baseline GeoJSON or shapefile instead of the bundled one
    depth: str | None = None  # a GEBCO-style NetCDF grid instead of ETOPO1 0.1 degree
    pump_rate_m3_h: float = 1000.0
    match_distance_nm: float = 5.0
    match_time_s: float = 1800.0
    voyage_days: float = 10.0  # stored track fetched around the exchanges
    max_points: int = 10_000
    # a screening or audit reads the whole stored track of its window: more is a 422
    max_track_points: int = Field(default=100_000, gt=0)
