"""Build the national zone files in data/geojson/ from the public registers in data/registers/.

Usage: python -m scripts.build_national_catalogue [--registers data/registers] [--out data/geojson]

Reads three raw extracts (their provenance and licences: data/registers/README.md):
``anp_fixed_platforms.csv`` (fixed offshore production platforms, one position each),
``wpi_brazil.csv`` (the Brazilian rows of NGA's World Port Index, public domain) and
``military_points.csv`` (naval installations with a published position). Writes
``platforms_national.geojson``, ``ports_national.geojson`` and
``military_national.geojson``, byte-identical on every run. Every feature carries its
``source`` (publisher, dataset, row, repository path and commit), ``source_url``,
``source_date``, ``licence`` and a ``confidence``. Every register here gives a point,
never a footprint: each feature says so (``point_only``) and the rule's distance is
counted from that point. Nothing already bundled is repeated: a platform within
:data:`SAME_PLACE_M` of a bundled one (the charted Campos platforms) is left out.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pyproj import Geod

from scripts.build_zones import dump

REPO = Path(__file__).resolve().parents[1]
_GEOD = Geod(ellps="WGS84")

#: Two register positions closer than this are one installation listed twice under two
#: codes (Pescada PPE1B and PPE-1A, 17 m apart; PPE02 and PPE-2, 2 m). The closest two
#: distinct installations kept, Curimã 1 and 2, are 78 m apart.
SAME_PLACE_M = 50.0
#: A bundled (charted) platform within this of a register one is the same installation:
#: every register platform of the Campos charts has its chart twin 20 to 107 m away
#: (Peregrino B), chart positions being generalised at 1:180,000.
BUNDLED_SAME_PLACE_M = 300.0

PLATFORM_SOURCE = {
    "file": "anp_fixed_platforms.csv",
    "publisher": "ANP (Agência Nacional do Petróleo), register of production installations",
    "mirror": "github.com/guguriedel/Interactive-Map-OG20W, plataformas.csv",
    "commit": "bb65151981b4734d4ecfd62de48d973a37ce3b2f",
    "date": "2025-04-06",
    "url": "https://github.com/guguriedel/Interactive-Map-OG20W/blob/"
    "bb65151981b4734d4ecfd62de48d973a37ce3b2f/plataformas.csv",
    "licence": "no licence stated by the mirror; installation positions are public "
    "regulatory records (ANP open data)",
}
WPI_SOURCE = {
    "file": "wpi_brazil.csv",
    "publisher": "NGA (US National Geospatial-Intelligence Agency), World Port Index, Pub. 150",
    "mirror": "github.com/xuwenyihust/World-Port-Index-Analysis, src/data/world_port_index.csv",
    "commit": "351ef4281cf6a5e44e0961dc5689116b20cef8ef",
    "date": "2022-10-03",
    "url": "https://github.com/xuwenyihust/World-Port-Index-Analysis/blob/"
    "351ef4281cf6a5e44e0961dc5689116b20cef8ef/src/data/world_port_index.csv",
    "licence": "public domain (US Government work); mirror repository MIT",
}

#: Basins by latitude band: the register names no basin. The fields it lists fall in
#: clusters hundreds of kilometres apart, one per basin, and each band edge lies in a gap
#: between two clusters, so no platform sits near an edge. (north edge, south edge, basin).
BASIN_BANDS: tuple[tuple[float, float, str], ...] = (
    (-2.0, -4.0, "Ceará"),
    (-4.0, -6.0, "Potiguar"),
    (-10.0, -12.0, "Sergipe-Alagoas"),
    (-13.0, -14.0, "Camamu-Almada"),
    (-18.5, -20.5, "Espírito Santo"),
    (-20.5, -23.6, "Campos"),
    (-23.6, -26.0, "Santos"),
)
BASIN_BASIS = (
    "assigned by latitude band (scripts/build_national_catalogue.py BASIN_BANDS); "
    "the register names no basin"
)

#: The WPI entries taken as port-facility zones, by WPI index number: the organised
#: ports of the coast and their bays, north to south, with their state (UF). Inland
#: river ports (Manaus, Santarém, ...) and oil terminals offshore are left out.
PORTS: dict[int, str] = {
    12485: "AP",
    12490: "PA",
    12491: "PA",
    12585: "MA",
    12650: "CE",
    12690: "RN",
    12710: "PB",
    12730: "PE",
    12740: "PE",
    12750: "AL",
    12760: "SE",
    12772: "BA",
    12770: "BA",
    12810: "BA",
    12850: "ES",
    12855: "ES",
    12910: "RJ",
    12920: "RJ",
    12930: "RJ",
    12940: "RJ",
    12960: "SP",
    12970: "SP",
    12980: "PR",
    13000: "SC",
    13020: "SC",
    13040: "SC",
    13060: "RS",
}
#: WPI entries left out, and why (data/README.md repeats it).
PORTS_LEFT_OUT: dict[int, str] = {
    12920: "Rio de Janeiro: the WPI position (22 54 S, 43 10 W) lies in the Navy's waters "
    "340 m from Ilha Fiscal, between the bundled military zones, not at the port's quays "
    "(Caju, Gamboa); a circle there would mark the naval area as a port. The organised "
    "port's own polygon (Decreto 4.554/2002) is the source to use",
}
#: NORMAM-07 0212 e) closes the "proximidades" of port facilities without a figure. A
#: WPI position is one point for the whole port, to the nearest minute: the zone is the
#: circle of the shortest distance NORMAM-07 sets round any installation (0212 a), 200
#: m) about it, a marker an operator replaces with the port authority's polygon.
PORT_POINT_RADIUS_M = 200.0
#: Vertices of the circle: at 200 m, 64 chords are within 0.25 m of the arc.
CIRCLE_VERTICES = 64
#: Who belongs at a port without a lead (AIS ship types): towing 31-32, dredging 33,
#: pilot 50, SAR 51, tug 52, port tender 53, law enforcement 55, passenger 60-69 (ferries
#: berth there), cargo 70-79 and tankers 80-89. A configuration default, not a chart
#: fact: an operator edits it per zone.
PORT_ALLOWED_TYPES = [31, 32, 33, 50, 51, 52, 53, 55, *range(60, 90)]

COORD_DIGITS = 7


def slug(text: str) -> str:
    """ASCII lower-case id part: 'CAÇÃO 1/2/3' -> 'cacao-1-2-3'."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")


