"""The hot window and the GeoParquet archive (issue 24): what leaves the store, what the
files hold, and that a reader sees one whole track.

Expected values come from the positions the test sends and from the UTC calendar, never
from the archive code: a day is archived when it ended before ``now - DAYS``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from vigia.ingest.records import Position
from vigia.service.cli import main
from vigia.service.db.archive import Archiver
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository
from vigia.service.http.app import create_app, new_api_key
from vigia.service.http.deps import hash_key
from vigia.service.settings import (
    ArchiveSettings,
    DatabaseSettings,
    IngestSettings,
    Settings,
    ZoneSettings,
)

DAY = 86_400
VESSELS = [710_000_001, 710_000_002, 710_000_003, 538_000_004]
STEP = 1_200.0  # one report every 20 minutes


def sent_positions(end: float, days: int = 10) -> list[Position]:
    """Every vessel's reports over ``days`` days before ``end``; the times carry a
    fraction so a float that lost bits on the way would show."""
    out = []
    n = int(days * DAY / STEP)
    for k, mmsi in enumerate(VESSELS):
        for i in range(n):
            t = end - days * DAY + i * STEP + k * 7.25
            out.append(
                Position(
                    mmsi=mmsi,
                    t=t,
                    msg_type=1 + k % 3,
                    lon=-44.0 + i * 1e-4 + k * 0.1,
                    lat=-23.5 - i * 7e-5,
                    sog=10.5 if i % 5 else None,
                    cog=123.4,
                    heading=i % 360,
                    nav_status=0,
                    accuracy=None if i % 7 == 0 else bool(i % 2),
                    source="rx-santos" if k else "",
                )
            )
    return out


def keys(ps: list[Position]) -> list[tuple[int, float]]:
    return [(p.mmsi, p.t) for p in ps]


def archived_keys(root: Path) -> list[tuple[int, float]]:
    out: list[tuple[int, float]] = []
    for f in sorted(root.glob("day=*/part-*.parquet")):
        tab = pq.read_table(f, columns=["mmsi", "t"])
        out.extend(zip(tab.column("mmsi").to_pylist(), tab.column("t").to_pylist(), strict=True))
    return out


def hot_keys(repo: SqlRepository) -> list[tuple[int, float]]:
    with repo.engine.connect() as conn:
        rows = conn.execute(text("SELECT mmsi, t FROM positions")).all()
    return [(int(r[0]), float(r[1])) for r in rows]


@pytest.fixture
def sqlite_repo(tmp_path: Path) -> Iterator[SqlRepository]:
    r = open_repository(f"sqlite:///{tmp_path / 'v.sqlite'}", archive_dir=tmp_path / "arch")
    assert isinstance(r, SqlRepository)
    r.migrate()
    yield r
    r.close()


# noon of 2026-06-04: a 3-day window's cut-off is noon of 06-01, so all of 06-01 stays
NOW = 1_780_531_200.0 + 12 * 3600
BOUND = 1_780_272_000.0  # 2026-06-01T00:00:00Z


def test_a_day_is_archived_only_once_it_ended_before_the_cutoff(
    sqlite_repo: SqlRepository, tmp_path: Path
) -> None:
    sides = [
        Position(mmsi=710_000_001, t=BOUND - 0.001, msg_type=1, lon=-44.0, lat=-23.0),
        Position(mmsi=710_000_001, t=BOUND, msg_type=1, lon=-44.1, lat=-23.1),
    ]
    sqlite_repo.add_positions(sides)
    reports = Archiver(sqlite_repo.engine, tmp_path / "arch").run(3, now=NOW)
    assert [(r.day, r.stored) for r in reports] == [("2026-05-31", 1)]
    assert hot_keys(sqlite_repo) == [(710_000_001, BOUND)]
    assert archived_keys(tmp_path / "arch") == [(710_000_001, BOUND - 0.001)]
    # idempotent: nothing more to move
    assert Archiver(sqlite_repo.engine, tmp_path / "arch").run(3, now=NOW) == []
    assert [p.t for p in sqlite_repo.track(710_000_001, None, None)] == [BOUND - 0.001, BOUND]


def test_a_rerun_after_a_kill_between_file_and_delete_stores_each_position_once(
    sqlite_repo: SqlRepository, tmp_path: Path
) -> None:
    sent = sent_positions(NOW)
    sqlite_repo.add_positions(sent)
    root = tmp_path / "arch"
    Archiver(sqlite_repo.engine, root).run(3, now=NOW)
    before = archived_keys(root)
    old = [p for p in sent if p.t < BOUND]
    # the state a kill -9 after the rename leaves: the days in both places; a track read
    # then shows each position once
    sqlite_repo.add_positions(old)
    assert keys(sqlite_repo.track(710_000_002, None, None)) == keys(
        [p for p in sent if p.mmsi == 710_000_002]
    )
    # and a late report for an archived day
    late = Position(mmsi=710_000_002, t=BOUND - 5 * DAY + 1.5, msg_type=1, lon=-44.0, lat=-23.0)
    sqlite_repo.add_positions([late])
    reports = Archiver(sqlite_repo.engine, root).run(3, now=NOW)
    assert sum(r.stored for r in reports) == len(old) + 1
    assert sum(r.written for r in reports) == 1
    after = archived_keys(root)
    assert sorted(after) == sorted([*before, (late.mmsi, late.t)])
    assert len(set(after)) == len(after)
    assert all(t >= BOUND for _, t in hot_keys(sqlite_repo))


def _archived_sample(repo: SqlRepository, root: Path) -> list[Position]:
    """Ten days stored and archived with a 3-day window; the archived ones, sorted."""
    sent = sent_positions(NOW)
    repo.add_positions(sent)
    Archiver(repo.engine, root).run(3, now=NOW)
    return sorted((p for p in sent if p.t < BOUND), key=lambda p: (p.mmsi, p.t))


def test_the_archive_opens_in_geopandas(sqlite_repo: SqlRepository, tmp_path: Path) -> None:
    import geopandas  # the dev extra's: read as the field reads GeoParquet

    root = tmp_path / "arch"
    old = _archived_sample(sqlite_repo, root)

    frames = [geopandas.read_parquet(f) for f in sorted(root.glob("day=*/*.parquet"))]
    gdf = geopandas.pd.concat(frames).sort_values(["mmsi", "t"])
    assert gdf.crs.to_string() == "OGC:CRS84"
    assert list(zip(gdf.mmsi, gdf.t, gdf.geometry.x, gdf.geometry.y, strict=True)) == [
        (p.mmsi, p.t, p.lon, p.lat) for p in old
    ]


def test_the_archive_opens_in_duckdb(sqlite_repo: SqlRepository, tmp_path: Path) -> None:
    import duckdb

    root = tmp_path / "arch"
    old = _archived_sample(sqlite_repo, root)
    con = duckdb.connect()
    rows = con.execute(
        "SELECT mmsi, t, geometry.x, geometry.y, sog, day FROM read_parquet(?, "
        "hive_partitioning = true) ORDER BY mmsi, t",
        [str(root / "day=*" / "*.parquet")],
    ).fetchall()
    assert [r[:5] for r in rows] == [(p.mmsi, p.t, p.lon, p.lat, p.sog) for p in old]
    # the folder names the UTC day of every row in it
    assert all(str(r[5]) == _utc_day(r[1]) for r in rows)
    # a spatial filter on the covering column, as a reader without geometry support does
    n = con.execute(
        "SELECT count(*) FROM read_parquet(?) WHERE bbox.xmin <= -43.85 AND bbox.xmax >= -43.95",
        [str(root / "day=*" / "*.parquet")],
    ).fetchone()
    assert n is not None
    assert n[0] == sum(1 for p in old if -43.95 <= p.lon <= -43.85)  # type: ignore[operator]


def _utc_day(t: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, tz=UTC).strftime("%Y-%m-%d")


@pytest.mark.postgis
def test_ten_days_on_postgis_leave_three_hot_and_one_whole_track(
    fresh_pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's "Done when"."""
    import time

    root = tmp_path / "arch"
    repo = open_repository(fresh_pg_url, archive_dir=root)
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    now = time.time()
    sent = sent_positions(now)
    for i in range(0, len(sent), 5000):
        repo.add_positions(sent[i : i + 5000])

    monkeypatch.setenv("DATABASE_URL", fresh_pg_url)
    monkeypatch.setenv("VIGIA_ARCHIVE_DIR", str(root))
    ran_at = time.time()
    assert main(["archive", "--older-than", "3"]) == 0
    bound = (ran_at - 3 * DAY) // DAY * DAY  # the UTC day at the edge stays whole

    hot = hot_keys(repo)
    assert sorted(hot) == sorted(keys([p for p in sent if p.t >= bound]))
    with repo.engine.connect() as conn:
        parts = conn.execute(
            text(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                "WHERE i.inhparent = 'positions'::regclass AND c.relname <> 'positions_default'"
            )
        ).all()
    assert sorted(str(r[0]) for r in parts) == sorted(
        {"positions_d" + _utc_day(p.t).replace("-", "") for p in sent if p.t >= bound}
    )
    cold = archived_keys(root)
    assert len(cold) == len(set(cold))  # nothing doubled
    assert sorted(cold) == sorted(keys([p for p in sent if p.t < bound]))  # nothing lost
    assert sorted(d.name for d in root.glob("day=*")) == sorted(
        {"day=" + _utc_day(p.t) for p in sent if p.t < bound}
    )
    for f in root.glob("day=*/*.parquet"):
        _check_geoparquet(f)

    settings = Settings(
        database=DatabaseSettings(url=fresh_pg_url, sqlite_path=str(tmp_path / "x.sqlite")),
        ingest=IngestSettings(worker=False),
        zones=ZoneSettings(zones_dir=str(tmp_path)),
        archive=ArchiveSettings(archive_dir=str(root)),
    )
    key = new_api_key()
    repo.add_api_key("t", "viewer", hash_key(key))
    with TestClient(create_app(settings)) as client:
        got: list[tuple[int, float]] = []
        url: str | None = "/vessels/710000003/track?limit=200"
        while url:
            body = client.get(url, headers={"X-API-Key": key}).json()
            points = [f for f in body["features"] if f["geometry"]["type"] == "Point"]
            got += [(710_000_003, f["geometry"]["coordinates"][0]) for f in points]
            nxt = [link["href"] for link in body["links"] if link["rel"] == "next"]
            url = nxt[0].split("testserver", 1)[-1] if nxt else None
    whole = [p for p in sent if p.mmsi == 710_000_003]
    assert len(whole) == 720
    assert got == [(p.mmsi, p.lon) for p in whole]
    # every field of every vessel's positions comes back as sent, across the edge
    for mmsi in VESSELS:
        assert repo.track(mmsi, None, None) == [p for p in sent if p.mmsi == mmsi]
    repo.close()


