"""The buffered writer: batches, bounds, bad rows, and a real PostgreSQL outage."""

from __future__ import annotations

import threading
import time

import pytest

from tests.storage.builders import T0, lead, pos
from tests.storage.pgcluster import PrivateCluster
from vigia.ingest.records import VesselInfo
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository
from vigia.service.runtime.writer import BufferedWriter, WriterClosedError

SHIP = 710_001_000  # the first of the MMSIs used: ones the store keeps


def test_writer_stores_everything_it_accepts(repo: SqlRepository) -> None:
    """Positions, vessels and leads handed over in small pieces all land, in batches."""
    w = BufferedWriter(repo, batch_size=1000)
    for i in range(50):
        w.submit_positions([pos(SHIP + j, T0 + i, -43.0 + j * 1e-3, -22.9) for j in range(100)])
    w.submit_vessels([VesselInfo(SHIP, name="A", updated_at=T0), VesselInfo(SHIP, name="B")])
    w.submit_leads([lead("L1"), lead("L1", min_distance_m=50.0), lead("L2")])
    assert w.flush(30)
    s = w.stats()
    assert (s["buffered"], s["dropped"], s["written"], s["retries"]) == (0, 0, 5000, 0)
    assert (s["written_leads"], s["written_vessels"]) == (2, 1)
    assert repo.count_positions() == 5000
    got = repo.get_lead("L1", EVERY_AUTHORITY)
    assert got is not None and got.min_distance_m == 50.0
    v = repo.get_vessel(SHIP)
    assert v is not None and v.name == "B"
    assert w.close(5)
    with pytest.raises(WriterClosedError):
        w.submit_positions([pos(SHIP + 1, T0, 0.0, 0.0)])


def test_a_full_buffer_makes_a_waiting_producer_wait_not_drop(repo: SqlRepository) -> None:
    """With ``wait_s`` a producer blocks until the writer has made room: nothing dropped."""
    w = BufferedWriter(repo, max_buffered=1000, batch_size=500)
    accepted = sum(
        w.submit_positions(
            [pos(SHIP + 1, T0 + i * 800 + k, 0.0, 0.0) for k in range(800)], wait_s=30
        )
        for i in range(10)
    )
    assert w.flush(30)
    assert (accepted, w.stats()["dropped"], repo.count_positions()) == (8000, 0, 8000)
    w.close(5)


def test_a_bad_row_is_rejected_alone(repo: SqlRepository) -> None:
    """A row the database refuses (a heading beyond 64 bits) costs only itself."""
    w = BufferedWriter(repo, batch_size=500)
    batch = [pos(SHIP + j, T0, -43.0, -22.9) for j in range(300)]
    batch[123] = pos(SHIP + 123, T0, -43.0, -22.9, heading=2**70)
    assert w.submit_positions(batch) == 300
    assert w.flush(30)
    s = w.stats()
    assert (s["rejected"], s["written"], s["dropped"]) == (1, 299, 0)
    assert "rejected" in s["last_error"]
    assert repo.count_positions() == 299
    w.close(5)


def test_unreachable_database_buffers_to_the_bound_and_keeps_every_lead() -> None:
    """With no server listening, positions queue up to the bound (the rest are counted as
    dropped), leads queue without bound, and the writer keeps retrying."""
    repo = open_repository("postgresql+psycopg://postgres@127.0.0.1:9/nothing")
    w = BufferedWriter(repo, max_buffered=1000, batch_size=100, backoff_max_s=0.05)
    assert w.submit_positions([pos(SHIP + 1, T0 + i, -43.0, -22.9) for i in range(1500)]) == 1000
    w.submit_leads([lead(f"L{i}") for i in range(3000)])
    deadline = time.monotonic() + 10
    while w.stats()["retries"] < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    s = w.stats()
    assert (s["buffered"], s["dropped"], s["buffered_leads"]) == (1000, 500, 3000)
    assert s["retries"] >= 3 and s["connected"] is False and s["last_error"]
    assert not w.flush(0.2)
    # a producer may wait for room rather than drop; with the store away it times out
    t = time.monotonic()
    assert w.submit_positions([pos(SHIP + 2, T0, -43.0, -22.9)], wait_s=0.3) == 0
    assert time.monotonic() - t >= 0.3 and w.stats()["dropped"] == 501
    assert w.close(0.5) is False
    repo.close()


def test_the_write_buffer_is_bounded_in_bytes_not_only_in_items() -> None:
    """Positions carrying long raw sentences fill the byte bound long before the item
    bound; what does not fit is counted as dropped, and the stats say how many bytes."""
    repo = open_repository("postgresql+psycopg://postgres@127.0.0.1:9/nothing")
    w = BufferedWriter(repo, max_buffered=100_000, max_buffered_bytes=1 << 20, backoff_max_s=0.05)
    raw = ("!AIVDM," + "0" * 1000,)
    accepted = w.submit_positions(
        [pos(SHIP + 1, T0 + i, -43.0, -22.9, raw=raw) for i in range(5000)]
    )
    s = w.stats()
    assert 0 < accepted < 1100 and s["dropped"] == 5000 - accepted
    assert s["buffered_bytes"] <= s["bound_bytes"] == 1 << 20
    assert w.close(0.3) is False
    repo.close()


@pytest.mark.slow
@pytest.mark.postgis
def test_postgres_stopped_and_restarted_under_load_loses_nothing(
    private_pg: PrivateCluster,
) -> None:
    """Stop the server mid-ingest, keep submitting, start it again: every position is
    stored exactly once."""
    repo = open_repository(private_pg.url)
    repo.migrate()
    w = BufferedWriter(repo, batch_size=2000, backoff_initial_s=0.02, backoff_max_s=0.5)
    submitted = 0
    running = threading.Event()
    running.set()

    def produce() -> None:
        nonlocal submitted
        i = 0
        while running.is_set():
            # unique (mmsi, t): 5,000 vessels, one report per second each
            batch = [pos(200_000_000 + k % 5000, T0 + k, -43.0, -22.9) for k in range(i, i + 200)]
            submitted += w.submit_positions(batch)
            i += 200
            time.sleep(0.01)

    producer = threading.Thread(target=produce)
    producer.start()
    try:
        time.sleep(1.0)
        assert w.stats()["written"] > 0
        private_pg.stop("fast")
        time.sleep(1.0)
        w.submit_leads([lead(f"F{i}") for i in range(50)])
        time.sleep(1.0)
        during = w.stats()
        private_pg.start()
        time.sleep(1.0)
    finally:
        running.clear()
        producer.join()
    assert during["connected"] is False and during["retries"] > 0 and during["buffered"] > 0
    assert during["buffered_leads"] == 50
    assert w.flush(60), w.stats()
    s = w.stats()
    assert s["dropped"] == 0 and s["rejected"] == 0
    # exactly once: nothing lost, nothing doubled by the retries
    assert repo.count_positions() == submitted
    # (a commit whose acknowledgement died with the server is retried and found stored,
    # so the writer's own count can only be lower)
    assert 0 < s["written"] <= submitted
    assert repo.list_leads(LeadQuery(), 1, scope=EVERY_AUTHORITY)[1] == 50
    w.close(5)
    repo.close()
