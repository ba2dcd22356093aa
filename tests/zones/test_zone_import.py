"""`vigia zones import` read side (issue 40): the chart cells the bundled catalogue was
built from give back the bundled zones; a real NOAA S-57 cell is read with its updates
applied (GDAL's own ogrinfo, an independent build, is the oracle); registers."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import shapely
from pyproj import CRS, Transformer
from shapely import wkt

from tests.conftest import FIXTURES, SHARED
from vigia.zones.catalogue import load_zones, zone_to_feature
from vigia.zones.enc_import import import_cell
from vigia.zones.import_types import ZoneImportError
from vigia.zones.importer import import_sources, parse_edition
from vigia.zones.model import ZoneKind

ROOT = Path(__file__).resolve().parents[2]
ENC = SHARED / "data" / "enc"
CELL_ZIP = FIXTURES / "enc" / "US4MD81M.zip"
#: the two cells' editions and dates as data/README.md and /work/shared/data/README.md
#: state them (an extract carries no DSID record)
EDITIONS = ["BR323000=3:2016-03-25", "BR323100=1:2011-07-15"]
#: properties the importer adds beyond what scripts/build_zones.py wrote
ADDED = {"provenance", "import_digest", "source_date", "source"}


def _bundled() -> dict[str, dict[str, object]]:
    return {z.id: zone_to_feature(z) for z in load_zones([ROOT / "data" / "geojson"])}


def _extracts() -> list[Path]:
    return sorted(ENC.glob("BR323000_*.geojson")) + sorted(ENC.glob("BR323100_*.geojson"))


def test_the_two_public_cells_reproduce_the_bundled_zones_made_from_them() -> None:
    editions = {i.cell: i for i in map(parse_edition, EDITIONS)}
    result = import_sources(_extracts(), editions=editions)
    bundled = _bundled()
    from_cells = {
        zid: f
        for zid, f in bundled.items()
        if re.fullmatch(r"(platform|anchorage|special)-BR323[01]00-\d+", zid)
    }
    made = {z.id: zone_to_feature(z) for z in result.zones}
    # every bundled platform, anchorage and practice area of the two cells, and nothing
    # else: the restricted areas were left out of the bundle (data/README.md) and are
    # left out here, each with its reason
    assert sorted(made) == sorted(from_cells)
    assert len(made) == 46 + 1 + 6
    for zid, feature in made.items():
        expected = from_cells[zid]
        props = {k: v for k, v in feature["properties"].items() if k not in ADDED}
        assert props == {k: v for k, v in expected["properties"].items() if k != "source"}, zid
        assert feature["geometry"] == expected["geometry"], zid
        prov = feature["properties"]["provenance"]
        cell, cls, fidn = prov["cell"], prov["object_class"], prov["fidn"]
        assert feature["properties"]["source"] == f"DHN ENC {cell} {cls} FIDN {fidn}"
        # the bundle's source names the same chart feature
        assert f"{cell} {cls}" in str(expected["properties"]["source"])
        assert str(fidn) in str(expected["properties"]["source"])
    skipped = {s.where: s.reason for s in result.skipped}
    assert sorted(skipped) == sorted(
        [
            "BR323000 RESARE FIDN 151290",
            "BR323000 RESARE FIDN 1240422369",
            "BR323100 RESARE FIDN 1178953",
            "BR323100 RESARE FIDN 1178219",
            "BR323100 RESARE FIDN 1178220",
            "BR323100 ACHARE FIDN 1177705",
        ]
    )
    assert "entry prohibited" in skipped["BR323100 RESARE FIDN 1178953"]
    assert "Point" in skipped["BR323100 ACHARE FIDN 1177705"]
    practice = made["special-BR323000-1313089120"]["properties"]
    assert practice["source_date"] == practice["valid_from"][:10] == "2016-03-25"


def test_beach_rows_cut_the_bundled_baselines_from_the_chart_coastline(tmp_path: Path) -> None:
    # the cuts of data/README.md's beach table, written as a register
    register = tmp_path / "beaches.csv"
    register.write_text(
        "kind,name,id,coastline,date\n"
        "bather_beach,Praia de Copacabana,beach-copacabana,BR323100:1178845:0-11,2026-12-04\n"
        "bather_beach,Praias de Ipanema e Leblon,beach-ipanema-leblon,BR323100:1178845:31-41,"
        "2026-12-04\n"
        "bather_beach,Praia Vermelha (Urca),beach-praia-vermelha,BR323100:1178843:105-109,"
        "2026-12-04\n"
        "bather_beach,Praia de Icaraí (Niterói),beach-icarai,BR323100:1178207:85-90,2026-12-04\n",
        encoding="utf-8",
    )
    result = import_sources([register, ENC / "BR323100_COALNE.geojson"])
    bundled = _bundled()
    assert len(result.zones) == 4
    for z in result.zones:
        assert zone_to_feature(z)["geometry"] == bundled[z.id]["geometry"], z.id
        assert z.name == bundled[z.id]["properties"]["name"]
        assert z.properties["provenance"] == {
            "scope": "register:beaches.csv",
            "format": "register",
            "register": "beaches.csv",
            "row": z.properties["provenance"]["row"],
            "date": "2026-12-04",
        }
    assert [z.properties["provenance"]["row"] for z in result.zones] == [2, 3, 4, 5]
    # a cut ends at the line's last vertex at most
    n = len(
        next(
            f
            for f in json.loads((ENC / "BR323100_COALNE.geojson").read_text())["features"]
            if f["properties"]["FIDN"] == 1178843
        )["geometry"]["coordinates"]
    )
    for last, ok in ((n - 1, True), (n, False)):
        register.write_text(
            f"kind,name,coastline,date\nbather_beach,B,BR323100:1178843:100-{last},2026-12-04\n"
        )
        if ok:
            assert len(import_sources([register, ENC / "BR323100_COALNE.geojson"]).zones) == 1
        else:
            with pytest.raises(ZoneImportError, match="row 2"):
                import_sources([register, ENC / "BR323100_COALNE.geojson"])


def _ogr(*args: str) -> str:
    out = subprocess.run(
        ["/usr/bin/ogrinfo", "-ro", *args], check=True, capture_output=True, text=True
    )
    return out.stdout


def test_a_real_s57_cell_is_read_with_its_updates_applied() -> None:
    result, coast = import_cell(CELL_ZIP)
    cell = f"/vsizip/{CELL_ZIP}/US4MD81M.000"
    # the oracle: the system's GDAL (another build than pyogrio's) on the same cell
    dsid = _ogr("-oo", "UPDATES=APPLY", cell, "DSID")
    assert "DSID_UPDN (String) = 3" in dsid and "DSID_ISDT (String) = 20250923" in dsid

    def count(layer: str) -> int:
        m = re.search(r"Feature Count: (\d+)", _ogr("-so", "-oo", "UPDATES=APPLY", cell, layer))
        assert m is not None
        return int(m.group(1))

    kinds = [z.kind for z in result.zones]
    assert kinds.count(ZoneKind.PLATFORM) == count("OFSPLF")
    assert kinds.count(ZoneKind.ACCESS_CHANNEL) == count("FAIRWY") + count("DRGARE")
    assert kinds.count(ZoneKind.SPECIAL_AREA) == count("MIPARE")
    assert len(result.skipped) == count("RESARE")  # none of its restricted areas closes water
    assert len(coast) == count("COALNE")
    # Fishing Creek Channel (DRGARE 32647464) was reshaped by an update: the applied ring
    # is the one GDAL gives with UPDATES=APPLY, not the base cell's
    zone = next(z for z in result.zones if z.id == "channel-US4MD81M-32647464")

    def ring(updates: str) -> shapely.Geometry:
        text = _ogr("-oo", f"UPDATES={updates}", cell, "DRGARE", "-where", "FIDN=32647464")
        m = re.search(r"POLYGON \(\(.*\)\)", text)
        assert m is not None
        return wkt.loads(m.group(0))

    assert shapely.equals_exact(zone.geometry, ring("APPLY"), tolerance=1e-7)
    assert not shapely.equals_exact(zone.geometry, ring("IGNORE"), tolerance=1e-7)
    prov = zone.properties["provenance"]
    assert (prov["edition"], prov["update"], prov["issue_date"]) == ("31", "3", "2025-09-23")
    assert zone.source == "NOAA ENC US4MD81M DRGARE FIDN 32647464"
    assert zone.name == "Fishing Creek Channel" and zone.anchoring_prohibited
    # S-57 FIDN is unsigned 32-bit; GDAL's field is signed: -713634754 is 2**32 - 713634754
    assert "US4MD81M RESARE FIDN 3581332542" in {s.where for s in result.skipped}


def test_register_rows_become_zones_or_say_why_not(tmp_path: Path) -> None:
    reg = tmp_path / "installations.csv"
    reg.write_text(
        "kind,name,lat,lon,radius_m,operator,status,source,confidence\n"
        "platform,P-99,-22.5,-40.1,,Petrobras,producing,ANP SIGEP,high\n"
        "platform,P-07,-22.4,-40.2,,Petrobras,removed,ANP SIGEP,high\n"
        "port_facility,Porto de Santos,-23.982222,-46.2925,,,,WPI 15570,medium\n"
        "port_facility,Porto do Rio,-22.872667,-43.2025,500,,,Decreto 4.554/2002,high\n"
        "military,Ilha Fiscal,-22.896981,-43.166447,,,,Wikipedia,medium\n",
        encoding="utf-8",
    )
    result = import_sources([reg], register_date="2026-12-01")
    by_id = {z.id: z for z in result.zones}
    assert sorted(by_id) == ["military-ilha-fiscal", "platform-p-99", "port-porto-do-rio"]
    assert by_id["platform-p-99"].properties["operator"] == "Petrobras"
    assert by_id["platform-p-99"].properties["source_date"] == "2026-12-01"
    assert by_id["platform-p-99"].source == "ANP SIGEP (register installations.csv row 2)"
    assert {s.where for s in result.skipped} == {
        "installations.csv row 3",
        "installations.csv row 4",
    }
    # the port given as a point and 500 m: every vertex 500 m from it, measured in an
    # azimuthal equidistant projection centred there (exact for distances from the centre)
    aeqd = CRS.from_proj4("+proj=aeqd +lat_0=-22.872667 +lon_0=-43.2025 +ellps=WGS84 +units=m")
    to_m = Transformer.from_crs("EPSG:4326", aeqd, always_xy=True)
    coords = shapely.get_coordinates(by_id["port-porto-do-rio"].geometry)
    x, y = to_m.transform(coords[:, 0], coords[:, 1])
    assert abs((x**2 + y**2) ** 0.5 - 500.0).max() < 1e-6


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind,name,lat,lon,colour\n", "unknown columns \\['colour'\\]"),
        ("name,lat,lon\n", "missing columns \\['kind'\\]"),
        ("kind,name,lat,lon,date\nplatform,X,-22,-40,2026-13-01\n", "row 2: date"),
        ("kind,name,lat,lon,date\nplatform,X,-95,-40,2026-12-01\n", "row 2: .*out of range"),
        ("kind,name,lat,lon\nplatform,X,-22,-40\n", "row 2: no date"),
        ("kind,name,lat,lon,date\nbeach,X,-22,-40,2026-12-01\n", "row 2: unknown kind"),
        ("kind,name,wkt,lat,lon,date\nplatform,X,POINT (-40 -22),-22,-40,2026-12-01\n", "one of"),
        (
            "kind,name,lat,lon,date\nplatform,X,-22,-40,2026-12-01\nplatform,X,-22,-41,2026-12-01\n",
            "row 3: duplicate id platform-x",
        ),
        ("kind,name,coastline,date\nbather_beach,X,BR323100:1:0-3,2026-12-01\n", "no such COALNE"),
    ],
)
def test_a_bad_register_is_refused_whole_naming_the_row(
    tmp_path: Path, text: str, message: str
) -> None:
    reg = tmp_path / "bad.csv"
    reg.write_text(text, encoding="utf-8")
    with pytest.raises(ZoneImportError, match=message):
        import_sources([reg])


def _hostile(tmp: Path, name: str) -> Path:
    path = tmp / name
    if name == "junk.000":
        path.write_bytes(bytes(range(256)) * 8)
    elif name == "disguised.000":  # GeoJSON under a cell's name: GDAL would read it
        path.write_bytes((ENC / "BR323000_ACHARE.geojson").read_bytes())
    elif name == "cut.zip":
        path.write_bytes(CELL_ZIP.read_bytes()[:100_000])
    elif name == "nocell.zip":
        import zipfile

        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("README.TXT", "no cell here")
    elif name == "BR323000_ACHARE.geojson":
        path.write_text('{"type":"FeatureCollection","features":[{"type":"Feature",'
                        '"properties":{},"geometry":null}]}')  # fmt: skip
    else:
        path.write_text("x")
    return path


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("junk.000", "GDAL cannot read it as S-57"),
        ("disguised.000", "GDAL reads it as GeoJSON, not as S-57"),
        ("cut.zip", "not a readable zip"),
        ("nocell.zip", "holds no S-57 base cell"),
        ("BR323000_ACHARE.geojson", "feature #0 has no FIDN"),
        ("notes.txt", "not a source"),
    ],
)
def test_what_is_not_a_chart_is_refused_with_its_reason(
    tmp_path: Path, name: str, message: str
) -> None:
    with pytest.raises(ZoneImportError, match=message):
        import_sources([_hostile(tmp_path, name)])


def test_the_command_writes_a_zone_file_the_catalogue_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vigia.service.cli import main

    outs = [tmp_path / "a.geojson", tmp_path / "b.geojson"]
    for out in outs:
        args = ["zones", "import", *map(str, _extracts()), "--out", str(out)]
        assert main([*args, *(f"--edition={e}" for e in EDITIONS)]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[0])
    assert report["zones"] == 53 and len(report["skipped"]) == 6 and "counts" not in report
    assert outs[0].read_bytes() == outs[1].read_bytes()  # the same sources, the same bytes
    loaded = {z.id: zone_to_feature(z) for z in load_zones([outs[0]])}
    bundled = _bundled()
    assert len(loaded) == 53
    for zid, feature in loaded.items():
        assert feature["geometry"] == bundled[zid]["geometry"]
