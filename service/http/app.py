"""The FastAPI application: ``create_app(settings)`` and the runtime its lifespan owns.

The runtime (store, migrations, bundled zones, the ingest worker) is also used alone by
``vigia serve --worker-only``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware

from vigia.alerts.procedure.register import fingerprint as register_fingerprint
from vigia.service.db.archive_ledger import ArchiveCheck
from vigia.service.db.live_store import LiveStore
from vigia.service.db.protocol import Repository
from vigia.service.db.repository import SqlRepository
from vigia.service.http.dashboard import install_dashboard
from vigia.service.http.deps import KeyCache, hash_key
from vigia.service.http.guard import RequestGuard
from vigia.service.http.metrics import ServiceMetrics
from vigia.service.http.metrics_archive import ArchiveHoles
from vigia.service.http.metrics_live import LiveSources
from vigia.service.http.problems import document_problems, install_problem_handlers
from vigia.service.http.rate_limit import RateLimits
from vigia.service.http.routes import include_routers
from vigia.service.runtime import state_vessels
from vigia.service.runtime.archive_check import check_at_start
from vigia.service.runtime.archiving import DailyArchiver
from vigia.service.runtime.gc_tune import freeze_startup_heap
from vigia.service.runtime.live import LiveHub
from vigia.service.runtime.webhooks import WebhookDispatcher
from vigia.service.runtime.worker import IngestWorker
from vigia.service.settings import Settings, archive_path, spool_path
from vigia.zones.model import Zone

log = logging.getLogger("vigia.service")

DESCRIPTION = """\
Vigia watches AIS traffic in Brazilian waters against the areas NORMAM-07 closes to
traffic and raises infraction leads.

Every route but `/healthz` needs an `X-API-Key` header (create one with
`vigia apikey create --role viewer|inspector|admin`): 401 without a key, 403 when the
key's role is too low. Errors are `application/problem+json`.
"""


def current_zones(repo: Repository) -> list[Zone]:
    """Every current zone in the store."""
    zones, _ = repo.list_zones(None, None, None)
    return zones


def load_bundled_zones(repo: Repository, settings: Settings) -> int:
    """Load the bundled (or configured) zone folder into an empty store; returns how many."""
    if not settings.zones.load_bundled or repo.count_zones() > 0:
        return 0
    from vigia.zones.catalogue import bundled_zones_dir, load_zones

    folder = settings.zones.zones_dir or str(bundled_zones_dir())
    try:
        zones = load_zones([folder])
    except Exception as exc:
        log.warning("bundled zones not loaded from %s: %s", folder, exc)
        return 0
    # another process starting at the same moment may have seeded them meanwhile
    stored = repo.seed_zones(zones)
    if stored:
        log.info("loaded %d bundled zones from %s", stored, folder)
    return stored


def _bootstrap_key(repo: Repository, settings: Settings) -> None:
    key = settings.auth.bootstrap_admin_key
    if key is None:
        return
    digest = hash_key(key.get_secret_value())
    if repo.find_api_key(digest) is None:
        repo.add_api_key("bootstrap-admin", "admin", digest)


def new_api_key() -> str:
    """A new random API key."""
    return secrets.token_urlsafe(32)


@dataclass
class Runtime:
    """What the service holds while it runs: the store and, unless off, the worker."""

    settings: Settings
    repository: Repository
    worker: IngestWorker | None
    live: LiveHub | None = None
    dispatcher: WebhookDispatcher | None = None
    archiver: DailyArchiver | None = None
    #: the archive's days against the store's record, checked at start
    archive_check: ArchiveCheck | None = None

    @classmethod
    def start(
        cls,
        settings: Settings,
        *,
        with_worker: bool,
        repository: Repository | None = None,
        with_webhooks: bool = True,
    ) -> Runtime:
        """Open the store (unless given one), migrate it, load bundled zones, start the
        worker and (unless ``with_webhooks`` is false) the webhook dispatcher."""
        if repository is None:
            from vigia.service.db.store import open_repository

            db = settings.database
            repo = open_repository(
                db.url, sqlite_path=db.sqlite_path, archive_dir=archive_path(settings.archive, db)
            )
        else:
            repo = repository
        try:
            repo.migrate()
            load_bundled_zones(repo, settings)
            state_vessels.seed(repo, settings.zones)
            # leads not yet notified follow a new version's register of offices
            repo.sync_register(register_fingerprint())
            checked = None
            if isinstance(repo, SqlRepository):
                root = archive_path(settings.archive, settings.database)
                checked = check_at_start(repo.engine, root)
            _bootstrap_key(repo, settings)
            live = LiveHub(repo) if isinstance(repo, LiveStore) else None
            worker = None
            if with_worker:
                worker = IngestWorker(
                    repo,
                    settings.ingest,
                    current_zones(repo),
                    spool_dir=spool_path(settings.ingest, settings.database),
                )
                worker.start()
            dispatcher = None
            hooks = with_webhooks and settings.live.webhooks
            if live is not None and hooks and isinstance(repo, LiveStore):
                dispatcher = WebhookDispatcher(repo, settings.live)
                live.on_events_thread(dispatcher.wake)
                dispatcher.start()
            archiver = None
            hot_days = settings.archive.retention_hot_days
            # the process that writes keeps the window (not a second API process)
            if with_worker and hot_days is not None and isinstance(repo, SqlRepository):
                root = archive_path(settings.archive, settings.database)
                archiver = DailyArchiver(repo.engine, root, hot_days)
                archiver.start()
        except BaseException:
            repo.close()
            raise
        return cls(settings, repo, worker, live, dispatcher, archiver, checked)

    def zones_changed(self) -> None:
        """Rebuild the worker's zone index after an edit."""
        if self.worker is not None:
            self.worker.reload_zones(current_zones(self.repository))

    def register_changed(self) -> None:
        """Hand the worker the authorised-vessel register after an edit."""
        if self.worker is not None:
            self.worker.reload_register(self.repository.list_authorisations())

    def state_vessels_changed(self) -> None:
        """Hand the worker the register of state vessels after an edit."""
        if self.worker is not None:
            self.worker.reload_state_vessels(self.repository.list_state_vessels())

    def close(self) -> None:
        """Stop the worker (storing what it holds), then release the store."""
        try:
            if self.archiver is not None:
                self.archiver.stop()
            if self.worker is not None:
                self.worker.stop()
        finally:
            if self.dispatcher is not None:
                self.dispatcher.stop()
            if self.live is not None:
                self.live.close()
            self.repository.close()


