"""The writer's durable spool: journal, recovery, torn tails, and a real kill -9 while the
database is down."""

from __future__ import annotations

import pickle
import struct
import textwrap
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.storage.builders import T0, lead, pos
from tests.storage.pgcluster import PrivateCluster
from tests.support.kill import kill_at_report
from vigia.ingest.records import Position, VesselInfo
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository
from vigia.service.errors import StoreUnavailableError
from vigia.service.runtime.spool import Spool, SpoolError
from vigia.service.runtime.writer import BufferedWriter
from vigia.service.settings import DatabaseSettings, IngestSettings, spool_path


def opened(path: Path, **kw: Any) -> tuple[Spool, list[tuple[str, int, list[object]]]]:
    """A spool on ``path`` and what it recovered."""
    s = Spool(path, **kw)
    return s, list(s.recover())


def positions(n: int, mmsi: int = 710_000_001) -> list[Position]:
    """``n`` full position reports, one second apart."""
    return [
        pos(mmsi, T0 + i, -43.0 + i * 1e-4, -22.9, sog=8.5, cog=90.0, heading=91,
            nav_status=0, accuracy=True, source="tcp:feed", raw=("!AIVDM,1,1,,A,x,0*00",))
        for i in range(n)
    ]  # fmt: skip


@pytest.mark.parametrize("fsync_interval_s", [1.0, 0.0])
def test_what_was_appended_comes_back_in_order_until_marked_written(
    tmp_path: Path, fsync_interval_s: float
) -> None:
    """Batches of every kind survive a reopen in their order; marked ones do not (with
    the background fsync and with one fsync per append)."""
    s, got = opened(tmp_path / "sp", fsync_interval_s=fsync_interval_s)
    assert got == []
    p1, p2 = positions(3), positions(2, mmsi=710_000_002)
    seqs = [
        s.append("positions", p1),
        s.append("leads", [lead("L1")]),
        s.append("vessels", [VesselInfo(710_000_001, name="NAVIO", updated_at=T0)]),
        s.append("positions", p2),
    ]
    assert seqs == sorted(seqs) and len(set(seqs)) == 4
    s.close()
    s, got = opened(tmp_path / "sp")
    assert [(k, q) for k, q, _ in got] == list(
        zip(["positions", "leads", "vessels", "positions"], seqs, strict=True)
    )
    assert got[0][2] == p1 and got[3][2] == p2
    assert got[1][2] == [lead("L1")]
    assert got[2][2] == [VesselInfo(710_000_001, name="NAVIO", updated_at=T0)]
    s.mark_written(seqs[1])
    assert s.append("leads", [lead("L2")]) > seqs[-1]
    s.close()
    s, got = opened(tmp_path / "sp")
    assert [k for k, _, _ in got] == ["vessels", "positions", "leads"] and s.torn == 0
    s.close()


def test_written_segments_are_deleted_and_an_empty_spool_leaves_nothing(tmp_path: Path) -> None:
    """Whole segments at or below the mark go; the one being appended to stays; closing a
    fully written spool removes its folder."""
    s, _ = opened(tmp_path / "sp", segment_bytes=2_000)
    seqs = [s.append("positions", positions(20)) for _ in range(30)]
    many = s.segment_count()
    assert many >= 10
    s.mark_written(seqs[14])
    assert 1 < s.segment_count() < many
    s.close()
    s, got = opened(tmp_path / "sp", segment_bytes=2_000)
    assert [q for _, q, _ in got] == seqs[15:]
    s.mark_written(seqs[-1])
    s.close()
    assert not (tmp_path / "sp").exists()


def test_a_record_torn_by_a_kill_is_skipped_and_counted(tmp_path: Path) -> None:
    """A last record cut short, or one whose bytes changed, fails its checksum: the
    records before it come back, it is counted, and appending carries on after it."""
    s, _ = opened(tmp_path / "sp")
    for i in range(3):
        s.append("positions", positions(5, mmsi=710_000_000 + i))
    s.close()
    (seg,) = (tmp_path / "sp").glob("*.seg")
    seg.write_bytes(seg.read_bytes()[:-7])
    s, got = opened(tmp_path / "sp")
    assert len(got) == 2 and s.torn == 1
    new = s.append("leads", [lead("L9")])
    assert new > got[-1][1]
    s.close()
    s, got = opened(tmp_path / "sp")
    assert [k for k, _, _ in got] == ["positions", "positions", "leads"] and s.torn == 1
    s.close()
    # a flipped byte inside the first record's payload
    first = min((tmp_path / "sp").glob("*.seg"))
    data = bytearray(first.read_bytes())
    data[40] ^= 0xFF
    first.write_bytes(bytes(data))
    s, got = opened(tmp_path / "sp")
    assert [k for k, _, _ in got] == ["leads"] and s.torn == 1
    s.close()


