"""`vigia zones import` into both stores (issue 40): the same source twice changes
nothing; a changed source makes new versions and retirements and keeps the history; a
zone edited by hand since its import is never overwritten (``--force`` overrides); a
zone from elsewhere is not taken over; a plan overtaken by an edit is refused."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from tests.conftest import SHARED
from vigia.service.cli import main
from vigia.service.db.repository import SqlRepository
from vigia.service.errors import ConflictError
from vigia.zones.model import Zone, ZoneKind

OFSPLF = SHARED / "data" / "enc" / "BR323000_OFSPLF.geojson"
MOVED, GONE, EDITED = 115298, 115310, 1450022065  # three charted FIDNs of that layer


def _import(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> dict[str, Any]:
    assert main(["zones", "import", *args, "--database-url", url]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def _rows(repo: SqlRepository, zid: str) -> list[tuple[int, bool, bool]]:
    with repo.engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT version, current, retired FROM zone_versions WHERE zone_id = :z "
                "ORDER BY version"
            ),
            {"z": zid},
        )
        return [(int(r.version), bool(r.current), bool(r.retired)) for r in rows]


def _count_rows(repo: SqlRepository) -> int:
    with repo.engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM zone_versions")).scalar() or 0)


def _changed_layer(folder: Path) -> Path:
    """The OFSPLF layer with platform MOVED 0.01 degrees east and GONE removed."""
    obj = json.loads(OFSPLF.read_text(encoding="utf-8"))
    feats = [f for f in obj["features"] if f["properties"]["FIDN"] != GONE]
    for f in feats:
        if f["properties"]["FIDN"] in (MOVED, EDITED):
            f["geometry"]["coordinates"][0] += 0.01
    obj["features"] = feats
    folder.mkdir()
    out = folder / OFSPLF.name
    out.write_text(json.dumps(obj), encoding="utf-8")
    return out


def test_a_repeated_import_replaces_its_source_keeps_history_and_hand_edits(
    repo: SqlRepository, store_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first = _import(capsys, store_url, str(OFSPLF))
    assert first["counts"]["added"] == 46 and repo.count_zones() == 46
    rows = _count_rows(repo)
    again = _import(capsys, store_url, str(OFSPLF))
    assert again["counts"] == {
        "added": 0,
        "updated": 0,
        "unchanged": 46,
        "retired": 0,
        "kept_edited": 0,
        "kept_foreign": 0,
    }
    assert _count_rows(repo) == rows  # not one new version

    edited = f"platform-BR323000-{EDITED}"
    by_hand = repo.get_zone(edited)
    assert by_hand is not None
    repo.put_zones([dataclasses.replace(by_hand, name="P-61 (checked on site)")])
    changed = _changed_layer(tmp_path / "v2")
    third = _import(capsys, store_url, str(changed))
    assert third["updated"] == [f"platform-BR323000-{MOVED}"]
    assert third["retired"] == [f"platform-BR323000-{GONE}"]
    assert third["kept_edited"] == [edited]
    assert third["counts"]["unchanged"] == 43
    assert _rows(repo, f"platform-BR323000-{MOVED}") == [(1, False, False), (2, True, False)]
    assert _rows(repo, f"platform-BR323000-{GONE}") == [(1, False, True)]
    moved = repo.get_zone(f"platform-BR323000-{MOVED}")
    assert moved is not None and moved.version == 2
    old = repo.get_zone(f"platform-BR323000-{MOVED}", version=1)
    assert old is not None and old.geometry.x == pytest.approx(moved.geometry.x - 0.01, abs=1e-12)
    kept = repo.get_zone(edited)
    assert kept is not None and kept.name == "P-61 (checked on site)"
    assert kept.geometry.equals(by_hand.geometry)  # the source's move was not applied
    assert repo.count_zones() == 45

    forced = _import(capsys, store_url, str(changed), "--force")
    assert forced["updated"] == [edited] and forced["kept_edited"] == []
    replaced = repo.get_zone(edited)
    assert replaced is not None and replaced.name == "P-61"
    assert replaced.geometry.x == pytest.approx(by_hand.geometry.x + 0.01, abs=1e-12)


def test_a_zone_from_elsewhere_is_not_taken_over_and_a_stale_plan_is_refused(
    repo: SqlRepository, store_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    zid = f"platform-BR323000-{MOVED}"
    own = Zone(id=zid, kind=ZoneKind.PLATFORM, geometry=_point(-40.0, -22.0), name="mine")
    repo.put_zones([own])
    register = tmp_path / "platforms.csv"
    register.write_text("kind,name,lat,lon,date\nplatform,P-66,-22.37,-40.05,2026-12-01\n")
    assert _import(capsys, store_url, str(register))["added"] == ["platform-p-66"]
    report = _import(capsys, store_url, str(OFSPLF))
    assert report["kept_foreign"] == [zid] and report["counts"]["added"] == 45
    # another import's zone is not this import's to retire
    assert report["retired"] == [] and report["kept_edited"] == []
    assert repo.get_zone("platform-p-66") is not None
    kept = repo.get_zone(zid)
    assert kept is not None and kept.name == "mine" and kept.version == 1

    # a plan made before an edit is refused whole: nothing of it is stored
    other = repo.get_zone(f"platform-BR323000-{GONE}")
    assert other is not None
    repo.put_zones([dataclasses.replace(other, name="edited meanwhile")])
    before = _count_rows(repo)
    with pytest.raises(ConflictError, match=f"platform-BR323000-{GONE}"):
        repo.replace_zones([], [f"platform-BR323000-{GONE}"], {other.id: other.version})
    assert _count_rows(repo) == before
    assert repo.get_zone(other.id) is not None


def _point(lon: float, lat: float) -> Any:
    from shapely.geometry import Point

    return Point(lon, lat)