def create_app(
    settings: Settings | None = None, *, repository: Repository | None = None
) -> FastAPI:
    """The Vigia API; its lifespan opens the store (or takes ``repository``, which it then
    closes too) and runs the worker if enabled."""
    settings = settings if settings is not None else Settings.load()
    metrics = ServiceMetrics()
    holes = ArchiveHoles()
    metrics.registry.register(holes)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = Runtime.start(settings, with_worker=settings.ingest.worker, repository=repository)
        app.state.runtime = runtime
        holes.found = runtime.archive_check
        app.state.repository = runtime.repository
        app.state.worker = runtime.worker
        app.state.live_hub = runtime.live
        app.state.dispatcher = runtime.dispatcher
        app.state.on_zones_changed = runtime.zones_changed
        app.state.on_register_changed = runtime.register_changed
        app.state.on_state_vessels_changed = runtime.state_vessels_changed
        if runtime.worker is not None:
            metrics.attach(runtime.worker.snapshot)
        repo = runtime.repository
        live = LiveSources(
            runtime.live, runtime.dispatcher, repo if isinstance(repo, LiveStore) else None
        )
        metrics.attach_live(lambda: live)
        if isinstance(repo, SqlRepository) and repo.archive is not None:
            folder = repo.archive.folder
            metrics.attach_archive(lambda: folder)
        if settings.api.gc_freeze:
            # young collections every 5,000 allocations: short pauses for the event loop
            # (GET /leads p99 99-193 ms over five runs of benchmarks.sse_load, against
            # 121-216 ms with the worker's 50,000, whose young collections took 40-76 ms)
            freeze_startup_heap(5_000, 10, 10)
        try:
            yield
        finally:
            metrics.attach(lambda: None)
            metrics.attach_live(LiveSources)
            metrics.attach_archive(lambda: None)
            app.state.worker = None
            runtime.close()

    docs = settings.api.docs_enabled
    app = FastAPI(
        title="Vigia",
        version="0.1.0",
        summary="AIS watch over NORMAM-07 closed areas and NORMAM-20 ballast rules",
        description=DESCRIPTION,
        lifespan=lifespan,
        # the API description is a map for attackers too: a setting, off in production
        openapi_url="/openapi.json" if docs else None,
        docs_url="/docs" if docs else None,
        redoc_url="/redoc" if docs else None,
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.worker = None
    app.state.key_cache = KeyCache()
    # the request guard spends a token of each request's key and address (one app's buckets)
    app.state.rate_limits = RateLimits(settings.api)
    secret = settings.auth.stream_token_secret
    # stream tokens (stream_token.py) are signed with this; drawn here when not set, once
    # per app, so every request of this process agrees on it
    app.state.stream_token_secret = (
        secrets.token_bytes(32) if secret is None else secret.get_secret_value().encode()
    )
    install_problem_handlers(app)
    # every answer of 1 KB or more compressed for a client that accepts gzip (the map's
    # vessel layer is a tenth of its size); Starlette leaves event streams alone, so
    # SSE frames still go out one by one
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    app.add_middleware(RequestGuard)
    include_routers(app)
    install_dashboard(app)
    build_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document_problems(build_openapi(), frozenset({"/healthz"}))
        return app.openapi_schema  # type: ignore[return-value]

    app.openapi = openapi  # type: ignore[method-assign]
    return app