def _check_geoparquet(path: Path) -> None:
    """What GeoParquet 1.1 asks of a file, read with plain pyarrow."""
    meta = pq.read_metadata(path)
    geo = json.loads(meta.metadata[b"geo"])
    assert geo["version"] == "1.1.0" and geo["primary_column"] == "geometry"
    col = geo["columns"]["geometry"]
    assert col["encoding"] == "point" and col["geometry_types"] == ["Point"]
    assert col["crs"]["id"] == {"authority": "OGC", "code": "CRS84"}
    assert col["covering"]["bbox"] == {k: ["bbox", k] for k in ("xmin", "ymin", "xmax", "ymax")}
    for rg in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            assert meta.row_group(rg).column(c).compression == "ZSTD"
    tab = pq.read_table(path)
    pairs = list(zip(tab.column("mmsi").to_pylist(), tab.column("t").to_pylist(), strict=True))
    assert pairs == sorted(pairs)
    xs = tab.column("geometry").combine_chunks().field("x").to_pylist()
    ys = tab.column("geometry").combine_chunks().field("y").to_pylist()
    box = tab.column("bbox").combine_chunks()
    for name, vals, op in (
        ("xmin", xs, float.__le__),
        ("xmax", xs, float.__ge__),
        ("ymin", ys, float.__le__),
        ("ymax", ys, float.__ge__),
    ):
        assert all(op(b, v) for b, v in zip(box.field(name).to_pylist(), vals, strict=True))


