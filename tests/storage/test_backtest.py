"""Backtests (issue 36): a published zone tried on a past period gives exactly the leads
live detection raised in it, across the archive and the store, on both stores; a draft's
difference against the zones in force.

Live detection here is the ingest worker itself, fed tagged NMEA, writing through its
buffered writer; then the older days go to the archive with the real archiver.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scripts.aisgen import Fix, fwd, hold, lines_for, merge, run, static_lines
from vigia.alerts.backtest.engine import trim
from vigia.alerts.lead import Lead
from vigia.ingest.records import Position, RawLine
from vigia.service.db.archive import Archiver
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository
from vigia.service.runtime.backtest import MAX_LEAD_IN_S, _read, backtest
from vigia.service.runtime.worker import IngestWorker
from vigia.service.settings import IngestSettings
from vigia.zones.catalogue import parse_feature_collection

DAY = 86400.0
T0 = 1_764_028_800.0  # 2025-11-25 00:00 UTC
PLAT = (-40.0, -22.5)
SINCE = T0 + 18 * 3600.0  # in the archived first day
UNTIL = T0 + 3 * DAY
DIAGONAL = 710_100_300


def _platform(distance_m: float | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {"id": "plat-bt", "kind": "platform", "name": "P-BT"}
    if distance_m is not None:
        props["distance_m"] = distance_m
    return {"type": "Feature", "properties": props,
            "geometry": {"type": "Point", "coordinates": list(PLAT)}}  # fmt: skip


def _far() -> dict[str, Any]:
    return {"type": "Feature", "properties": {"id": "plat-far", "kind": "platform"},
            "geometry": {"type": "Point", "coordinates": [-41.5, -23.5]}}  # fmt: skip


def _zones(*features: dict[str, Any]) -> Any:
    return parse_feature_collection({"type": "FeatureCollection", "features": list(features)})


def _crossing(t0: float, offset_m: float, course: float) -> list[Fix]:
    """Two hours at 10 kn along ``course``, passing ``offset_m`` abeam of the platform
    at the hour."""
    lon, lat = fwd(*PLAT, course + 90.0, offset_m)
    lon, lat = fwd(lon, lat, course + 180.0, 10 * 1852.0)
    return run(lon, lat, course=course, sog_kn=10.0, t0=t0, dt_s=60.0, n=120)


def _traffic(seed: int) -> tuple[list[str], int]:
    """Crossings at random times and offsets, a vessel lying 300 m off the platform
    across SINCE and the archive's day boundary, one passing at 700 m (its MMSI is
    returned), and one passing diagonally at 1.5 km in the archived day: the cell index
    names it (its fixes' box in a cell holds the platform), its tracks then rule it out."""
    rnd = random.Random(seed)
    streams: list[Any] = []
    statics: list[str] = []
    for k in range(8):
        mmsi = 710_100_000 + k
        statics += static_lines(mmsi, T0, name=f"BT {k}", ship_type=70, length_m=90)
        for _ in range(rnd.randint(1, 3)):
            t0 = rnd.uniform(T0 + 600, UNTIL - 3 * 3600)
            streams.append(lines_for(mmsi, _crossing(t0, rnd.uniform(0, 450), rnd.uniform(0, 360))))
    lying = 710_100_100
    statics += static_lines(lying, T0, name="LYING", ship_type=70, length_m=90)
    spot = fwd(*PLAT, 45.0, 300.0)
    streams.append(lines_for(lying, hold(*spot, t0=T0 + 15 * 3600, dt_s=180.0, n=240)))
    passer = 710_100_200
    statics += static_lines(passer, T0, name="PASSER", ship_type=70, length_m=90)
    streams.append(lines_for(passer, _crossing(T0 + 30 * 3600, 700.0, 10.0)))
    streams.append(lines_for(DIAGONAL, _crossing(T0 + 20 * 3600, 1500.0, 45.0)))
    return statics + merge(*streams), passer


def _sent(line: str) -> float:
    return float(line.split("c:", 1)[1].split("*", 1)[0])


def _live(repo: SqlRepository, lines: list[str]) -> None:
    """The worker's own path: decode, judge, write (positions, vessels, leads)."""
    zones = repo.list_zones(None, None, None)[0]
    worker = IngestWorker(repo, IngestSettings(worker=True), zones, sources=[])
    for i in range(0, len(lines), 2000):
        # received a second after it was sent, as on a live feed
        batch = [RawLine(x, _sent(x) + 1.0, "udp") for x in lines[i : i + 2000]]
        worker._process(batch)
    worker._writer_leads(worker._pipeline.finish())
    worker._writer.close()


def _facts(lead: Lead) -> tuple[Any, ...]:
    j = lead.to_json()
    return (j["id"], j["rule"], j["mmsi"], j["started_at"], j["ended_at"], j["min_distance_m"],
            j["max_sog_kn"], j["closest_point"], j["evidence"], j["authority"], j["silenced"],
            j["vessel"])  # fmt: skip


@pytest.fixture
def store(store_url: str, tmp_path: Path) -> Iterator[SqlRepository]:
    repo = open_repository(store_url, archive_dir=tmp_path / "arch")
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    yield repo
    repo.close()


@pytest.mark.parametrize("seed", [1, 2])
def test_backtest_of_a_published_zone_equals_live_detection(
    store: SqlRepository, seed: int
) -> None:
    repo = store
    repo.put_zones(_zones(_platform(), _far()))
    lines, _ = _traffic(seed)
    silenced = 710_100_003
    repo.add_silence({"mmsi": silenced, "until": UNTIL, "reason": "test"}, "t", EVERY_AUTHORITY)
    _live(repo, lines)
    moved = Archiver(repo.engine, repo.archive.folder.root).run(1.5, now=UNTIL)  # type: ignore[union-attr]
    assert [r.day for r in moved] == ["2025-11-25"]  # the first day is archived
    live = [
        x
        for x in repo.list_leads(LeadQuery(include_silenced=True), 1000, scope=EVERY_AUTHORITY)[0]
        if x.zone_id == "plat-bt" and SINCE <= x.started_at <= UNTIL
    ]
    published = [z for z in repo.list_zones(None, None, None)[0] if z.id == "plat-bt"]
    out = backtest(repo, published, SINCE, UNTIL)
    assert sorted(map(_facts, out.leads)) == sorted(map(_facts, live))
    # the lying vessel's episode opened before SINCE: no lead of it starts in the window
    assert all(x.mmsi != 710_100_100 for x in out.leads)
    assert any(x.silence_id is not None for x in live) == any(x.mmsi == silenced for x in live)
    assert out.report["difference"] == {"new": 0, "kept": len(live), "gone": 0}
    read = out.report["read"]
    assert read["positions_read_archive"] > 0 and read["positions_read_store"] > 0
    assert read["unsettled_vessels"] == 0
    assert "plat-far" not in out.report["zones_compared"]
    # the archived day's vessels came from its cell index, which named the diagonal
    # passer too; its own rows ruled it out, as the scan would have
    assert read["files_indexed"] == 1 and read["days_scanned_without_index"] == []
    assert read["vessels_named_not_near"] >= 1
    # the same backtest scanning the day (as for a day archived before the index), and
    # with the day's index gone: the same leads and the same report, but for what was read
    scanned = backtest(repo, published, SINCE, UNTIL, index=False)
    (index,) = Path(repo.archive.folder.root).glob("day=*/_part-*.cells")  # type: ignore[union-attr]
    index.unlink()
    old = backtest(repo, published, SINCE, UNTIL)
    for other in (scanned, old):
        assert list(map(_facts, other.leads)) == list(map(_facts, out.leads))
        assert _but_read(other.report) == _but_read(out.report)
        assert other.report["read"]["vessels"] == read["vessels"]
        assert other.report["read"]["positions_replayed"] == read["positions_replayed"]
        assert other.report["read"]["days_scanned_without_index"] == ["2025-11-25"]
        assert other.report["read"]["vessels_named_by_index"] == 0


def _but_read(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in ("read", "seconds")}


def test_a_wider_draft_raises_the_passer_and_says_what_changes(store: SqlRepository) -> None:
    repo = store
    repo.put_zones(_zones(_platform(), _far()))
    lines, passer = _traffic(3)
    _live(repo, lines)
    out = backtest(repo, _zones(_platform(distance_m=1000.0)), SINCE, UNTIL)
    base = backtest(repo, [z for z in repo.list_zones(None, None, None)[0] if z.id == "plat-bt"],
                    SINCE, UNTIL)  # fmt: skip
    before = {x.mmsi for x in base.leads}
    assert passer not in before  # 700 m off a 500 m zone
    assert {x.mmsi for x in out.leads} == before | {passer}
    new = [x for x, change in out.compared.draft if change == "new"]
    assert passer in {x.mmsi for x in new}
    assert {x.mmsi for x in out.compared.gone} <= before
    assert out.report["difference"]["new"] == len(new) >= 1
    assert sum(out.report["per_day"].values()) == len(out.leads)


def _vigia(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "VIGIA_DATABASE_URL")}
    env["VIGIA_SQLITE_PATH"] = str(tmp_path / "cli.sqlite")
    return subprocess.run(
        [sys.executable, "-m", "vigia.service.cli", *args],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_commands_write_the_leads_the_report_and_both_exports(tmp_path: Path) -> None:
    """vigia backtest and vigia draft on a SQLite store with an archived day."""
    repo = open_repository(f"sqlite:///{tmp_path / 'cli.sqlite'}", archive_dir=tmp_path / "a")
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    repo.put_zones(_zones(_platform(), _far()))
    lines, passer = _traffic(4)
    _live(repo, lines)
    Archiver(repo.engine, tmp_path / "vigia-archive").run(1.5, now=UNTIL)
    live = {
        x.id
        for x in repo.list_leads(LeadQuery(include_silenced=True), 1000, scope=EVERY_AUTHORITY)[0]
        if x.zone_id == "plat-bt" and SINCE <= x.started_at <= UNTIL
    }
    repo.close()
    draft = tmp_path / "draft.geojson"
    draft.write_text(json.dumps({"type": "FeatureCollection", "features": [_platform(1000.0)]}))
    window = ["--since", "2025-11-25T18:00:00Z", "--until", "2025-11-28T00:00:00Z"]
    proc = _vigia(tmp_path, "backtest", "--zones", str(draft), *window, "--leads-out", "l.jsonl",
                  "--report", "r.json", "--geojson", "g.geojson", "--csv", "c.csv")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    leads = [json.loads(x) for x in (tmp_path / "l.jsonl").read_text().splitlines()]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["leads"] == len(leads) and passer in {x["mmsi"] for x in leads}
    assert report["read"]["positions_read_archive"] > 0
    geo = json.loads((tmp_path / "g.geojson").read_text())["features"]
    gone = {f["id"] for f in geo if f["properties"]["change"] == "gone"}
    kept = {f["id"] for f in geo if f["properties"]["change"] == "kept"}
    assert gone | kept == live  # every lead of the zone in force is kept or gone
    rows = (tmp_path / "c.csv").read_text().splitlines()
    assert len(rows) == len(geo) + 1
    # the same draft through vigia draft: stored, tried, published
    added = json.loads(_vigia(tmp_path, "draft", "add", str(draft)).stdout)
    tried = _vigia(tmp_path, "draft", "try", str(added["id"]), *window)
    assert json.loads(tried.stdout)["leads"] == len(leads)
    _vigia(tmp_path, "draft", "budget", "plat-bt", "0")
    refused = _vigia(tmp_path, "draft", "publish", str(added["id"]))
    assert refused.returncode != 0 and "budget" in refused.stderr
    done = _vigia(tmp_path, "draft", "publish", str(added["id"]), "--reason", "wider on purpose")
    assert json.loads(done.stdout)["history"][-1]["reason"] == "wider on purpose"
    # a bad draft file refuses the run before anything is written
    draft.write_text('{"type": "FeatureCollection", "features": [{"type": "Feature"}]}')
    bad = _vigia(tmp_path, "backtest", "--zones", str(draft), "--since", "1d", "--leads-out", "x")
    assert bad.returncode != 0 and not (tmp_path / "x").exists()


class _Tracks:
    """A reader of in-memory tracks (``PeriodReader.tracks``' contract), counting reads."""

    def __init__(self, tracks: dict[int, list[float]]) -> None:
        self._tracks = tracks
        self.reads = 0

    def tracks(self, mmsis: Any, start: float, end: float) -> dict[int, list[Position]]:
        self.reads += 1
        return {
            m: [Position(m, t, 1, -40.0, -22.0) for t in self._tracks[m] if start <= t <= end]
            for m in sorted(set(mmsis))
        }


@settings(max_examples=200, deadline=None)
@given(
    # each vessel: runs of reports (gap, how many), hours to days long, some past 8 days
    gaps=st.lists(
        st.lists(
            st.tuples(st.sampled_from([30.0, 600.0, 3599.0, 3601.0, 7200.0, 86_400.0]),
                      st.integers(1, 300)),
            max_size=6,
        ),
        min_size=1, max_size=4,
    ),
    first=st.floats(0.0, 12 * DAY),
    since=st.floats(2 * DAY, 12 * DAY),
)  # fmt: skip
def test_the_lead_in_replays_from_the_last_silence_within_eight_days(
    gaps: list[list[tuple[float, int]]], first: float, since: float
) -> None:
    """Read in day-aligned rounds (service/runtime/backtest.py) or at once from eight
    days back, every vessel starts at the same fix, and the same ones are unsettled:
    where the rounds start never changes what is replayed."""
    since, until, forget = T0 + since, T0 + 14 * DAY, 3600.0
    times = {}
    for k, runs in enumerate(gaps):
        t, ts = T0 + first, []
        for step, n in runs:
            for _ in range(n):
                ts.append(t)
                t += step
        # a candidate has a fix in the period: what found it
        times[k] = [*ts, max(t, since + 60.0)]
    reader = _Tracks(times)
    got = _read(reader, set(times), since, until, forget)  # type: ignore[arg-type]
    begin = since - MAX_LEAD_IN_S
    whole = trim(_Tracks(times).tracks(times, begin, until), since, begin, forget)
    assert {m: [p.t for p in ps] for m, ps in got.by_mmsi.items()} == {
        m: [p.t for p in ps] for m, ps in whole.by_mmsi.items()
    }
    assert got.unsettled == whole.unsettled
    assert reader.reads <= 4


def test_a_zone_moved_away_says_its_leads_are_gone(store: SqlRepository) -> None:
    """The zones in force are read where they stand now, not only where the draft puts
    them: moving the platform 20 km gives every lead it raised as gone."""
    repo = store
    repo.put_zones(_zones(_platform(), _far()))
    lines, _ = _traffic(5)
    _live(repo, lines)
    live = {
        x.id
        for x in repo.list_leads(LeadQuery(include_silenced=True), 1000, scope=EVERY_AUTHORITY)[0]
        if x.zone_id == "plat-bt" and SINCE <= x.started_at <= UNTIL
    }
    assert live
    moved = _platform()
    moved["geometry"]["coordinates"] = list(fwd(*PLAT, 90.0, 20_000.0))
    out = backtest(repo, _zones(moved), SINCE, UNTIL)
    assert out.leads == []
    assert {x.id for x in out.compared.gone} == live
    assert out.report["difference"] == {"new": 0, "kept": 0, "gone": len(live)}
