"""A centre's caseload (issue 39): lead lists at any depth on SQLite or PostGIS.

Usage: python -m benchmarks.caseload [--leads 100000] [--requests 200] [--limit 100]
                                     [--quick] [--store PATH | --url postgresql+psycopg://...]

Builds a store of ``--leads`` leads (through the repository's upsert, in batches
of 5,000; a tenth with a pending deadline, three authorities, four rules) and times, in
process through the app's TestClient, ``--requests`` sequential requests each of:

- the default list (``GET /leads``), ``sort=due``, a rule filter, an authority filter,
  an officer's leads (``assignee``: one lead in 1,000 is assigned, a JSON field held by
  the expression index of migration 0017; before it the page and the count read every
  lead), and the same officer's leads as OGC items;
- the last page reached by following cursors (its ``next`` cursor, found by walking the
  whole list once; the walk's per-page figures are printed too);
- the baseline: the same last page by ``offset``, which reads every row before it.

Prints p50 and p99 in milliseconds and whether each count was exact. ``--page`` then
serves the store with ``vigia serve`` and times the dashboard in Debian's chromium: sign-in
to the list drawn with its count, to the page loaded (land, zones and lines drawn), to the
map settled; a rule filter, ``sort=due`` and
"Carregar mais", each from the click to the list redrawn (median of ``--page-runs``). ``--quick`` (a
smoke run): 2,000 leads, 20 requests. ``--store PATH`` keeps the store and reuses it.
``--url postgresql+psycopg://USER@HOST/NAME`` times PostGIS instead: it creates database
NAME (which must not exist; through the server's ``postgres`` database), adds PostGIS,
builds the leads through the same repository, and drops NAME at the end.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from fastapi.testclient import TestClient
from sqlalchemy import update

from vigia.alerts.lead import EvidencePoint, Lead
from vigia.service.db.models import LeadRow
from vigia.service.db.store import open_repository
from vigia.service.http.app import create_app, new_api_key
from vigia.service.http.deps import hash_key
from vigia.service.settings import (
    ApiSettings,
    ArchiveSettings,
    DatabaseSettings,
    IngestSettings,
    Settings,
    ZoneSettings,
)

T0 = 1_735_689_600.0  # 2025-01-01
RULES = ("SEC-PLATFORM", "SEC-MILITARY", "AIS-GAP", "SEC-ANCHORAGE")
AUTHORITIES = ("Capitania dos Portos do Rio de Janeiro", "Capitania dos Portos de São Paulo",
               "Capitania dos Portos do Espírito Santo")  # fmt: skip
OFFICER = "Ana Lima"


def _lead(i: int) -> Lead:
    t = T0 + i * 300.0  # one every 5 minutes: 100,000 is about a year
    lon, lat = -40.0 - (i % 997) / 500.0, -22.0 - (i % 991) / 500.0
    return Lead(
        id=f"L-{i:08d}",
        mmsi=710_000_000 + i % 5_000,
        rule=RULES[i % len(RULES)],
        citation="NORMAM-07/DPC 0212 f)",
        zone_id=f"zone-{i % 50}",
        zone_kind="platform",
        started_at=t,
        ended_at=t + 600.0,
        min_distance_m=120.0,
        max_sog_kn=8.5,
        closest_lon=lon,
        closest_lat=lat,
        closest_t=t + 60.0,
        evidence=[
            EvidencePoint(t, lon - 0.01, lat, 8.5, 90.0, 0, 300.0),
            EvidencePoint(t + 60.0, lon, lat, 8.0, 91.0, 0, 120.0),
        ],
        raw_sentences=[],
        vessel={"name": f"NAVIO {i % 5_000}", "ship_type": 30},
        authority=AUTHORITIES[i % len(AUTHORITIES)],
        zone_version=1,
    )


def build(url: str, n: int) -> float:
    """Store ``n`` leads (a tenth with a deadline, one in 1,000 assigned to
    :data:`OFFICER`); the seconds it took."""
    t0 = time.perf_counter()
    repo = open_repository(url)
    try:
        repo.migrate()
        for start in range(0, n, 5_000):
            repo.upsert_leads([_lead(i) for i in range(start, min(n, start + 5_000))])
        engine: Any = repo.engine  # type: ignore[attr-defined]
        with engine.begin() as conn:
            for day in range(30):
                ids = [f"L-{i:08d}" for i in range(day, n, 300)]  # every 10th lead in all
                due = f"2026-02-{1 + day % 28:02d}"
                for k in range(0, len(ids), 500):
                    chunk = ids[k : k + 500]
                    conn.execute(update(LeadRow).where(LeadRow.id.in_(chunk)).values(due_on=due))
            mine = [f"L-{i:08d}" for i in range(7, n, 1_000)]
            entry = {"officer": OFFICER, "by": "chefe", "at": "2026-01-05T10:00:00Z"}
            for k in range(0, len(mine), 500):
                chunk = mine[k : k + 500]
                conn.execute(
                    update(LeadRow)
                    .where(LeadRow.id.in_(chunk))
                    .values(procedure={"assignment": entry})
                )
        with engine.begin() as conn:
            conn.exec_driver_sql("ANALYZE")
    finally:
        repo.close()
    return time.perf_counter() - t0


def _pg(url: str, database: str, sql: str) -> None:
    """Run ``sql`` (autocommit) in ``database`` on the server of ``url``."""
    server = url.replace("postgresql+psycopg://", "postgresql://").rpartition("/")[0]
    with psycopg.connect(f"{server}/{database}", autocommit=True) as conn:
        conn.execute(sql)


def _pg_name(url: str) -> str:
    name = url.rpartition("/")[2]
    if not url.startswith("postgresql+psycopg://") or not re.fullmatch(r"[a-z0-9_]+", name):
        raise SystemExit(f"--url: postgresql+psycopg://.../NAME (NAME in [a-z0-9_]), not {url}")
    return name


def settings_for(url: str, tmp: Path) -> Settings:
    """The app on the benchmark's store: no worker, no rate limits."""
    (tmp / "zones").mkdir(exist_ok=True)
    return Settings(
        database=DatabaseSettings(url=url, sqlite_path=str(tmp / "x.sqlite")),
        api=ApiSettings(rate_per_key=0, rate_per_address=0),
        ingest=IngestSettings(worker=False),
        zones=ZoneSettings(zones_dir=str(tmp / "zones")),
        archive=ArchiveSettings(data_dir=str(tmp / "data")),
    )