@pytest.mark.slow
def test_kill_9_at_random_moments_then_a_rerun_loses_and_doubles_nothing(
    store_url: str, tmp_path: Path
) -> None:
    import random
    import signal
    import subprocess
    import sys
    import time

    root = tmp_path / "arch"
    repo = open_repository(store_url, archive_dir=root)
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    now = time.time()
    sent = [
        Position(
            mmsi=700_000_000 + v,
            t=now - 10 * DAY + i * 90.0 + v,
            msg_type=1,
            lon=-40.0 + v * 0.01,
            lat=-20.0 - i * 1e-5,
            sog=9.0,
        )
        for v in range(12)
        for i in range(int(10 * DAY / 90))
    ]
    for i in range(0, len(sent), 20_000):
        repo.add_positions(sent[i : i + 20_000])
    env = {**os.environ, "DATABASE_URL": store_url, "VIGIA_ARCHIVE_DIR": str(root)}
    cmd = [sys.executable, "-m", "vigia.service.cli", "archive", "--older-than", "3"]
    rng = random.Random(24)
    kills = 0
    for _ in range(8):
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
        # a whole run takes about 1.5 s here (half of it start-up): kill inside that
        time.sleep(rng.uniform(0.3, 1.6))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 3  # the runs really were cut short
    assert subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL).returncode == 0
    bound = (time.time() - 3 * DAY) // DAY * DAY
    cold = archived_keys(root)
    hot = hot_keys(repo)
    assert len(cold) == len(set(cold)) and not set(cold) & set(hot)
    assert sorted(cold + hot) == sorted(keys(sent))
    assert all(t < bound for _, t in cold) and all(t >= bound for _, t in hot)
    assert not list(root.glob("day=*/.*.tmp"))
    repo.close()