def distance_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Geodesic distance in metres between two (lon, lat) points on WGS84."""
    return float(_GEOD.inv(a[0], a[1], b[0], b[1])[2])


def _point(lon: float, lat: float) -> dict[str, Any]:
    return {"type": "Point", "coordinates": [round(lon, COORD_DIGITS), round(lat, COORD_DIGITS)]}


def circle(lon: float, lat: float, radius_m: float) -> dict[str, Any]:
    """A geodesic circle as a closed GeoJSON Polygon, counter-clockwise (RFC 7946)."""
    azimuths = [360.0 * i / CIRCLE_VERTICES for i in range(CIRCLE_VERTICES)]
    lons, lats, _ = _GEOD.fwd(
        [lon] * len(azimuths), [lat] * len(azimuths), azimuths, [radius_m] * len(azimuths)
    )
    ring = [
        [round(x, COORD_DIGITS), round(y, COORD_DIGITS)] for x, y in zip(lons, lats, strict=True)
    ]
    ring.reverse()  # azimuths turn clockwise; RFC 7946 exterior rings turn counter-clockwise
    ring.append(ring[0])
    return {"type": "Polygon", "coordinates": [ring]}


def dms(text: str) -> float:
    """Decimal degrees of a printed coordinate: 12° 48' 46.177" S, 23° 55′ 41″ S or
    2° 19′ 3,2″ S (ASCII or prime marks, decimal point or comma); S, W and O negative."""
    m = re.fullmatch(r"\s*(\d+)°\s*(\d+)['′]\s*([\d.,]+)[\"″]\s*([NSEWO])\s*", text)
    if m is None:
        raise SystemExit(f"not a DMS coordinate: {text!r}")
    value = int(m[1]) + int(m[2]) / 60 + float(m[3].replace(",", ".")) / 3600
    return -value if m[4] in "SWO" else value


def basin_of(lat: float) -> str:
    """The basin whose band holds this latitude."""
    for north, south, name in BASIN_BANDS:
        if south < lat <= north:
            return name
    raise SystemExit(f"latitude {lat} falls in no basin band")


def _source(meta: dict[str, str], row: str) -> str:
    return (
        f"{meta['publisher']}; {row}; via {meta['mirror']} at commit {meta['commit']} "
        f"({meta['date']}); extract data/registers/{meta['file']}"
    )


def _provenance(meta: dict[str, str], row: str, confidence: str) -> dict[str, Any]:
    return {
        "source": _source(meta, row),
        "source_url": meta["url"],
        "source_date": meta["date"],
        "licence": meta["licence"],
        "confidence": confidence,
        "point_only": True,
    }


def bundled_platforms(geojson_dir: Path, own: Iterable[str]) -> list[tuple[float, float]]:
    """Positions of the platforms already bundled (other files than ours)."""
    out = []
    for path in sorted(geojson_dir.glob("*.geojson")):
        if path.name in own:
            continue
        for feat in json.loads(path.read_text(encoding="utf-8"))["features"]:
            geom = feat["geometry"]
            if feat["properties"].get("kind") == "platform" and geom["type"] == "Point":
                out.append((float(geom["coordinates"][0]), float(geom["coordinates"][1])))
    return out


def platforms(registers: Path, bundled: list[tuple[float, float]]) -> list[dict[str, Any]]:
    """Fixed platforms of the register not already bundled, one per installation."""
    meta = PLATFORM_SOURCE
    with (registers / meta["file"]).open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh, delimiter=";"))
    kept: list[dict[str, Any]] = []
    for row_no, row in enumerate(rows[1:], start=2):
        code, name = row[1].strip(), row[2].strip()
        lat, lon = float(row[3]), float(row[4])
        here = (lon, lat)
        twin = next(
            (
                f
                for f in kept
                if distance_m(here, tuple(f["geometry"]["coordinates"])) < SAME_PLACE_M
            ),
            None,
        )
        if twin is not None:
            twin["properties"]["aliases"].append(f"{code} ({name}, row {row_no})")
            continue
        if any(distance_m(here, b) < BUNDLED_SAME_PLACE_M for b in bundled):
            continue
        props: dict[str, Any] = {
            "id": f"platform-anp-{slug(code)}",
            "kind": "platform",
            "name": name,
            "installation_code": code,
            "basin": basin_of(lat),
            "basin_basis": BASIN_BASIS,
            **_provenance(meta, f"row {row_no} ({code})", "medium"),
            "geometry_basis": "a point, the one register position per installation; the 500 m of "
            "NORMAM-07 0212 f) is counted from it",
            "aliases": [],
        }
        kept.append({"type": "Feature", "properties": props, "geometry": _point(lon, lat)})
    for f in kept:
        if not f["properties"]["aliases"]:
            del f["properties"]["aliases"]
    return kept


def ports(registers: Path) -> list[dict[str, Any]]:
    """Port-facility zones round the WPI position of each organised port."""
    meta = WPI_SOURCE
    with (registers / meta["file"]).open(encoding="utf-8", newline="") as fh:
        rows = {int(r["index_number"]): r for r in csv.DictReader(fh)}
    out = []
    for index, state in PORTS.items():
        if index in PORTS_LEFT_OUT:
            continue
        row = rows[index]
        lat, lon = float(row["port_latitude"]), float(row["port_longitude"])
        name = row["port_name"].title()
        props: dict[str, Any] = {
            "id": f"port-wpi-{index}",
            "kind": "port_facility",
            "name": f"{name} (WPI {index})",
            "port": name,
            "state": state,
            "allowed": {"ship_types": PORT_ALLOWED_TYPES},
            **_provenance(meta, f"WPI index {index} '{row['port_name']}'", "low"),
            "reference_point": _point(lon, lat)["coordinates"],
            "geometry_basis": f"circle of {PORT_POINT_RADIUS_M:g} m round the WPI port "
            "point (given to the nearest minute, about 1.8 km): NORMAM-07 0212 e) sets "
            "no distance; replace with the port authority's facility polygon",
        }
        out.append(
            {
                "type": "Feature",
                "properties": props,
                "geometry": circle(lon, lat, PORT_POINT_RADIUS_M),
            }
        )
    return out


def military(registers: Path) -> list[dict[str, Any]]:
    """Naval installations with a published position, as points (200 m from them)."""
    out = []
    with (registers / "military_points.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row_no, row in enumerate(rows, start=2):
        lat, lon = dms(row["lat_dms"]), dms(row["lon_dms"])
        props: dict[str, Any] = {
            "id": f"military-{slug(row['name'])}",
            "kind": "military",
            "name": row["name"],
            "state": row["state"],
            "source": f"{row['source']}: {row['lat_dms']} {row['lon_dms']}; "
            f"extract data/registers/military_points.csv row {row_no}",
            "source_url": row["url"],
            "source_date": row["retrieved"],
            "licence": row["licence"],
            "confidence": row["confidence"],
            "point_only": True,
            "geometry_basis": "a published point, not the installation's footprint: the "
            "200 m of NORMAM-07 0212 a) is counted from it and understates the real area "
            "(a point inland of the waterfront catches nothing until the footprint is drawn)",
        }
        out.append({"type": "Feature", "properties": props, "geometry": _point(lon, lat)})
    return out


def build(registers: Path, geojson_dir: Path) -> dict[str, str]:
    """Every national file's text, by file name (nothing written)."""
    themes: dict[str, Callable[[], list[dict[str, Any]]]] = {
        "platforms_national.geojson": lambda: platforms(
            registers, bundled_platforms(geojson_dir, THEME_FILES)
        ),
        "ports_national.geojson": lambda: ports(registers),
        "military_national.geojson": lambda: military(registers),
    }
    return {name: dump(make()) for name, make in themes.items()}


THEME_FILES = ("platforms_national.geojson", "ports_national.geojson", "military_national.geojson")


def main(argv: list[str] | None = None) -> int:
    """Write the national files and load them back with the catalogue's loader."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--registers", type=Path, default=REPO / "data" / "registers")
    ap.add_argument("--out", type=Path, default=REPO / "data" / "geojson")
    ap.add_argument(
        "--bundled",
        type=Path,
        default=REPO / "data" / "geojson",
        help="folder of the zones already bundled (platforms to skip)",
    )
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in build(args.registers, args.bundled).items():
        (args.out / name).write_text(text, encoding="utf-8")
        print(f"{name}: {text.count(chr(10)) - 2} features")
    from vigia.zones.catalogue import load_zones

    print(f"loaded back: {len(load_zones([args.out / n for n in THEME_FILES]))} zones")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
