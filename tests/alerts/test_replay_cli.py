"""`vigia replay` as a user runs it: real NMEA sentences in, lead JSON lines out."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.alerts.scenario_kit import (
    ROOT,
    aisgen,
    beach_frame,
    beach_run,
    find_zone,
    geodesic_truth,
)
from vigia.zones.evaluate import ZoneIndex

T0 = 1_767_268_800.0  # 2026-01-01T12:00:00Z
VIGIA = [sys.executable, "-m", "vigia.service.cli"]


def _vigia(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*VIGIA, *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def _leads(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


class Scene:
    """Several vessels around the real bundled zones, with their fixes kept for truth."""

    def __init__(self, index: ZoneIndex) -> None:
        self.index = index
        self.streams: list[list[tuple[float, str]]] = []
        self.fixes: dict[int, list[aisgen.Fix]] = {}

    def add(self, mmsi: int, fixes: list[aisgen.Fix], msg_type: int = 1) -> None:
        self.fixes[mmsi] = fixes
        self.streams.append(list(aisgen.lines_for(mmsi, fixes, msg_type)))

    def static(self, mmsi: int, ship_type: int, *, class_b: bool = False) -> None:
        lines = aisgen.static_lines(
            mmsi, T0 - 60, name=f"V{mmsi % 1000}", ship_type=ship_type, class_b=class_b
        )
        self.streams.append([(T0 - 60, s) for s in lines])

    def write(self, path: Path) -> Path:
        path.write_text("\n".join(aisgen.merge(*self.streams)) + "\n")
        return path

    def truth(self, mmsi: int, zone_id: str) -> float:
        zone = next(z for z in self.index.zones if z.id == zone_id)
        return min(geodesic_truth(zone.geometry, f.lon, f.lat) for f in self.fixes[mmsi])


def _approach(index: ZoneIndex, sog: float) -> list[aisgen.Fix]:
    _, beach = find_zone(index, "bather_beach", "copacabana")
    lon, lat, _, sea = beach_frame(beach)
    start = aisgen.fwd(lon, lat, sea, 400)
    n = int(340 / (sog * aisgen.KN * 10)) + 1
    fixes = aisgen.run(*start, course=(sea + 180) % 360, sog_kn=sog, t0=T0, dt_s=10, n=n)
    last = fixes[-1]
    return fixes + aisgen.hold(last.lon, last.lat, t0=last.t + 30, dt_s=30, n=40)


def _platform_pass(index: ZoneIndex, dist_m: float) -> list[aisgen.Fix]:
    _, plat = find_zone(index, "platform", "P-52")
    cpa = aisgen.fwd(plat.geometry.x, plat.geometry.y, 270, dist_m)  # type: ignore[attr-defined]
    start = aisgen.fwd(*cpa, 0, 12 * aisgen.KN * 10 * 30)
    return aisgen.run(*start, course=180, sog_kn=12, t0=T0, dt_s=10, n=61)


@pytest.fixture(scope="module")
def scene(bundled: ZoneIndex, tmp_path_factory: pytest.TempPathFactory) -> tuple[Scene, Path]:
    s = Scene(bundled)
    # class B sailboats (type 18 positions, type 24 static): 90 m breaks, 150 m does not
    s.static(710002001, 36, class_b=True)
    s.add(710002001, beach_run(bundled, 90, 4, t0=T0), 18)
    s.static(710002002, 36, class_b=True)
    s.add(710002002, beach_run(bundled, 150, 4, t0=T0), 18)
    # class B motorboat (type 24 says pleasure craft) at 150 m
    s.static(710002003, 37, class_b=True)
    s.add(710002003, beach_run(bundled, 150, 12, t0=T0), 18)
    # no static data at all: counts as motor
    s.add(710002004, beach_run(bundled, 160, 10, t0=T0))
    # 0211 b) 3): in at 3 kn perpendicular and anchor (nothing) vs the same at 6 kn
    s.static(710002005, 37)
    s.add(710002005, _approach(bundled, 3.0))
    s.static(710002006, 37)
    s.add(710002006, _approach(bundled, 6.0))
    # a tanker 480 m from P-52 (lead) and one 520 m from it (none)
    s.static(710002007, 80)
    s.add(710002007, _platform_pass(bundled, 480))
    s.static(710002008, 80)
    s.add(710002008, _platform_pass(bundled, 520))
    return s, s.write(tmp_path_factory.mktemp("nmea") / "scene.nmea")


def test_replay_raises_exactly_the_expected_leads(
    scene: tuple[Scene, Path], tmp_path: Path
) -> None:
    s, nmea = scene
    out = tmp_path / "leads.jsonl"
    proc = _vigia("replay", str(nmea), "--leads-out", str(out))
    assert proc.returncode == 0, proc.stderr
    leads = _leads(out.read_text())
    got = sorted((d["mmsi"], d["rule"], d["zone_id"]) for d in leads)
    copa = find_zone(s.index, "bather_beach", "copacabana")[1].id
    plat = find_zone(s.index, "platform", "P-52")[1].id
    assert got == [
        (710002001, "BATH-SAIL", copa),
        (710002003, "BATH-MOTOR", copa),
        (710002004, "BATH-MOTOR", copa),
        (710002006, "BATH-MOTOR", copa),
        (710002007, "SEC-PLATFORM", plat),
    ]
    for d in leads:
        truth = s.truth(d["mmsi"], d["zone_id"])
        assert abs(d["min_distance_m"] - truth) < 2.0, (d["mmsi"], d["min_distance_m"], truth)
        assert d["raw_sentences"] and all("AIVDM" in r for r in d["raw_sentences"])
    by = {d["mmsi"]: d for d in leads}
    assert by[710002001]["vessel"]["ship_type"] == 36
    assert by[710002004]["vessel"] == {
        "name": None,
        "ship_type": None,
        "length_m": None,
        "flag_mid": 710,
    }
    assert "5 leads" in proc.stderr
    assert "\r" not in proc.stderr and "lines/s" not in proc.stderr  # no bar when piped


def test_replay_is_idempotent_and_reads_stdin(scene: tuple[Scene, Path], tmp_path: Path) -> None:
    _, nmea = scene
    out = tmp_path / "a.jsonl"
    first = _vigia("replay", str(nmea), "--leads-out", str(out))
    second = _vigia("replay", "-", stdin=nmea.read_text())
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    assert second.stdout == out.read_text()
    assert len({d["id"] for d in _leads(second.stdout)}) == 5


def test_bad_zone_file_refuses_the_run_and_writes_nothing(
    scene: tuple[Scene, Path], tmp_path: Path
) -> None:
    _, nmea = scene
    bad = tmp_path / "bad.geojson"
    bad.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "features": [
                    {
                        "type": "Feature",
                        "properties": {"id": "x1", "kind": "volcano"},
                        "geometry": {"type": "Point", "coordinates": [-43.1, -22.9]},
                    }
                ],
            }
        )
    )
    out = tmp_path / "leads.jsonl"
    proc = _vigia("replay", str(nmea), "--zones", str(bad), "--leads-out", str(out))
    assert proc.returncode != 0
    assert "bad.geojson" in proc.stderr and "x1" in proc.stderr
    assert not out.exists()
    assert proc.stdout == ""


def test_demo_track_gives_the_leads_its_readme_promises(tmp_path: Path) -> None:
    demo = ROOT / "data" / "demo" / "rio_demo.nmea"
    assert demo.read_text().startswith("# SYNTHETIC")
    proc = _vigia("replay", str(demo))
    assert proc.returncode == 0, proc.stderr
    got = sorted((d["mmsi"], d["rule"]) for d in _leads(proc.stdout))
    assert got == [
        (710999001, "BATH-MOTOR"),
        (710999003, "BATH-MOTOR"),
        (710999004, "BATH-SAIL"),
        (710999007, "SEC-PLATFORM"),
        (710999008, "SEC-MILITARY"),
    ]
    assert "glitches=1" in proc.stderr


def test_demo_track_is_reproducible() -> None:
    from scripts import make_demo_track

    demo = ROOT / "data" / "demo" / "rio_demo.nmea"
    assert "\n".join(make_demo_track.build()) + "\n" == demo.read_text()


def test_replay_reads_the_csv_exports_that_decode_reads(tmp_path: Path) -> None:
    # one speedboat run 20 m off Copacabana at 25 kn, as a NOAA MarineCadastre export
    # (2015-2017 spelling of the status) and as NMEA: the same leads from both
    from vigia.zones.catalogue import bundled_zones_dir, load_zones

    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    fixes = beach_run(index, 20.0, 25.0, t0=T0)
    mmsi = 710000777
    nmea = tmp_path / "run.nmea"
    nmea.write_text("\n".join(line for _, line in aisgen.lines_for(mmsi, fixes)) + "\n")
    csv = tmp_path / "run.csv"
    rows = ["MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,Status"]
    for f in fixes:
        stamp = datetime.fromtimestamp(f.t, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        rows.append(f"{mmsi},{stamp},{f.lat},{f.lon},{f.sog},{f.cog},511,,under way using engine")
    csv.write_text("\n".join(rows) + "\n")
    from_nmea = _vigia("replay", str(nmea))
    from_csv = _vigia("replay", str(csv))
    assert from_csv.returncode == 0, from_csv.stderr
    leads = _leads(from_csv.stdout)
    assert leads and [d["rule"] for d in leads] == [d["rule"] for d in _leads(from_nmea.stdout)]
    assert {d["started_at"] for d in leads} == {d["started_at"] for d in _leads(from_nmea.stdout)}
    bad = tmp_path / "other.csv"
    bad.write_text("a,b,c\n1,2,3\n")
    refused = _vigia("replay", str(bad))
    assert refused.returncode != 0 and refused.stdout == "" and "header" in refused.stderr


def test_replay_says_when_a_file_carries_no_time(tmp_path: Path) -> None:
    capture = ROOT / "tests" / "fixtures" / "gpsd_ais_nmea.log"  # gpsd's, no times at all
    run = _vigia("replay", str(capture))
    assert run.returncode == 0
    assert "warning: 46 messages carry no time of their own" in run.stderr
    assert "untimed=46" in run.stderr
    timed = _vigia("replay", str(ROOT / "tests" / "fixtures" / "libais_uscg.aivdm"))
    assert "warning" not in timed.stderr and "untimed=0" in timed.stderr


# -- the same leads however the file orders its messages (issue 31) --------------------


def _replayed(path: Path) -> dict[str, dict[str, Any]]:
    done = _vigia("replay", str(path))
    assert done.returncode == 0, done.stderr
    return {lead["id"]: lead for lead in _leads(done.stdout)}


def _unmarked(leads: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    marks = ("revisions", "supersedes", "late_evidence")
    return {
        k: {**v, "details": {d: x for d, x in v["details"].items() if d not in marks}}
        for k, v in leads.items()
    }


def test_replay_gives_the_same_leads_for_any_cross_vessel_order(tmp_path: Path) -> None:
    from tests.support import orders

    msgs = orders.messages(ROOT / "data" / "demo" / "rio_demo.nmea")
    by_time = sorted(msgs, key=lambda m: m[1])
    want = _replayed(orders.write(tmp_path / "sorted.nmea", by_time))
    assert len(want) >= 5
    two = _replayed(orders.write(tmp_path / "two.nmea", orders.by_source(by_time)))
    mixed = orders.shuffled_across_vessels(by_time, 3, key=lambda m: m[0])
    assert two == want == _replayed(orders.write(tmp_path / "mixed.nmea", mixed))
    # a satellite feed: late batches, interleaved, duplicates; and the file run twice
    sat = orders.satellite(by_time, seed=5)
    assert _unmarked(_replayed(orders.write(tmp_path / "sat.nmea", sat))) == _unmarked(want)
    assert _replayed(orders.write(tmp_path / "twice.nmea", by_time + by_time)) == want