def timed(get: Callable[[], Any], n: int) -> tuple[float, float, Any]:
    """p50 and p99 (ms) of ``n`` calls, and the last answer."""
    times: list[float] = []
    last: Any = None
    for _ in range(n):
        t0 = time.perf_counter()
        last = get()
        times.append((time.perf_counter() - t0) * 1000.0)
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return statistics.median(times), p99, last


def _next(body: dict[str, Any]) -> str | None:
    return next((x["href"] for x in body["links"] if x["rel"] == "next"), None)


def run(
    n: int,
    requests: int,
    limit: int,
    store: str | None = None,
    pg_url: str | None = None,
    page_runs: int = 0,
) -> None:
    """Build (or reuse ``store``; or create, fill and drop the database of ``pg_url``),
    serve in process, time and print."""
    if pg_url is not None:
        name = _pg_name(pg_url)
        _pg(pg_url, "postgres", f'CREATE DATABASE "{name}"')
        try:
            _pg(pg_url, name, "CREATE EXTENSION IF NOT EXISTS postgis")
            _run(n, requests, limit, None, pg_url, page_runs)
        finally:
            _pg(pg_url, "postgres", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    else:
        _run(n, requests, limit, store, None, page_runs)


def _run(
    n: int, requests: int, limit: int, store: str | None, pg_url: str | None, page_runs: int
) -> None:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        path = Path(store) if store else tmp / "caseload.sqlite"
        url = pg_url or f"sqlite:///{path}"
        kind = "PostGIS" if pg_url else "SQLite"
        print(f"caseload: {n:,} leads on {kind}, {requests} requests a case, limit {limit}")
        if store and path.exists():
            print(f"  store reused: {path} (built for --leads {n:,}: the caller's word)")
        else:
            print(f"  store built in {build(url, n):.1f} s")
        with TestClient(create_app(settings_for(url, tmp))) as client:
            key = new_api_key()
            client.app.state.repository.add_api_key("bench", "viewer", hash_key(key))  # type: ignore[attr-defined]
            h = {"X-API-Key": key}

            def get(path: str) -> Callable[[], Any]:
                def call() -> Any:
                    r = client.get(path, headers=h)
                    assert r.status_code == 200, r.text
                    return r.json()

                return call

            # walk the whole default list by its next links once: the last page's cursor
            walk: list[float] = []
            href: str | None = f"/leads?limit={limit}"
            last: str = f"/leads?limit={limit}"
            pages = 0
            while href is not None:
                t0 = time.perf_counter()
                body = client.get(href, headers=h).json()
                walk.append((time.perf_counter() - t0) * 1000.0)
                pages += 1
                last, href = href, _next(body)
            walk.sort()
            cases = {
                "default list (newest first)": f"/leads?limit={limit}",
                "sort=due": f"/leads?sort=due&limit={limit}",
                "rule filter (AIS-GAP)": f"/leads?rule=AIS-GAP&limit={limit}",
                "authority filter": f"/leads?authority={AUTHORITIES[1]}&limit={limit}",
                "assignee filter (1 in 1,000)": f"/leads?assignee={OFFICER}&limit={limit}",
                "OGC items, assignee": f"/collections/leads/items?assignee={OFFICER}&limit={limit}",
                "OGC items, bbox": f"/collections/leads/items?bbox=-41,-23,-40,-22&limit={limit}",
                "last page by cursor": last,
                "baseline: last page by offset": f"/leads?limit={limit}&offset={n - limit}",
            }
            print(f"  {'case':32} {'p50 ms':>8} {'p99 ms':>8}  count")
            for name, case in cases.items():
                p50, p99, body = timed(get(case), requests)
                exact = body.get("numberMatchedExact", "numberMatched" in body)
                count = body.get("numberMatched", "-")
                print(f"  {name:32} {p50:8.1f} {p99:8.1f}  {count} (exact: {exact})")
            p50w = statistics.median(walk)
            p99w = walk[min(len(walk) - 1, round(0.99 * (len(walk) - 1)))]
            print(f"  walk of {pages} pages by next links: p50 {p50w:.1f} ms, p99 {p99w:.1f} ms")
        if page_runs:
            page_figures(url, tmp, page_runs)


_FRAME = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))"


