"""The national catalogue (issue 40): what scripts/build_national_catalogue.py writes from
data/registers/, checked against the registers' own rows and hand conversions."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
import shapely
from pyproj import Geod
from shapely.geometry import shape

from scripts.build_national_catalogue import THEME_FILES, build, main
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.model import ZoneKind

ROOT = Path(__file__).resolve().parents[2]
REGISTERS = ROOT / "data" / "registers"
GEOD = Geod(ellps="WGS84")
CONFIDENCE = {"high", "medium", "low"}


def _features(name: str) -> list[dict[str, Any]]:
    feats: list[dict[str, Any]] = json.loads(
        (bundled_zones_dir() / name).read_text(encoding="utf-8")
    )["features"]
    return feats


def _metres(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(GEOD.inv(a[0], a[1], b[0], b[1])[2])


def test_rerun_is_byte_identical_to_the_committed_files(tmp_path: Path) -> None:
    """The script writes the committed bytes, and the same bytes again on a second run."""
    assert main(["--out", str(tmp_path)]) == 0
    first = {n: (tmp_path / n).read_bytes() for n in THEME_FILES}
    assert main(["--out", str(tmp_path)]) == 0
    for name in THEME_FILES:
        assert (tmp_path / name).read_bytes() == first[name], name
        assert first[name] == (bundled_zones_dir() / name).read_bytes(), name


@pytest.mark.parametrize("name", THEME_FILES)
def test_every_feature_says_where_it_came_from_and_how_sure(name: str) -> None:
    feats = _features(name)
    assert feats
    for f in feats:
        p = f["properties"]
        assert p["source"].strip() and "data/registers/" in p["source"], p["id"]
        assert p["source_url"].startswith("https://"), p["id"]
        assert p["source_date"][:2] == "20" and len(p["source_date"]) == 10, p["id"]
        assert p["licence"].strip(), p["id"]
        assert p["confidence"] in CONFIDENCE, p["id"]
        # every register here gives a point; the feature must say so
        assert p["point_only"] is True and "point" in p["geometry_basis"], p["id"]


def test_the_whole_bundle_loads_with_valid_geometry_and_unique_ids() -> None:
    """The loader refuses invalid geometry and duplicate ids across files: it loads all."""
    zones = load_zones([bundled_zones_dir()])
    ids = [z.id for z in zones]
    assert len(ids) == len(set(ids))
    assert all(shapely.is_valid(z.geometry) for z in zones)
    national = {f["properties"]["id"] for n in THEME_FILES for f in _features(n)}
    assert national <= set(ids)


def test_platforms_lie_in_at_least_four_basins_at_the_register_positions() -> None:
    feats = _features("platforms_national.geojson")
    basins = {f["properties"]["basin"] for f in feats}
    assert len(basins) >= 4, basins
    assert {"Potiguar", "Sergipe-Alagoas", "Ceará", "Espírito Santo", "Santos"} <= basins
    by_code = {f["properties"]["installation_code"]: f for f in feats}
    # register rows, read by hand from data/registers/anp_fixed_platforms.csv
    assert by_code["PUB-1"]["geometry"]["coordinates"] == [-36.33809, -4.917083]
    assert by_code["PUB-1"]["properties"]["basin"] == "Potiguar"
    assert by_code["PMXL-1"]["geometry"]["coordinates"] == [-44.3828136, -24.3531639]
    assert by_code["PMXL-1"]["properties"]["basin"] == "Santos"
    assert by_code["PCM-1"]["properties"]["basin"] == "Sergipe-Alagoas"
    assert by_code["PAT01"]["properties"]["basin"] == "Ceará"
    assert by_code["PPER"]["properties"]["basin"] == "Espírito Santo"
    assert all(f["properties"]["confidence"] == "medium" for f in feats)


def test_nothing_already_bundled_is_repeated() -> None:
    """Register platforms that the charts already give (Campos) are left out, and the
    register's own double entries become one zone with the other code as an alias."""
    national = _features("platforms_national.geojson")
    codes = {f["properties"]["installation_code"] for f in national}
    # charted in platforms_campos.geojson (names there: PCP-1, PEREGRINO A, POLVO A, ...)
    assert not codes & {"PCP-I", "PEREGRINO A", "POLVO A", "PNA-1", "PPG-1A", "PPG-1"}
    charted = [tuple(f["geometry"]["coordinates"]) for f in _features("platforms_campos.geojson")]
    for f in national:
        here = tuple(f["geometry"]["coordinates"])
        assert min(_metres(here, c) for c in charted) > 300, f["properties"]["id"]
    pescada = next(f for f in national if f["properties"]["installation_code"] == "PPE1B")
    assert pescada["properties"]["aliases"] == ["PPE-1A (PESCADA 1A, row 69)"]
    with (REGISTERS / "anp_fixed_platforms.csv").open(encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh, delimiter=";"))[1:]
    aliases = sum(len(f["properties"].get("aliases", [])) for f in national)
    skipped_as_charted = 18  # counted by hand: the Campos rows with a chart twin
    assert len(national) + aliases + skipped_as_charted == len(rows)


