"""Backup, verify and restore on both stores, event-id epochs, and archive holes
(issue 38). The whole drill, with a live service, is tests/live/test_backup_drill.py."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.storage.builders import T0, lead, pos
from tests.support.pg import url_of
from vigia.service.db import epochs
from vigia.service.db.archive import Archiver
from vigia.service.db.archive_ledger import check
from vigia.service.db.backup import Place, take, verify
from vigia.service.db.protocol import EVERY_AUTHORITY
from vigia.service.db.repository import SqlRepository
from vigia.service.db.restore import restore
from vigia.service.db.snapshot import BackupError
from vigia.service.db.store import open_repository
from vigia.service.settings import ArchiveSettings, DatabaseSettings, archive_path

DAY = 86_400


@pytest.fixture
def target(repo: SqlRepository, tmp_path: Path) -> Iterator[Place]:
    """A place to restore into, of the same kind as ``repo`` (not created yet)."""
    if repo.engine.dialect.name == "postgresql":
        name = f"vigia_t_{uuid.uuid4().hex[:12]}"
        yield Place(url_of(name), tmp_path / "b" / "archive", tmp_path / "b" / "spool")
        admin = open_repository(url_of("postgres"))
        with admin.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.close()
        return
    url = f"sqlite:///{tmp_path / 'b' / 'v.sqlite'}"
    yield Place(url, tmp_path / "b" / "archive", tmp_path / "b" / "spool")


def _source(repo: SqlRepository, tmp_path: Path) -> Place:
    url = repo.engine.url.render_as_string(hide_password=False)
    return Place(url, tmp_path / "a" / "archive", tmp_path / "a" / "spool")


def _archived_store(repo: SqlRepository, archive: Path) -> None:
    repo.add_positions([pos(710000001, T0 + i * 60, -40.0, -22.5) for i in range(30)])
    repo.upsert_leads([lead("L-1"), lead("L-2")])
    Archiver(repo.engine, archive).run(1, now=T0 + 10 * DAY)


def test_backup_verify_restore(repo: SqlRepository, target: Place, tmp_path: Path) -> None:
    src = _source(repo, tmp_path)
    _archived_store(repo, src.archive)
    head = repo.last_event_id()
    manifest = take(src, tmp_path / "bk", fingerprint=True)
    assert manifest["store"]["tables"]["leads"] == 2
    assert manifest["store"]["events"]["last_event_id"] == head
    assert manifest["archive"]["days"]["2025-11-24"]["positions"] == 30
    assert manifest["store"]["archived_days"] == {"2025-11-24": 30}
    assert verify(tmp_path / "bk") == []

    report = restore(tmp_path / "bk", target)
    assert report["fingerprint"] == "matches"
    assert report["archive"]["positions"] == 30 and report["archive_check"]["missing_days"] == []
    back = open_repository(target.url, archive_dir=target.archive)
    assert isinstance(back, SqlRepository)
    try:
        assert len(back.track(710000001, None, None)) == 30
        # a new epoch: the next event is far above anything the lost store could issue
        back.upsert_leads([lead("L-3")])
        new = back.events_after(head, 10, scope=EVERY_AUTHORITY)
        assert [e.lead_id for e in new] == ["L-3"] and new[0].id >= head + epochs.MIN_GAP
        with back.engine.connect() as conn:
            assert epochs.unplaceable(conn, head) is None
            assert epochs.unplaceable(conn, head + 5) == epochs.OTHER_TIMELINE
            assert epochs.unplaceable(conn, new[0].id + 1) == epochs.AHEAD
    finally:
        back.close()
    # a used target is refused, and with --force moved aside, never deleted
    with pytest.raises(BackupError, match="not empty"):
        restore(tmp_path / "bk", target)
    again = restore(tmp_path / "bk", target, force=True)
    assert again["moved_aside"]
    assert again["events"]["generation"] == 1  # the backup's own generation, plus one
    assert again["events"]["new_ids_from"] != report["events"]["new_ids_from"]


def test_verify_names_what_changed(repo: SqlRepository, tmp_path: Path) -> None:
    src = _source(repo, tmp_path)
    _archived_store(repo, src.archive)
    take(src, tmp_path / "bk")
    part = next((tmp_path / "bk" / "archive").glob("day=*/*.parquet"))
    part.write_bytes(part.read_bytes()[:-10])
    problems = verify(tmp_path / "bk")
    assert any("SHA-256" in p for p in problems), problems
    shutil.rmtree(part.parent)
    manifest = json.loads((tmp_path / "bk" / "manifest.json").read_text())
    manifest["archive"]["days"] = {}
    (tmp_path / "bk" / "manifest.json").write_text(json.dumps(manifest))
    assert any("the store recorded 30" in p for p in verify(tmp_path / "bk"))


def test_a_lost_archive_day_is_named(repo: SqlRepository, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    _archived_store(repo, archive)
    assert check(repo.engine, archive).missing == {}
    part = next(archive.glob("day=*/*.parquet"))
    shutil.copy(part, part.with_name("part-copy.parquet"))
    assert list(check(repo.engine, archive, exact=True).duplicates.values()) == [30]
    shutil.rmtree(part.parent)
    found = check(repo.engine, archive)
    assert found.holes == ["2025-11-24"] and list(found.missing.values()) == [(30, 0)]


def test_postgis_archive_never_follows_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    db = DatabaseSettings(url="postgresql+psycopg://u@h/vigia_x")
    root = archive_path(ArchiveSettings(data_dir=str(tmp_path / "data")), db)
    assert root == tmp_path / "data" / "vigia_x" / "vigia-archive"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    elsewhere = archive_path(ArchiveSettings(), db)
    assert elsewhere == tmp_path / "xdg" / "vigia" / "vigia_x" / "vigia-archive"