def _list_after(page: Any, act: Callable[[Any], None], url_has: str) -> float:
    """Milliseconds from ``act`` to the answer whose URL holds ``url_has`` drawn."""
    t0 = time.perf_counter()
    with page.expect_response(lambda r: url_has in r.url and "/leads?" in r.url):
        act(page)
    page.wait_for_function("!window.__vigia.leads.caseload.busy", timeout=60_000)
    page.evaluate(_FRAME)
    return (time.perf_counter() - t0) * 1000.0


def page_figures(url: str, tmp: Path, runs: int) -> None:
    """The dashboard on this store, in Debian's chromium (module docstring)."""
    from playwright.sync_api import sync_playwright

    from benchmarks._served import KEY, serve
    from tests.support.dashboard import CHROMIUM, CHROMIUM_ARGS

    marks: dict[str, list[float]] = {}
    count = ""
    with serve(url, tmp) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(runs):
            # Playwright's waits evaluate strings, which the page's CSP forbids
            page = browser.new_page(
                viewport={"width": 1400, "height": 900}, locale="pt-BR", bypass_csp=True
            )
            page.goto(base + "/")
            page.fill("#key", KEY)
            t0 = time.perf_counter()
            page.click("#signin-form button[type=submit]")
            page.wait_for_function(
                "document.querySelectorAll('#lead-list li').length > 0 && "
                "document.getElementById('lead-count').textContent !== ''",
                polling=10,
                timeout=120_000,
            )
            marks.setdefault("sign-in to the list and its count", []).append(
                (time.perf_counter() - t0) * 1000.0
            )
            page.wait_for_selector("body[data-loaded=true]", state="attached", timeout=120_000)
            marks.setdefault("sign-in to the page loaded (map drawn)", []).append(
                (time.perf_counter() - t0) * 1000.0
            )
            page.wait_for_function("window.__vigia.map.map.loaded()", timeout=120_000)
            marks.setdefault("sign-in to the map settled", []).append(
                (time.perf_counter() - t0) * 1000.0
            )
            count = page.locator("#lead-count").inner_text()
            for name, act, has in (
                ("rule filter (AIS-GAP)",
                 lambda pg: pg.select_option("[name=rule]", "AIS-GAP"), "rule=AIS-GAP"),
                ("sort=due", lambda pg: pg.select_option("[name=sort]", "due"), "sort=due"),
                ("Carregar mais", lambda pg: pg.click("#lead-list + button.more"), "cursor="),
            ):  # fmt: skip
                marks.setdefault(name, []).append(_list_after(page, act, has))
            page.close()
        browser.close()
    print(f"  the page (chromium, median of {runs}); its counter read: {count!r}")
    for name, ms in marks.items():
        print(f"  {name:36} {statistics.median(ms):8.0f} ms  (max {max(ms):.0f})")


def main() -> None:
    """Parse the arguments and run."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--leads", type=int, default=100_000)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="2,000 leads, 20 requests")
    ap.add_argument(
        "--store",
        help="keep the built store at this path and reuse it when it exists (to time two "
        "versions of the code on the same store: the build at 1,000,000 takes 9-25 min)",
    )
    ap.add_argument(
        "--url",
        help="postgresql+psycopg://USER@HOST/NAME: time PostGIS; creates database NAME (it "
        "must not exist), fills it and drops it at the end",
    )
    ap.add_argument("--page", action="store_true", help="time the dashboard in chromium too")
    ap.add_argument("--page-runs", type=int, default=3, help="sign-ins timed with --page")
    a = ap.parse_args()
    if a.quick:
        a.leads, a.requests, a.page_runs = 2_000, 20, 1
    if a.url and a.store:
        ap.error("--store is for SQLite; --url builds a fresh PostgreSQL database")
    run(a.leads, a.requests, a.limit, a.store, a.url, a.page_runs if a.page else 0)


if __name__ == "__main__":
    main()
