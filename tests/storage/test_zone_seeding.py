"""Zone writers racing on one store (issue 21 item 9): processes seeding an empty store
at once, and two writers of one new zone, all succeed and store each zone once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from shapely.geometry import box
from sqlalchemy import text

from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository
from vigia.zones.model import Zone, ZoneKind

T = TypeVar("T")
WRITERS = 4


def _zones(n: int) -> list[Zone]:
    return [
        Zone(id=f"mil-{i}", kind=ZoneKind.MILITARY, geometry=box(-43.2, -22.95, -43.15, -22.9))
        for i in range(n)
    ]


def _race(url: str, work: Callable[[SqlRepository], T]) -> list[T]:
    """``work`` on WRITERS repositories of their own (own engines, as separate processes
    have), released together by a barrier."""
    repos = [open_repository(url) for _ in range(WRITERS)]
    start = threading.Barrier(WRITERS)

    def run(r: SqlRepository) -> T:
        start.wait()
        return work(r)

    try:
        with ThreadPoolExecutor(WRITERS) as pool:
            return list(pool.map(run, repos))  # type: ignore[arg-type]
    finally:
        for r in repos:
            r.close()


def _versions(repo: SqlRepository) -> list[tuple[str, int]]:
    with repo.engine.connect() as conn:
        rows = conn.execute(text("SELECT zone_id, version FROM zone_versions ORDER BY 1, 2"))
        return [(r.zone_id, int(r.version)) for r in rows]


def test_seeding_an_empty_store_at_once_stores_the_zones_once(
    repo: SqlRepository, store_url: str
) -> None:
    stored = _race(store_url, lambda r: r.seed_zones(_zones(30)))
    assert sorted(stored) == [0] * (WRITERS - 1) + [30]  # one seeded, the others found them
    assert _versions(repo) == sorted((f"mil-{i}", 1) for i in range(30))
    assert repo.seed_zones(_zones(30)) == 0


def test_two_writers_of_one_new_zone_make_one_version(repo: SqlRepository, store_url: str) -> None:
    results = _race(store_url, lambda r: r.put_zones(_zones(30)))
    assert all([z.version for z in zones] == [1] * 30 for zones in results)
    assert _versions(repo) == sorted((f"mil-{i}", 1) for i in range(30))
