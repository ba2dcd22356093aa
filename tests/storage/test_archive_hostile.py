"""A bad file in the archive folder (issue 31, hostile load): one day's file corrupt,
truncated, empty, not Parquet, a symlink out of the archive, a fifo, or a day folder that
is a file or a symlink. Tracks and ballast arrivals still answer 200 from the other days
and name the bad day as missing; the entry is moved into ``_quarantine`` (never opened
when it is not a regular file); ``vigia archive`` completes and says what it moved aside.

Two days (2024-05-01 and 05-02) of three ships' voyages (tests/ballast/test_arrivals.py)
are archived, the rest stays in the store; then 05-02 is spoiled. What the answers must
hold comes from the positions sent, not from the archive code.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import pyarrow.parquet as pq
import pytest

from tests.api.conftest import Api, make_settings, start
from tests.ballast.test_arrivals import COAST, FOREIGN, LATE, OCEAN, T0, route, window
from vigia.ingest.records import Position
from vigia.service.db import archive_files
from vigia.service.db.archive import Archiver
from vigia.service.db.archive_files import ArchiveGaps
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository
from vigia.service.settings import archive_path

pytestmark = pytest.mark.timeout(120)  # a fifo opened by mistake blocks for ever

DAY = 86_400.0
H = 3_600.0
BAD = "2024-05-02"
BAD_LO, BAD_HI = T0 + DAY, T0 + 2 * DAY
SPOILED_FILE = ["corrupt", "garbage", "truncated", "empty", "text", "symlink", "fifo"]
SPOILED_FOLDER = ["day_text", "day_symlink"]
KINDS = SPOILED_FILE + SPOILED_FOLDER
REASON = dict.fromkeys(KINDS, "corrupt") | dict.fromkeys(
    ["symlink", "fifo", "day_text", "day_symlink"], "not_regular"
)


@dataclass
class Served:
    """The app on one store, what was sent, and the archive folder."""

    api: Api
    sent: list[Position]
    root: Path
    url: str


@pytest.fixture
def served(store_url: str, tmp_path: Path) -> Iterator[Served]:
    settings = make_settings(store_url, tmp_path)
    root = archive_path(settings.archive, settings.database)
    for api in start(settings):
        sent = [
            *route(FOREIGN, T0, OCEAN),
            *route(LATE, T0 + 6 * H, OCEAN),
            *route(710000123, T0 + 40 * H, COAST),
        ]
        api.repo.add_positions(sent)
        assert isinstance(api.repo, SqlRepository)
        # noon of 05-04 with a 1.5-day window: 05-01 and 05-02 move, 05-03 on stay
        moved = Archiver(api.repo.engine, root).run(1.5, now=T0 + 3.5 * DAY)
        assert [r.day for r in moved] == ["2024-05-01", BAD]
        yield Served(api, sent, root, store_url)


def spoil(kind: str, root: Path, outside: Path) -> Path:
    """Turn the bad day's file (or its folder) into ``kind``; returns the entry spoiled."""
    folder = root / f"day={BAD}"
    (part,) = folder.glob("part-*.parquet")
    if kind == "corrupt":  # bytes flipped inside the pages of the time column
        meta = pq.read_metadata(part).row_group(0).column(1)
        at = meta.data_page_offset + meta.total_compressed_size // 2
        data = bytearray(part.read_bytes())
        data[at : at + 16] = bytes(b ^ 0xA5 for b in data[at : at + 16])
        part.write_bytes(bytes(data))
    elif kind == "garbage":
        part.write_bytes(os.urandom(part.stat().st_size))
    elif kind == "truncated":
        os.truncate(part, part.stat().st_size // 2)
    elif kind == "empty":
        os.truncate(part, 0)
    elif kind == "text":
        part.write_text("mmsi,t,lon,lat\n636012345,1714608000,-40.0,-28.0\n")
    elif kind == "symlink":
        part.unlink()
        part.symlink_to("/etc/passwd")
    elif kind == "fifo":
        part.unlink()
        os.mkfifo(part)
    elif kind == "day_text":
        shutil.rmtree(folder)
        folder.write_text("2024-05-02\n")
        return folder
    elif kind == "day_symlink":
        # a whole, valid day outside the archive: following the link would read it
        outside.mkdir()
        shutil.move(folder, outside / folder.name)
        folder.symlink_to(outside / folder.name)
        return folder
    return part


def quarantined(root: Path) -> list[str]:
    """Names in the quarantine folder of the bad day, without the time they were moved."""
    folder = root / "_quarantine" / f"day={BAD}"
    return sorted(p.name.rsplit(".", 1)[0] for p in folder.iterdir()) if folder.is_dir() else []


def utc_day(t: float) -> str:
    return datetime.fromtimestamp(t, tz=UTC).strftime("%Y-%m-%d")


def track_points(s: Served, mmsi: int, **params: str) -> tuple[list[tuple[float, ...]], object]:
    r = s.api.client.get(
        f"/vessels/{mmsi}/track", params={"limit": "50000", **params}, headers=s.api.h("viewer")
    )
    assert r.status_code == 200, r.text
    body = r.json()
    points = [f for f in body["features"] if f["geometry"]["type"] == "Point"]
    return [(*f["geometry"]["coordinates"], f["properties"]["t"]) for f in points], body[
        "missing_days"
    ]


def expected_points(s: Served, mmsi: int, skip_bad: bool) -> list[tuple[float, ...]]:
    from vigia.ingest.records import iso_utc

    return [
        (p.lon, p.lat, iso_utc(p.t))
        for p in sorted(s.sent, key=lambda p: p.t)
        if p.mmsi == mmsi and not (skip_bad and BAD_LO <= p.t < BAD_HI)
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_a_track_skips_the_bad_day_names_it_and_quarantines_it(
    served: Served, kind: str, tmp_path: Path
) -> None:
    whole, missing = track_points(served, FOREIGN)
    assert whole == expected_points(served, FOREIGN, False) and missing == []
    entry = spoil(kind, served.root, tmp_path / "outside")
    outside = sorted((tmp_path / "outside").rglob("*"))

    got, missing = track_points(served, FOREIGN)
    assert got == expected_points(served, FOREIGN, True)
    assert missing == [{"day": BAD, "reasons": [REASON[kind]]}]
    assert not os.path.lexists(entry)  # moved aside, whatever it was
    assert quarantined(served.root) == [f"{entry.name}.{REASON[kind]}"]
    # what a symlink pointed at is untouched (the link moved, not its target)
    assert sorted((tmp_path / "outside").rglob("*")) == outside
    assert Path("/etc/passwd").is_file()
    # the next read still says so, from the quarantine folder
    again, missing = track_points(served, FOREIGN)
    assert again == got and missing == [{"day": BAD, "reasons": [REASON[kind]]}]
    # a range that leaves the bad day out names nothing
    _, missing = track_points(served, FOREIGN, start="2024-05-03T00:00:00Z")
    assert missing == []
    metrics = served.api.client.get("/metrics", headers=served.api.h("viewer")).text
    assert "vigia_archive_quarantined_files 1.0" in metrics.splitlines()
    assert f'vigia_archive_bad_files_total{{reason="{REASON[kind]}"}} 1.0' in metrics


@pytest.mark.parametrize("kind", KINDS)
def test_ballast_arrivals_answer_from_the_other_days_and_name_the_bad_one(
    served: Served, kind: str, tmp_path: Path
) -> None:
    v = served.api.h("viewer")
    params = window(T0 + 24 * H, T0 + 96 * H)
    healthy = served.api.client.get("/ballast/arrivals", params=params, headers=v)
    assert healthy.status_code == 200, healthy.text
    assert healthy.json()["missing_days"] == []
    spoil(kind, served.root, tmp_path / "outside")

    r = served.api.client.get("/ballast/arrivals", params=params, headers=v)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["missing_days"] == [{"day": BAD, "reasons": [REASON[kind]]}]
    # both ocean ships were beyond 200 nm on 05-01 too: the same arrivals, each screened
    # on fewer points (the day at sea that could not be read)
    assert [(a["mmsi"], a["arrived_at"]) for a in body["arrivals"]] == [
        (a["mmsi"], a["arrived_at"]) for a in healthy.json()["arrivals"]
    ]
    assert [a["mmsi"] for a in body["arrivals"]] == [LATE, FOREIGN]
    lost = {
        m: sum(1 for p in served.sent if p.mmsi == m and BAD_LO <= p.t < BAD_HI)
        for m in (LATE, FOREIGN)
    }
    for before, after in zip(healthy.json()["arrivals"], body["arrivals"], strict=True):
        assert before["screening"]["points"] - after["screening"]["points"] == lost[after["mmsi"]]


def archived_keys(root: Path) -> list[tuple[int, float]]:
    """(MMSI, time) of every row of every regular part file under a real day folder."""
    out: list[tuple[int, float]] = []
    for folder in sorted(root.glob("day=*")):
        if folder.is_symlink() or not folder.is_dir():
            continue
        for f in sorted(folder.glob("part-*.parquet")):
            assert f.is_file() and not f.is_symlink()
            tab = pq.read_table(f, columns=["mmsi", "t"])
            pairs = zip(tab.column("mmsi").to_pylist(), tab.column("t").to_pylist(), strict=True)
            out.extend(pairs)
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_vigia_archive_moves_the_bad_day_aside_and_completes(
    served: Served, kind: str, tmp_path: Path
) -> None:
    """The bad day gets a late report, so the run writes that very day; the days still in
    the store move too. The run ends, says what it moved aside, and loses nothing the
    store held."""
    entry = spoil(kind, served.root, tmp_path / "outside")
    outside = sorted((tmp_path / "outside").rglob("*"))
    late = Position(FOREIGN, BAD_LO + 3_600.5, 1, -40.0, -28.0, 14.0, 270.0)
    served.api.repo.add_positions([late])
    env = {**os.environ, "DATABASE_URL": served.url, "VIGIA_ARCHIVE_DIR": str(served.root)}
    cmd = [sys.executable, "-m", "vigia.service.cli", "archive", "--older-than", "1"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    moved_aside = [line for line in lines if "bad_file" in line]
    assert [{k: v for k, v in line.items() if k != "moved_to"} for line in moved_aside] == [
        {"bad_file": str(entry.relative_to(served.root)), "day": BAD, "reason": REASON[kind]}
    ]
    to = f"_quarantine/day={BAD}/{entry.name}.{REASON[kind]}."
    assert moved_aside[0]["moved_to"].startswith(to)
    days = [line for line in lines if "stored" in line]
    assert days[0] == {"day": BAD, "stored": 1, "written": 1}
    hot_days = sorted({utc_day(p.t) for p in served.sent if p.t >= BAD_HI})
    assert [d["day"] for d in days[1:]] == hot_days
    assert served.api.repo.count_positions() == 0
    kept = [p for p in served.sent if not BAD_LO <= p.t < BAD_HI] + [late]
    assert sorted(archived_keys(served.root)) == sorted((p.mmsi, p.t) for p in kept)
    assert quarantined(served.root) == [f"{entry.name}.{REASON[kind]}"]
    assert sorted((tmp_path / "outside").rglob("*")) == outside  # nothing written out there


@pytest.fixture
def archived(tmp_path: Path) -> Iterator[tuple[SqlRepository, list[Position], Path]]:
    """The voyages on a SQLite store with 05-01 and 05-02 archived (no app)."""
    root = tmp_path / "arch"
    repo = open_repository(f"sqlite:///{tmp_path / 'v.sqlite'}", archive_dir=root)
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    sent = [*route(FOREIGN, T0, OCEAN), *route(LATE, T0 + 6 * H, OCEAN)]
    repo.add_positions(sent)
    Archiver(repo.engine, root).run(1.5, now=T0 + 3.5 * DAY)
    yield repo, sent, root
    repo.close()


def test_an_unreadable_file_is_left_in_place_and_read_again_once_it_can_be(
    archived: tuple[SqlRepository, list[Position], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An I/O error may be the disk's, not the file's: the day is named, nothing moves,
    the next read takes it; ``vigia archive`` keeps that day in the store meanwhile."""
    repo, sent, root = archived
    (part,) = (root / f"day={BAD}").glob("part-*.parquet")
    real_open = archive_files.open_regular

    def failing(path: Path) -> BinaryIO:
        if path == part:
            raise OSError(errno.EIO, "Input/output error", str(path))
        return real_open(path)

    monkeypatch.setattr(archive_files, "open_regular", failing)
    gaps = ArchiveGaps()
    got = repo.track(FOREIGN, None, None, gaps=gaps)
    assert [p.t for p in got] == [
        p.t for p in sent if p.mmsi == FOREIGN and not BAD_LO <= p.t < BAD_HI
    ]
    assert gaps.json() == [{"day": BAD, "reasons": ["unreadable"]}]
    assert part.is_file() and not (root / "_quarantine").exists()
    # a late report for that day: the run cannot know what the file holds, so it waits
    late = Position(FOREIGN, BAD_LO + 3_600.5, 1, -40.0, -28.0, 14.0, 270.0)
    repo.add_positions([late])
    archiver = Archiver(repo.engine, root)
    assert [r.day for r in archiver.run(1.5, now=T0 + 3.5 * DAY)] == []
    assert [(b.reason, b.moved_to) for b in archiver.bad] == [("unreadable", None)]
    assert repo.count_positions() == sum(1 for p in sent if p.t >= BAD_HI) + 1

    monkeypatch.setattr(archive_files, "open_regular", real_open)
    gaps = ArchiveGaps()
    got = repo.track(FOREIGN, None, None, gaps=gaps)
    assert [p.t for p in got] == sorted([p.t for p in sent if p.mmsi == FOREIGN] + [late.t])
    assert gaps.json() == []
    assert [r.day for r in Archiver(repo.engine, root).run(1.5, now=T0 + 3.5 * DAY)] == [BAD]


def test_where_the_quarantine_cannot_be_written_a_bad_file_is_never_opened_again(
    archived: tuple[SqlRepository, list[Position], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only mount, or (here) a file where ``_quarantine`` belongs: the bad file
    stays, every answer names its day, and this process does not open it again."""
    repo, sent, root = archived
    (part,) = (root / f"day={BAD}").glob("part-*.parquet")
    part.write_text("not parquet\n")
    (root / "_quarantine").write_text("")
    opened: list[Path] = []
    real_open = archive_files.open_regular

    def counting(path: Path) -> BinaryIO:
        opened.append(path)
        return real_open(path)

    monkeypatch.setattr(archive_files, "open_regular", counting)
    assert repo.archive is not None
    for _ in range(3):
        gaps = ArchiveGaps()
        got = repo.track(FOREIGN, None, None, gaps=gaps)
        assert len(got) == sum(1 for p in sent if p.mmsi == FOREIGN and not BAD_LO <= p.t < BAD_HI)
        assert gaps.json() == [{"day": BAD, "reasons": ["corrupt"]}]
    assert opened.count(part) == 1 and part.is_file()
    assert repo.archive.folder.counts() == {"corrupt": 1, "not_regular": 0, "unreadable": 0}


def test_a_lock_file_that_is_a_link_or_a_fifo_is_moved_aside_not_opened(
    archived: tuple[SqlRepository, list[Position], Path], tmp_path: Path
) -> None:
    repo, _, root = archived
    target = tmp_path / "precious"
    target.write_text("keep me\n")
    for make in (lambda p: p.symlink_to(target), os.mkfifo):
        (root / ".lock").unlink()
        make(root / ".lock")
        archiver = Archiver(repo.engine, root)
        archiver.run(1.5, now=T0 + 3.5 * DAY)
        assert [(b.day, b.reason) for b in archiver.bad] == [(None, "not_regular")]
        assert (root / ".lock").is_file() and not (root / ".lock").is_symlink()
    assert target.read_text() == "keep me\n"
    assert sorted(p.name.split(".")[1] for p in (root / "_quarantine").iterdir()) == ["lock"] * 2
