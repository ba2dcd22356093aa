"""The identity history in the store (issue 34), on SQLite and PostGIS: stored with the
static data in one transaction, once however often it is delivered, at most 50 changes
per vessel and UTC day, replaced from a time on when the pipeline judges again; the
migration up and down; the hand-built capture in any order leaves the same rows; and a
writer killed with SIGKILL before the store took them loses none."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, text

from scripts.satfeed import deliver
from tests.storage.conftest import migrated
from tests.support import identity_capture as cap
from tests.support.kill import kill_at_report
from vigia.alerts.identity.history import DAY_CAP, HistoryOut, IdentityChange
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Record, StaticData, VesselInfo
from vigia.ingest.registry import VesselRegistry
from vigia.service.db.engine import alembic_config
from vigia.service.db.repository import SqlRepository
from vigia.service.runtime.writer import BufferedWriter
from vigia.zones.evaluate import ZoneIndex

pytestmark = pytest.mark.postgis
M = 710_000_801
T = cap.T0


def _out(*changes: IdentityChange) -> HistoryOut:
    h = HistoryOut()
    for c in changes:
        h.add(c)
    return h


def _rows(repo: SqlRepository, mmsi: int, limit: int = 1_000) -> list[tuple[Any, ...]]:
    return [(c.t, c.field, c.before, c.after) for c in repo.identity_history(mmsi, limit).changes]


def test_a_rename_is_stored_with_its_static_data_once_newest_first(repo: SqlRepository) -> None:
    rename = IdentityChange(M, T + 60, "name", "ALFA", "BRAVO", 5, "tcp:rx1", 1)
    check = IdentityChange(M, T + 120, "imo_check", None, 9074728, 5, "tcp:rx1", 2)
    v = VesselInfo(M, name="BRAVO", imo=9074728, updated_at=T + 120)
    for _ in range(2):  # delivered twice (a spool replayed, a message redelivered)
        repo.upsert_vessels([v], _out(rename, check))
    got = repo.identity_history(M, 10)
    assert got.changes == [
        IdentityChange(M, T + 120, "imo_check", None, 9074728, 5, "tcp:rx1"),
        IdentityChange(M, T + 60, "name", "ALFA", "BRAVO", 5, "tcp:rx1"),
    ]
    assert (got.total, got.not_kept) == (2, [])
    stored = repo.get_vessel(M)
    assert stored is not None and stored.name == "BRAVO"
    assert repo.identity_history(M, 1).changes[0].field == "imo_check"  # the newest
    assert repo.identity_history(710_000_802, 10).changes == []


def test_the_static_data_and_its_history_are_one_transaction(repo: SqlRepository) -> None:
    bad = IdentityChange(M, T, "name", object(), "B", 5, "x", 1)  # type: ignore[arg-type]
    with pytest.raises(Exception):  # noqa: B017 - any refusal of the store will do
        repo.upsert_vessels([VesselInfo(M, name="B", updated_at=T)], _out(bad))
    assert repo.get_vessel(M) is None  # the vessel row went back with the history


def test_a_day_keeps_its_first_fifty_changes_and_counts_the_rest(repo: SqlRepository) -> None:
    day1 = [IdentityChange(M, T + k, "name", f"N{k}", f"N{k + 1}", 5, "x", k + 1)
            for k in range(120)]  # fmt: skip
    h = _out(*day1)
    assert len(h.changes) == DAY_CAP  # the pipeline hands out the first 50 only
    repo.upsert_vessels([], h)
    # a worker restarted mid-day numbers afresh: the store still takes no 51st row
    repo.upsert_vessels([], _out(IdentityChange(M, T + 500, "callsign", "A", "B", 5, "x", 1)))
    got = repo.identity_history(M, 1_000)
    assert got.total == DAY_CAP
    assert got.changes[0].t == T + 49 and got.changes[-1].t == T  # the first 50, newest first
    assert got.not_kept == [(int(T // 86_400), 120, DAY_CAP)]
    # the next UTC day starts again
    repo.upsert_vessels([], _out(IdentityChange(M, T + 86_400, "name", "X", "Y", 5, "x", 1)))
    assert repo.identity_history(M, 1_000).total == DAY_CAP + 1


def test_what_is_judged_again_replaces_what_was_stored(repo: SqlRepository) -> None:
    first = _out(
        IdentityChange(M, T + 60, "name", "A", "B", 5, "x", 1),
        IdentityChange(M, T + 180, "name", "B", "D", 5, "x", 2),
    )
    repo.upsert_vessels([], first)
    # a late report C at T + 120: from T + 60 on, A->B, B->C, C->D (alerts/rejudge.py)
    late = HistoryOut()
    late.replace_from(M, T + 60)
    for k, (t, a, b) in enumerate([(60, "A", "B"), (120, "B", "C"), (180, "C", "D")]):
        late.add(IdentityChange(M, T + t, "name", a, b, 5, "x", k + 1))
    repo.upsert_vessels([], late)
    assert _rows(repo, M) == [
        (T + 180, "name", "C", "D"), (T + 120, "name", "B", "C"), (T + 60, "name", "A", "B"),
    ]  # fmt: skip
    assert repo.identity_history(M, 10).not_kept == []


# -- the hand-built capture, however it arrives ---------------------------------------------


def _ingest(repo: SqlRepository, records: list[Record], batch: int) -> None:
    """Records through a pipeline that stores its history, as the worker does: each
    batch's static data and the changes it made in one call."""
    pipe = LeadPipeline(ZoneIndex([]), VesselRegistry())
    pipe.record_identity()
    for i in range(0, len(records), batch):
        part = records[i : i + batch]
        pipe.process(part)
        pipe.expire(pipe.stream_time)
        static = [VesselInfo(r.mmsi, name=r.name, updated_at=r.t)
                  for r in part if isinstance(r, StaticData)]  # fmt: skip
        repo.upsert_vessels(static, pipe.take_identity())