def test_an_intact_record_that_no_longer_decodes_is_skipped_not_fatal(tmp_path: Path) -> None:
    """A record whose checksum holds but whose rows no longer fit the record type (an
    upgrade changed it) is counted as unreadable; the records after it still come back."""
    s, _ = opened(tmp_path / "sp")
    s.append("positions", positions(2))
    s.close()
    (seg,) = (tmp_path / "sp").glob("*.seg")
    payload = pickle.dumps([("not", "a", "position")])
    body = struct.pack("<QB", 2, 0)  # seq 2, kind positions, in the documented layout
    crc = zlib.crc32(payload, zlib.crc32(body))
    with seg.open("ab") as f:
        f.write(struct.pack("<II", len(payload), crc) + body + payload)
    s, got = opened(tmp_path / "sp")
    assert (s.unreadable, s.torn) == (1, 0) and [q for _, q, _ in got] == [1]
    assert s.append("leads", [lead("L")]) == 3
    s.close()
    s, got = opened(tmp_path / "sp")
    assert [q for _, q, _ in got] == [1, 3]
    s.close()


def test_misuse_is_refused_clearly(tmp_path: Path) -> None:
    """One process per spool; recover before appending; only the three kinds."""
    s = Spool(tmp_path / "sp")
    with pytest.raises(SpoolError, match="recover"):
        s.append("positions", positions(1))
    list(s.recover())
    with pytest.raises(SpoolError, match="in use"):
        Spool(tmp_path / "sp")
    with pytest.raises(ValueError, match="unknown spool kind"):
        s.append("alerts", [1])
    s.close()
    s, _ = opened(tmp_path / "sp")  # released on close
    s.close()


def test_spool_folder_per_database_next_to_the_sqlite_file(tmp_path: Path) -> None:
    """Relative spools sit next to the SQLite file; each database gets its own folder (a
    password change keeps it); an empty setting turns the spool off."""
    db = DatabaseSettings(url=None, sqlite_path=str(tmp_path / "v.sqlite"))
    p = spool_path(IngestSettings(), db)
    assert p is not None and p.parent == tmp_path / "vigia-spool"
    assert spool_path(IngestSettings(spool_dir=""), db) is None
    assert spool_path(IngestSettings(spool_dir=None), db) is None
    pg = "postgresql+psycopg://u:{}@h:5432/{}"
    ing = IngestSettings(spool_dir=str(tmp_path / "s"))
    a = spool_path(ing, DatabaseSettings(url=pg.format("x", "one")))
    b = spool_path(ing, DatabaseSettings(url=pg.format("y", "one")))
    c = spool_path(ing, DatabaseSettings(url=pg.format("x", "two")))
    assert a == b != c and a is not None and a.parent == tmp_path / "s"


def test_writer_with_spool_replays_what_a_dead_database_kept(tmp_path: Path) -> None:
    """A writer closed while the store is away leaves its data journaled; the next writer
    on that spool stores all of it, and then the spool is gone."""
    dead = open_repository("postgresql+psycopg://postgres@127.0.0.1:9/nothing")
    w = BufferedWriter(dead, batch_size=100, backoff_max_s=0.05, spool_dir=tmp_path / "sp")
    assert w.submit_positions(positions(250)) == 250
    w.submit_leads([lead("A"), lead("B")])
    w.submit_vessels([VesselInfo(710_000_001, name="NAVIO", updated_at=T0)])
    assert w.close(0.3) is False
    dead.close()
    repo = open_repository(f"sqlite:///{tmp_path / 'v.sqlite'}")
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    w = BufferedWriter(repo, spool_dir=tmp_path / "sp")
    assert w.stats()["recovered"] == 253
    assert w.flush(30)
    assert repo.count_positions() == 250
    assert repo.list_leads(LeadQuery(), 10, scope=EVERY_AUTHORITY)[1] == 2
    assert repo.get_vessel(710_000_001) is not None
    w.submit_positions(positions(10, mmsi=710_000_009))
    assert w.close(10)
    assert repo.count_positions() == 260
    assert not (tmp_path / "sp").exists()
    repo.close()


class PositionsRefused:
    """A real store whose positions table refuses writes (as under a lock timeout) while
    ``refuse`` is set; everything else goes through."""

    def __init__(self, repo: SqlRepository) -> None:
        self.repo = repo
        self.refuse = True

    def add_positions(self, positions: list[Position]) -> int:
        """Refused while ``refuse`` is set."""
        if self.refuse:
            raise StoreUnavailableError("positions table locked")
        return self.repo.add_positions(positions)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.repo, name)