def test_a_ballast_audit_reads_a_track_half_in_the_archive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 30 fixes of a voyage cross a midnight; the first day goes to the archive, and
    `vigia ballast audit --store` still sees all 30."""
    from vigia.ingest.records import iso_utc

    day = 1_714_521_600.0  # 2024-05-01T00:00Z
    start = day - 2 * 3600  # 22:00 the evening before: 12 fixes before midnight
    url = f"sqlite:///{tmp_path / 'v.sqlite'}"
    root = tmp_path / "arch"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("VIGIA_ARCHIVE_DIR", str(root))
    repo = open_repository(url)
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    fixes = [
        Position(636012345, start + 600 * i, 1, -38.0, -27.0 + 0.01 * i, 6.0) for i in range(30)
    ]
    repo.add_positions(fixes)
    reports = Archiver(repo.engine, root).run(0.1, now=day + 12 * 3600)
    assert [(r.day, r.stored) for r in reports] == [("2024-04-30", 12)]
    assert repo.count_positions() == 18
    repo.close()
    ex = {
        "start": {"time": iso_utc(start + 1200), "lat": -26.98, "lon": -38.0},
        "end": {"time": iso_utc(start + 6000), "lat": -26.9, "lon": -38.0},
    }
    f = tmp_path / "audit.json"
    f.write_text(json.dumps({"mmsi": 636012345, "exchanges": [ex]}))
    assert main(["ballast", "audit", "--store", str(f)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["track_source"] == "stored AIS" and doc["track_points"] == 30
    assert doc["exchanges"][0]["verdict"] == "compliant"


def test_serve_runs_the_daily_pass_at_a_quarter_past_midnight_utc() -> None:
    from vigia.service.runtime.archiving import next_run

    midnight = 1_714_521_600.0  # 2024-05-01T00:00Z
    quarter = midnight + 15 * 60
    assert next_run(midnight) == quarter
    assert next_run(quarter - 0.001) == quarter
    assert next_run(quarter) == quarter + DAY  # just ran: tomorrow
    assert next_run(midnight - 1) == quarter  # 23:59:59 the day before


def test_the_window_setting_is_off_when_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ArchiveSettings().retention_hot_days == 30
    monkeypatch.setenv("VIGIA_RETENTION_HOT_DAYS", "")
    assert ArchiveSettings().retention_hot_days is None
    monkeypatch.setenv("VIGIA_RETENTION_HOT_DAYS", "1.5")
    assert ArchiveSettings().retention_hot_days == 1.5
    monkeypatch.setenv("VIGIA_RETENTION_HOT_DAYS", "0")
    with pytest.raises(ValueError):
        ArchiveSettings()


def test_sqlite_gives_the_pages_of_archived_days_back(
    sqlite_repo: SqlRepository, tmp_path: Path
) -> None:
    def pages() -> tuple[int, int]:
        with sqlite_repo.engine.connect() as conn:
            n = conn.exec_driver_sql("PRAGMA page_count").scalar()
            free = conn.exec_driver_sql("PRAGMA freelist_count").scalar()
        return int(n or 0), int(free or 0)

    sqlite_repo.add_positions(sent_positions(NOW))
    before, _ = pages()
    Archiver(sqlite_repo.engine, tmp_path / "arch").run(3, now=NOW)
    after, free = pages()
    # without the vacuum the freed pages stay in the file, on its free list
    assert free == 0 and after < before