def _stored(repo: SqlRepository) -> dict[int, list[tuple[Any, ...]]]:
    return {m: sorted(_rows(repo, m), key=str) for m in cap.EXPECTED}


@pytest.mark.parametrize("order", ["sorted", "satellite", "twice"])
def test_the_capture_stores_the_history_written_by_hand_in_any_order(
    repo: SqlRepository, order: str
) -> None:
    records = cap.records()
    if order == "satellite":  # per-vessel batches 0-90 min late, a few percent twice
        records = deliver(records, key=lambda r: r.mmsi, time=lambda r: r.t, seed=7)
    if order == "twice":
        records = sorted(records + records, key=lambda r: r.t)
    _ingest(repo, records, 97)
    if order == "twice":
        _ingest(repo, cap.records(), 300)  # and the capture ingested again by a new worker
    assert _stored(repo) == {m: sorted(rows, key=str) for m, rows in cap.EXPECTED.items()}
    c = repo.identity_history(cap.C, 1_000)
    assert (c.total, c.not_kept) == (DAY_CAP, [(int(cap.T0 // 86_400), 119, DAY_CAP)])


# -- the migration ------------------------------------------------------------------------


def test_0016_adds_the_history_tables_and_takes_them_away(empty_url: str) -> None:
    engine = create_engine(empty_url)
    cfg = alembic_config()

    def to(revision: str, down: bool = False) -> set[str]:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            (command.downgrade if down else command.upgrade)(cfg, revision)
        return set(inspect(engine).get_table_names())

    assert not {"identity_history", "identity_history_days"} & to("0015_port_visits")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO vessels (mmsi, name, extra) VALUES (:m, 'OLD', '{}')"),
                     {"m": M})  # fmt: skip
    assert {"identity_history", "identity_history_days"} <= to("0016_identity_history")
    engine.dispose()
    for repo in migrated(empty_url):  # the store on the new schema: writes and reads
        repo.upsert_vessels([], _out(IdentityChange(M, T, "name", "OLD", "NEW", 5, "x", 1)))
        assert _rows(repo, M) == [(T, "name", "OLD", "NEW")]
    assert not {"identity_history", "identity_history_days"} & to("0015_port_visits", down=True)
    with engine.connect() as conn:  # the static data stays
        assert conn.execute(text("SELECT name FROM vessels")).scalar() == "OLD"
    assert "identity_history" in to("head")
    engine.dispose()


# -- a kill -9 of the writer before the store took them -------------------------------------

CHILD = textwrap.dedent(
    """
    import sys, time
    from vigia.alerts.identity.history import HistoryOut, IdentityChange
    from vigia.ingest.records import VesselInfo
    from vigia.service.db.store import open_repository
    from vigia.service.errors import StoreUnavailableError
    from vigia.service.runtime.writer import BufferedWriter

    class Away:  # the store is down for static data: the writer keeps it journaled
        def __init__(self, repo): self.repo = repo
        def upsert_vessels(self, *a): raise StoreUnavailableError("down")
        def __getattr__(self, name): return getattr(self.repo, name)

    url, spool, t = sys.argv[1], sys.argv[2], float(sys.argv[3])
    w = BufferedWriter(Away(open_repository(url)), backoff_max_s=0.05, spool_dir=spool)
    h = HistoryOut()
    h.add(IdentityChange(710000801, t, "name", "ALFA", "BRAVO", 5, "tcp:rx", 1))
    w.submit_vessels([VesselInfo(710000801, name="BRAVO", updated_at=t)], h)
    end = time.monotonic() + 10
    while w.stats()["retries"] < 2 and time.monotonic() < end:
        time.sleep(0.02)
    print("accepted", flush=True)
    time.sleep(60)
    """
)


def test_a_writer_killed_before_the_store_took_them_loses_neither(
    repo: SqlRepository, tmp_path: Path
) -> None:
    url = str(repo.engine.url.render_as_string(hide_password=False))
    spool = tmp_path / "spool"
    assert kill_at_report(CHILD, url, str(spool), str(T)).strip() == "accepted"
    assert repo.get_vessel(M) is None and _rows(repo, M) == []  # nothing reached the store
    w = BufferedWriter(repo, spool_dir=spool)
    assert w.flush(30), w.stats()
    assert w.close(10) and not spool.exists()
    stored = repo.get_vessel(M)
    assert stored is not None and stored.name == "BRAVO"
    assert _rows(repo, M) == [(T, "name", "ALFA", "BRAVO")]