def test_a_lead_written_before_older_positions_does_not_mark_them(tmp_path: Path) -> None:
    """Leads are written before positions: a lead stored while older positions are still
    pending must not let the journal forget those positions."""
    repo = open_repository(f"sqlite:///{tmp_path / 'v.sqlite'}")
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    flaky = PositionsRefused(repo)
    w = BufferedWriter(flaky, backoff_max_s=0.05, spool_dir=tmp_path / "sp")  # type: ignore[arg-type]
    w.submit_positions(positions(100))
    w.submit_leads([lead("A")])
    end = time.monotonic() + 10
    while (w.stats()["written_leads"] < 1 or w.stats()["retries"] < 2) and time.monotonic() < end:
        time.sleep(0.02)
    assert w.stats()["written_leads"] == 1 and repo.get_lead("A", EVERY_AUTHORITY) is not None
    assert w.close(0.2) is False
    s, got = opened(tmp_path / "sp")
    assert [k for k, _, _ in got] == ["positions", "leads"]
    s.close()
    flaky.refuse = False
    w = BufferedWriter(flaky, spool_dir=tmp_path / "sp")  # type: ignore[arg-type]
    assert w.close(10) and repo.count_positions() == 100
    assert not (tmp_path / "sp").exists()
    repo.close()


CHILD = textwrap.dedent(
    """
    import sys, time
    from vigia.service.db.store import open_repository
    from vigia.service.runtime.writer import BufferedWriter
    from tests.storage.builders import T0, lead, pos

    url, spool, until = sys.argv[1], sys.argv[2], sys.argv[4]
    n, at = int(sys.argv[3]), int(sys.argv[5])
    w = BufferedWriter(open_repository(url), batch_size=500, backoff_max_s=0.1,
                       spool_dir=spool)
    accepted = 0
    for i in range(0, n, 250):
        batch = [pos(200_000_000 + k % 1000, T0 + k, -43.0, -22.9) for k in range(i, i + 250)]
        accepted += w.submit_positions(batch)
    w.submit_leads([lead(f"K{i}") for i in range(7)])
    w.submit_leads([lead("K0", min_distance_m=42.0)])
    end = time.monotonic() + 10
    while w.stats()[until] < at and time.monotonic() < end:
        time.sleep(0.02)
    print("accepted", accepted, w.stats()["connected"], flush=True)
    time.sleep(60)
    """
)


def accept_and_die(url: str, spool: Path, n: int, *, until: str, at: int) -> str:
    """Run CHILD, which reports once its writer's stat ``until`` reaches ``at``; SIGKILL
    it as soon as it reports; its report."""
    return kill_at_report(CHILD, url, str(spool), str(n), until, str(at))


@pytest.fixture
def stopped_pg(private_pg: PrivateCluster) -> PrivateCluster:
    """A private, migrated PostgreSQL cluster, stopped."""
    repo = open_repository(private_pg.url)
    repo.migrate()
    repo.close()
    private_pg.stop("fast")
    return private_pg


@pytest.mark.slow
@pytest.mark.postgis
def test_kill_9_while_the_database_is_down_loses_nothing(
    stopped_pg: PrivateCluster, tmp_path: Path
) -> None:
    """A process accepts positions and leads with PostgreSQL down and is SIGKILLed; a new
    writer on the same spool, once the server is back, stores each of them exactly once."""
    n = 20_000
    spool = tmp_path / "spool"
    line = accept_and_die(stopped_pg.url, spool, n, until="retries", at=2)
    assert line.split() == ["accepted", str(n), "False"], line
    stopped_pg.start()
    repo = open_repository(stopped_pg.url)
    assert isinstance(repo, SqlRepository)
    assert repo.count_positions() == 0  # nothing reached the database before the kill
    w = BufferedWriter(repo, spool_dir=spool)
    assert w.stats()["recovered"] == n + 8 and w.stats()["spool_torn"] == 0
    assert w.flush(30), w.stats()
    assert repo.count_positions() == n
    assert repo.list_leads(LeadQuery(), 100, scope=EVERY_AUTHORITY)[1] == 7
    k0 = repo.get_lead("K0", EVERY_AUTHORITY)
    assert k0 is not None and k0.min_distance_m == 42.0  # the newest state won
    assert w.close(10)
    assert not spool.exists()
    repo.close()


@pytest.mark.slow
@pytest.mark.postgis
def test_kill_9_in_the_middle_of_writing_stores_everything_once(
    stopped_pg: PrivateCluster, tmp_path: Path
) -> None:
    """Killed while its thread is writing to a live PostgreSQL, some batches stored and
    some not (and one perhaps committed but not yet marked): the next writer replays the
    rest, and the store's idempotence keeps every position and lead exactly once."""
    stopped_pg.start()
    n = 40_000
    spool = tmp_path / "spool"
    line = accept_and_die(stopped_pg.url, spool, n, until="written", at=10_000)
    assert line.split()[:2] == ["accepted", str(n)], line
    repo = open_repository(stopped_pg.url)
    assert isinstance(repo, SqlRepository)
    before = repo.count_positions()
    w = BufferedWriter(repo, spool_dir=spool)
    recovered = w.stats()["recovered"]
    assert w.flush(30), w.stats()
    print(f"stored before the kill: {before}; re-queued from the spool: {recovered}")
    # whatever was not stored came back from the spool
    assert before >= 10_000 and before + recovered >= n
    assert repo.count_positions() == n
    assert repo.list_leads(LeadQuery(), 100, scope=EVERY_AUTHORITY)[1] == 7
    assert w.close(10)
    repo.close()