def test_ports_run_from_the_north_to_the_south_as_port_facility_circles() -> None:
    feats = _features("ports_national.geojson")
    ports = {f["properties"]["port"] for f in feats}
    main_ports = {
        "Belem", "Vila Do Conde", "Itaqui", "Porto De Suape", "Port De Salvador", "Aratu",
        "Vitoria", "Santos", "Paranagua", "Sao Francisco", "Itajai", "Rio Grande",
    }  # fmt: skip
    assert main_ports <= ports, main_ports - ports
    lats = [f["properties"]["reference_point"][1] for f in feats]
    assert max(lats) > -1.0 and min(lats) < -32.0  # Santana (AP) to Rio Grande (RS)
    for f in feats:
        p = f["properties"]
        assert p["kind"] == "port_facility" and p["state"]
        lon, lat = p["reference_point"]
        ring = shape(f["geometry"]).exterior.coords
        radii = [_metres((lon, lat), (x, y)) for x, y in ring]
        assert all(abs(r - 200.0) < 0.1 for r in radii), p["id"]
        assert {70, 80, 52}.issubset(p["allowed"]["ship_types"])
    santos = next(f for f in feats if f["properties"]["port"] == "Santos")
    assert santos["properties"]["reference_point"] == [-46.3, -23.95]  # WPI 12970 row


def test_the_rio_port_point_is_left_out_beside_the_naval_zones() -> None:
    """WPI's Rio de Janeiro point lies 340 m from Ilha Fiscal: it is not bundled."""
    assert "port-wpi-12920" not in {
        f["properties"]["id"] for f in _features("ports_national.geojson")
    }
    fiscal = next(f for f in _features("military_guanabara.geojson")
                  if f["properties"]["id"] == "military-ilha-fiscal")  # fmt: skip
    assert 300 < _metres(tuple(fiscal["geometry"]["coordinates"]), (-43.166667, -22.9)) < 400


def test_military_points_convert_the_published_coordinates() -> None:
    feats = {f["properties"]["id"]: f for f in _features("military_national.geojson")}
    # the printed coordinates (data/registers/military_points.csv) converted by hand
    hand = {
        "military-base-naval-de-aratu": (-38.4887031, -12.8128269),  # 38 29 19.331 W
        "military-base-aerea-de-santos-guaruja": (-46.2997222, -23.9280556),  # 23 55 41 S
        "military-forte-de-sao-joao-batista-do-brum-recife": (-34.8711278, -8.0529278),
        "military-centro-de-lancamento-de-alcantara": (-44.3680556, -2.3175556),  # 3,2"
    }
    assert set(feats) == set(hand)
    for zid, (lon, lat) in hand.items():
        got_lon, got_lat = feats[zid]["geometry"]["coordinates"]
        assert got_lon == pytest.approx(lon, abs=1e-7) and got_lat == pytest.approx(lat, abs=1e-7)
    for zone in load_zones([bundled_zones_dir() / "military_national.geojson"]):
        assert zone.kind is ZoneKind.MILITARY and zone.distance_m is None  # the rule's 200 m


def test_military_zones_stand_in_at_least_five_coastal_states() -> None:
    """The national file names its states; the Guanabara file (no state property) lies
    wholly inside Rio de Janeiro's box (lon -44.9..-40.9, lat -23.4..-20.7)."""
    states = {f["properties"]["state"] for f in _features("military_national.geojson")}
    for f in _features("military_guanabara.geojson"):
        minx, miny, maxx, maxy = shape(f["geometry"]).bounds
        assert minx > -44.9 and maxx < -40.9 and miny > -23.4 and maxy < -20.7
    states.add("RJ")
    assert len(states) >= 5, states


def test_build_reads_only_the_registers_folder(tmp_path: Path) -> None:
    """A registers folder without the platform register fails loudly, writes nothing."""
    (tmp_path / "reg").mkdir()
    with pytest.raises(FileNotFoundError):
        build(tmp_path / "reg", bundled_zones_dir())
