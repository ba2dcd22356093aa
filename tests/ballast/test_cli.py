"""`vigia ballast assess` and `vigia ballast audit` on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vigia.ingest.records import iso_utc
from vigia.service.cli import main
from vigia.service.db.protocol import EVERY_AUTHORITY

T0 = 1714521600.0


def test_assess_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One JSON object per CSV row, the same object as POST /ballast/assess."""
    f = tmp_path / "points.csv"
    f.write_text("name,lat,lon\nabyss,-27.0,-38.0\nrio,-23.3,-43.0\namazon,2.5,-47.75\n")
    assert main(["ballast", "assess", str(f)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["zone"] for r in rows] == ["beyond_200nm", "within_50nm", "between_50_200nm"]
    assert [r["meets_50"] for r in rows] == [True, False, False]
    assert rows[0]["distance_to_land_nm"] == pytest.approx(322.9, abs=0.1)
    assert set(rows[0]) >= {"depth_m", "meets_200", "basemap"}


def test_assess_json_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A JSON list of {lat, lon} works too."""
    f = tmp_path / "points.json"
    f.write_text(json.dumps([{"lat": -3.9, "lon": -29.8}]))
    assert main(["ballast", "assess", str(f)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["zone"] == "between_50_200nm" and row["meets_50"]


@pytest.mark.parametrize(
    "content",
    ["lat,lon\n-27,abc\n", "x,y\n1,2\n", "lat,lon\n95,0\n", '{"points": 3}'],
)
def test_assess_bad_input_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    """Bad rows, missing columns, out-of-range points: exit 2, a message, no output."""
    f = tmp_path / "bad.csv"
    f.write_text(content)
    assert main(["ballast", "assess", str(f)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "vigia: error" in captured.err


def test_audit_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An audit file with its own track: the verdict per exchange."""
    track = [
        {"t": iso_utc(T0 + 600 * i), "lat": -27.0 + 0.01 * i, "lon": -38.0 - 0.01 * i}
        for i in range(60)
    ]
    body = {
        "mmsi": 636012345,
        "exchanges": [
            {
                "start": {"time": track[6]["t"], "lat": track[6]["lat"], "lon": track[6]["lon"]},
                "end": {"time": track[40]["t"], "lat": track[40]["lat"], "lon": track[40]["lon"]},
                "volume_m3": 3000,
                "method": "sequential",
            }
        ],
        "track": track,
    }
    f = tmp_path / "audit.json"
    f.write_text(json.dumps(body))
    assert main(["ballast", "audit", str(f)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["exchanges"][0]["verdict"] == "compliant"
    body.pop("track")
    f.write_text(json.dumps(body))
    assert main(["ballast", "audit", str(f)]) == 2
    assert "no track" in capsys.readouterr().err


def test_audit_against_the_stored_track(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--store: the stored AIS track is used and the audit is kept in the store."""
    from vigia.ingest.records import Position
    from vigia.service.db.store import open_repository

    url = f"sqlite:///{tmp_path / 'v.sqlite'}"
    monkeypatch.setenv("DATABASE_URL", url)
    repo = open_repository(url)
    repo.migrate()
    fixes = [Position(636012345, T0 + 600 * i, 1, -38.0, -27.0 + 0.01 * i, 6.0) for i in range(30)]
    repo.add_positions(fixes)
    repo.close()
    ex = {
        "start": {"time": iso_utc(T0 + 1200), "lat": -26.98, "lon": -38.0},
        "end": {"time": iso_utc(T0 + 6000), "lat": -26.9, "lon": -38.0},
    }
    f = tmp_path / "audit.json"
    f.write_text(json.dumps({"mmsi": 636012345, "exchanges": [ex]}))
    assert main(["ballast", "audit", "--store", str(f)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["track_source"] == "stored AIS" and doc["track_points"] == 30
    assert doc["exchanges"][0]["verdict"] == "compliant"
    repo = open_repository(url)
    try:
        assert repo.get_audit(doc["id"], EVERY_AUTHORITY) is not None
    finally:
        repo.close()
