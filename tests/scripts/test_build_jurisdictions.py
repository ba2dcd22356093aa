"""scripts/build_jurisdictions.py on a synthetic IBGE mesh (issue 32): the 44 municipalities
of the Capitania dos Portos de Macaé, the Delegacia em Cabo Frio and the Agência em São
João da Barra (their complete NPCP lists, bundled) as 0.1-degree squares along a straight
coast at 23°S, west to east Cabo Frio's (42.6°W to 42.0°W), Macaé's (to 41.5°W) and São
João da Barra's (to 41.2°W); the rest of the land around them, to 44°W and 39.5°W, is
land outside the mesh, like a neighbour's. Run as a subprocess, as a deployment runs it;
the output goes through Vigia's own zone loader and routing."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from pyogrio.raw import write  # type: ignore[import-untyped]
from pyproj import Geod, Transformer
from shapely.geometry.base import BaseGeometry

from scripts.build_jurisdictions import read_mesh
from scripts.jurisdiction_sea import reproject
from tests.api.test_procedure import make_lead
from vigia.alerts.procedure.calendars import STATES
from vigia.alerts.procedure.register import office_named
from vigia.alerts.procedure.routing import routed, routing_for, zone_at
from vigia.zones.catalogue import load_zones
from vigia.zones.model import Zone

ROOT = Path(__file__).resolve().parents[2]
LISTS = ROOT / "alerts" / "procedure" / "npcp_municipalities.json"
CF = "Delegacia da Capitania dos Portos em Cabo Frio"
MACAE = "Capitania dos Portos de Macaé"
SJB = "Agência da Capitania dos Portos em São João da Barra"
LAGUNA = "Delegacia da Capitania dos Portos em Laguna"  # a partial list
#: each office's coastal municipalities, west to east, then the rest behind them
COASTAL = {
    CF: ["ARARUAMA", "IGUABA GRANDE", "SÃO PEDRO DA ALDEIA", "ARRAIAL DO CABO", "CABO FRIO",
         "ARMAÇÃO DE BÚZIOS"],
    MACAE: ["CASIMIRO DE ABREU", "RIO DAS OSTRAS", "MACAÉ", "CARAPEBUS", "QUISSAMÃ"],
    SJB: ["CAMPOS DOS GOYTACAZES", "SÃO JOÃO DA BARRA", "SÃO FRANCISCO DE ITABAPOANA"],
}  # fmt: skip
SIDE = 0.1
COAST_LAT = -23.0
WEST = -42.6
LAND = (-44.0, COAST_LAT, -39.5, -20.0)
GEOD = Geod(ellps="WGS84")


def _squares() -> dict[str, list[tuple[str, shapely.Polygon]]]:
    """Each office's municipalities as the mesh spells them, with their squares: a row
    of coastal ones, the others stacked behind them."""
    lists = json.loads(LISTS.read_text(encoding="utf-8"))["offices"]
    out: dict[str, list[tuple[str, shapely.Polygon]]] = {}
    x = WEST
    for office, coast in COASTAL.items():
        rows = lists[office]["municipalities"]
        order = coast + [r["name"] for r in rows if r["name"] not in coast]
        spelled = {r["name"]: r.get("ibge_name") or r["name"].title() for r in rows}
        spelled["QUISSAMÃ"] = "Quissama"  # no tilde: matching ignores accents
        out[office] = []
        for k, name in enumerate(order):
            col, row = k % len(coast), k // len(coast)
            x0, y0 = round(x + col * SIDE, 6), round(COAST_LAT + row * SIDE, 6)
            box = shapely.box(x0, y0, round(x0 + SIDE, 6), round(y0 + SIDE, 6))
            out[office].append((spelled[name], box))
        x = round(x + len(coast) * SIDE, 6)
    return out


def _write_mesh(path: Path, squares: dict[str, list[tuple[str, shapely.Polygon]]]) -> None:
    feats = [
        {"type": "Feature", "properties": {"NM_MUN": name, "SIGLA_UF": "RJ"},
         "geometry": shapely.geometry.mapping(box)}
        for office in squares for name, box in squares[office]
    ]  # fmt: skip
    path.write_text(json.dumps({"type": "FeatureCollection", "features": feats}), "utf-8")


def _run(tmp: Path, mesh: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    land = tmp / "land.geojson"
    land.write_text(json.dumps(shapely.geometry.mapping(shapely.box(*LAND))), "utf-8")
    offices = [a for o in (CF, MACAE, SJB, LAGUNA) for a in ("--office", o)]
    out = str(tmp / "out.geojson")
    command = [sys.executable, "-m", "scripts.build_jurisdictions", "--mesh", str(mesh),
               "--land", str(land), "--out", out, *offices, *extra]  # fmt: skip
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_bundled_lists_name_the_registers_offices() -> None:
    """19 offices with named municipalities, 10 lists complete (docs/procedure-terms.md
    names them), each keyed as the register names the office and citing its source."""
    lists = json.loads(LISTS.read_text(encoding="utf-8"))["offices"]
    assert len(lists) == 19
    assert sum(row["status"] == "complete" for row in lists.values()) == 10
    for office, row in lists.items():
        assert office_named(office) is not None, office
        assert row["status"] in ("complete", "partial") and row["municipalities"]
        assert row["source"].startswith(("https://", "http://")) and row["quote"]
        assert all(m["state"] in STATES and m["name"] for m in row["municipalities"])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("jurisdictions")
    squares = _squares()
    _write_mesh(tmp / "mesh.geojson", squares)
    run = _run(tmp, tmp / "mesh.geojson")
    assert run.returncode == 0, run.stderr
    zones = load_zones([tmp / "out.geojson"])  # Vigia's loader: the contract, validated
    return {
        "squares": squares,
        "report": json.loads(run.stdout),
        "file": json.loads((tmp / "out.geojson").read_text("utf-8")),
        "zones": zones,
        "by": {z.authority: z for z in zones},
    }


def test_every_listed_municipality_matched_and_partial_lists_skipped(built: dict[str, Any]) -> None:
    report = built["report"]
    assert report["unmatched"] == []
    assert [b["office"] for b in report["built"]] == [CF, MACAE, SJB]
    assert [b["municipalities"] for b in report["built"]] == [14, 17, 13]
    assert [s["office"] for s in report["skipped_partial"]] == [LAGUNA]
    assert built["file"]["report"] == report
    for office, munis in built["squares"].items():
        listed = built["by"][office].properties["municipalities"]
        assert sorted(listed) == sorted(f"{name}/RJ" for name, _ in munis)


def test_zones_carry_the_contract_and_their_sources(built: dict[str, Any]) -> None:
    zone: Zone = built["by"][MACAE]
    assert zone.id == "npcp-capitania-dos-portos-de-macae" and zone.kind.value == "jurisdiction"
    assert zone.name == zone.authority == MACAE
    p = zone.properties
    assert (p["seat_state"], p["seat_municipality"]) == ("RJ", "Macaé")
    assert p["npcp_source"].endswith("NPCP-CPM") and p["npcp_source_date"] is None
    assert p["built_from"] == "IBGE municipal mesh mesh.geojson"
    assert "Lagoa Feia" in p["waters"] and "200 NM" in p["sea"]
    assert "12 NM" in built["by"][SJB].properties["sea"]


def test_each_office_holds_exactly_its_squares(built: dict[str, Any]) -> None:
    squares = built["squares"]
    land = shapely.union_all([box for munis in squares.values() for _, box in munis])
    for office, munis in squares.items():
        zone = built["by"][office].geometry
        own = shapely.union_all([box for _, box in munis])
        # by hand: n squares of 0.1 x 0.1 degree, 0.01 square degree each
        assert shapely.intersection(zone, land).area == pytest.approx(0.01 * len(munis), abs=1e-9)
        assert shapely.difference(own, zone).area == pytest.approx(0.0, abs=1e-9)
        # on the ellipsoid, by hand on a sphere of the same area (radius 6371.007 km), a
        # square's area is R² Δλ (sin φ2 - sin φ1); WGS84 differs by under 0.5% here
        by_hand = sum(_sphere_km2(box) for _, box in munis)
        done = next(b for b in built["report"]["built"] if b["office"] == office)
        assert done["land_km2"] == pytest.approx(by_hand, rel=0.005)


def _sphere_km2(box: shapely.Polygon) -> float:
    x0, y0, x1, y1 = box.bounds
    dl, s = math.radians(x1 - x0), math.sin(math.radians(y1)) - math.sin(math.radians(y0))
    return 6371.007**2 * dl * abs(s)


def _off(lon: float, nm: float) -> tuple[float, float]:
    """The point ``nm`` nautical miles due south of the coast at ``lon``."""
    x, y, _ = GEOD.fwd(lon, COAST_LAT, 180.0, nm * 1852.0)
    return float(x), float(y)


@pytest.mark.parametrize(
    ("lon", "nm", "office"),
    [
        (-42.3, 20.0, CF),
        (-42.3, 195.0, CF),  # the EEZ's 200 NM, from the mesh's coast
        (-42.3, 205.0, None),
        (-41.75, 20.0, MACAE),
        (-41.35, 5.0, SJB),
        # an Agência's sea ends at the territorial sea's 12 NM; its Capitania's goes on
        (-41.35, 11.0, SJB),
        (-41.35, 13.0, MACAE),
        (-41.35, 150.0, MACAE),
        (-43.5, 20.0, None),  # off the coast outside the mesh (a neighbour's): nobody's
        (-40.0, 20.0, None),
    ],
)
def test_the_sea_goes_to_the_nearer_coast(
    built: dict[str, Any], lon: float, nm: float, office: str | None
) -> None:
    zone = zone_at(*_off(lon, nm), built["zones"])
    assert (zone.authority if zone else None) == office


def test_a_point_equidistant_from_two_offices_is_routed_one_way(built: dict[str, Any]) -> None:
    """The line between Cabo Frio's sea and Macaé's is one line in both zones (the same
    vertices), so a point on it lies in both, and the routing's overlap rule gives it to
    the smaller zone, Cabo Frio's (6 coastal squares' width of sea against 5 and the
    Agência's beyond 12 NM), whichever order the zones come in."""
    cf, macae = built["by"][CF], built["by"][MACAE]
    shared = {tuple(c) for c in shapely.get_coordinates(cf.geometry)} & {
        tuple(c) for c in shapely.get_coordinates(macae.geometry)
    }
    offshore = sorted((x, y) for x, y in shared if -24.5 < y < -23.5)
    assert len(offshore) > 10
    lon, lat = offshore[len(offshore) // 2]
    # equidistant: from both coasts' nearest point, their common end at 42°W, to within
    # the coast's sampling (500 m); the line leans 20 m in 370 km in the build's frame
    assert lon == pytest.approx(-42.0, abs=1e-4)
    to_cf = GEOD.inv(lon, lat, min(lon, -42.0), COAST_LAT)[2]
    to_macae = GEOD.inv(lon, lat, max(lon, -42.0), COAST_LAT)[2]
    assert abs(to_cf - to_macae) < 250.0
    assert cf.geometry.covers(shapely.Point(lon, lat))
    assert macae.geometry.covers(shapely.Point(lon, lat))
    assert cf.geometry.area < macae.geometry.area
    for order in (built["zones"], built["zones"][::-1]):
        assert routing_for("SEC-PLATFORM", lon, lat, None, order)[0] == CF


def test_the_zone_wins_over_the_nearest_seat(built: dict[str, Any]) -> None:
    """5 NM off the synthetic São João da Barra coast the register's nearest seat is
    Cabo Frio's (39 NM off; the Agência's own seat, 88 NM off, reaches 20 NM): loaded, the
    zone routes the lead to the Agência, and says its sea is Vigia's drawing (approximate,
    with the basis), not a published limit."""
    lon, lat = _off(-41.35, 5.0)
    lead = replace(make_lead("L-NPCP"), authority=None, closest_lon=lon, closest_lat=lat)
    before = routed(lead, None, [])
    assert before.authority == CF and before.details["routing"]["approximate"] is True
    after = routed(lead, None, built["zones"])
    assert after.authority == SJB
    how = after.details["routing"]
    assert (how["authority"], how["zone_id"]) == (SJB, built["by"][SJB].id)
    assert how["approximate"] is True and "not an official limit" in how["basis"]
    # a zone with no drawn sea (an inland office, or one loaded by hand) is exact
    plain = [replace(z, properties={**z.properties, "sea": None}) for z in built["zones"]]
    assert routed(lead, None, plain).details["routing"]["approximate"] is False


def test_unmatched_names_stop_the_build_naming_each(tmp_path: Path) -> None:
    squares = _squares()
    # Macaé moved to São Paulo (a name matches within its state only); Búzios spelled as
    # the NPCP writes it, not as IBGE does
    squares[MACAE] = [(n, b) for n, b in squares[MACAE] if n != "Macaé"]
    squares[CF] = [("Armação de Búzios" if n == "Armação dos Búzios" else n, b)
                   for n, b in squares[CF]]  # fmt: skip
    _write_mesh(tmp_path / "mesh.geojson", squares)
    mesh = json.loads((tmp_path / "mesh.geojson").read_text("utf-8"))
    decoy = shapely.geometry.mapping(shapely.box(-46.0, -24.0, -45.9, -23.9))
    mesh["features"].append({"type": "Feature", "geometry": decoy,
                             "properties": {"NM_MUN": "Macaé", "SIGLA_UF": "SP"}})  # fmt: skip
    (tmp_path / "mesh.geojson").write_text(json.dumps(mesh), "utf-8")
    run = _run(tmp_path, tmp_path / "mesh.geojson")
    assert run.returncode == 1
    assert not (tmp_path / "out.geojson").exists()
    unmatched = [line for line in run.stderr.splitlines() if line.startswith("unmatched: ")]
    assert len(unmatched) == 2, run.stderr
    assert f"{MACAE}: 'MACAÉ' (RJ) is not in the mesh" in unmatched[1]
    assert f"{CF}: 'ARMAÇÃO DE BÚZIOS' (RJ) is not in the mesh" in unmatched[0]
    assert "ARMACAODEBUZIOS" in unmatched[0]  # the state's nearest names, to help

    run = _run(tmp_path, tmp_path / "mesh.geojson", "--allow-unmatched")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert len(report["unmatched"]) == 2
    assert [b["municipalities"] for b in report["built"]] == [13, 16, 13]


@pytest.mark.parametrize(("suffix", "crs"), [(".gpkg", "EPSG:4674"), (".shp", "EPSG:5880")])
def test_a_shapefile_or_geopackage_mesh_reads_like_geojson(
    tmp_path: Path, suffix: str, crs: str
) -> None:
    """An older mesh's fields (NM_MUNICIP and CD_GEOCMU, no state abbreviation: the state
    is the code's first two digits), in SIRGAS 2000 degrees or SIRGAS 2000 / Brazil
    Polyconic metres: read back in lon/lat, the same squares."""
    munis = [m for office in _squares().values() for m in office]
    geoms: list[BaseGeometry] = [box for _, box in munis]
    if crs != "EPSG:4674":
        geoms = [reproject(g, Transformer.from_crs(4674, crs, always_xy=True)) for g in geoms]
    names = np.array([name for name, _ in munis], dtype=object)
    codes = np.array([f"33{i:05d}" for i in range(len(munis))], dtype=object)
    path = tmp_path / f"mesh{suffix}"
    write(path, shapely.to_wkb(geoms), [codes, names], ["CD_GEOCMU", "NM_MUNICIP"],
          geometry_type="Polygon", crs=crs, encoding="UTF-8")  # fmt: skip
    read = read_mesh(path, None, None)
    assert [(m.name, m.state) for m in read] == [(name, "RJ") for name, _ in munis]
    for m, (_, box) in zip(read, munis, strict=True):
        assert shapely.symmetric_difference(m.geometry, box).area < 1e-12
