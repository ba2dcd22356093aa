"""Rebuild the bundled zone files in data/geojson/ from the reference geodata.

Usage: python -m scripts.build_zones [--data /work/shared/data] [--out data/geojson]

Reads the DHN chart layers (enc/*.geojson), enc/ofsplf_platforms.csv and
named_points.csv; writes one FeatureCollection per theme, byte-identical on every run.
Every feature carries a ``source`` naming the cell, S-57 class and feature id (or CSV
row). What is left out, and why, is in data/README.md. Nothing here invents geometry
or dates: the submarine exercise areas get a zero-length validity window (never in
force) that an operator replaces with the Notice to Mariners' dates.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(os.environ.get("VIGIA_SHARED_DATA", "/work/shared/data"))
REPO = Path(__file__).resolve().parents[1]

#: Beach baselines cut from the chart coastline: (id, name, cell, COALNE FIDN, first
#: vertex, last vertex). Vertex ranges were chosen by printing the lines and checking
#: their ends against the beaches' known limits (see data/README.md).
BEACHES = [
    ("beach-copacabana", "Praia de Copacabana", "BR323100", 1178845, 0, 11),
    ("beach-ipanema-leblon", "Praias de Ipanema e Leblon", "BR323100", 1178845, 31, 41),
    ("beach-praia-vermelha", "Praia Vermelha (Urca)", "BR323100", 1178843, 105, 109),
    ("beach-icarai", "Praia de Icaraí (Niterói)", "BR323100", 1178207, 85, 90),
]
#: Military installations whose named point lies inside a charted island polygon
#: (LNDARE): the island is the footprint. Others stay points.
ISLAND_FOOTPRINTS = {"Ilha de Villegagnon (Escola Naval)", "Ilha de Mocangue (naval base complex)"}
#: AIS ship types allowed in a tanker anchorage (CATACH 3) without a lead: tankers
#: 80-89, and the craft that serve them (towing 31-32, pilot 50, SAR 51, tug 52, port
#: tender 53, law enforcement 55). An operator narrows or widens it per zone.
TANKER_ANCHORAGE_TYPES = [31, 32, 50, 51, 52, 53, 55, *range(80, 90)]
#: Zero-length window for practice areas: geometry loaded, never in force until an
#: operator sets the dates from the Aviso aos Navegantes.
CELL_EDITION = {"BR323000": "2016-03-25T00:00:00+00:00", "BR323100": "2011-07-15T00:00:00+00:00"}


def _layer(data: Path, cell: str, cls: str) -> list[dict[str, Any]]:
    obj = json.loads((data / "enc" / f"{cell}_{cls}.geojson").read_text(encoding="utf-8"))
    feats: list[dict[str, Any]] = obj["features"]
    return feats


def _by_fidn(feats: list[dict[str, Any]], fidn: int) -> dict[str, Any]:
    found = [f for f in feats if f["properties"]["FIDN"] == fidn]
    if len(found) != 1:
        raise SystemExit(f"expected one feature with FIDN {fidn}, found {len(found)}")
    return found[0]


def _feature(props: dict[str, Any], geometry: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Feature", "properties": props, "geometry": geometry}


def beaches(data: Path) -> list[dict[str, Any]]:
    """Bather beach baselines cut from the chart coastline (COALNE)."""
    out = []
    for zid, name, cell, fidn, first, last in BEACHES:
        line = _by_fidn(_layer(data, cell, "COALNE"), fidn)
        coords = line["geometry"]["coordinates"][first : last + 1]
        source = f"DHN ENC {cell} COALNE FIDN {fidn}, vertices {first}-{last}"
        props = {"id": zid, "kind": "bather_beach", "name": name, "source": source}
        out.append(_feature(props, {"type": "LineString", "coordinates": coords}))
    return out


def military(data: Path) -> list[dict[str, Any]]:
    """Military installations around Guanabara Bay (named_points.csv, chart islands)."""
    from shapely.geometry import Point, shape

    land = _layer(data, "BR323100", "LNDARE")
    out = []
    with (data / "named_points.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row_no, row in enumerate(rows, start=2):
        if row["kind"] != "military":
            continue
        lon, lat = float(row["lon"]), float(row["lat"])
        slug = row["name"].split("(")[0].strip().lower().replace(" ", "-")
        source = f"named_points.csv row {row_no}: {row['source']}"
        geometry: dict[str, Any] = {"type": "Point", "coordinates": [lon, lat]}
        if row["name"] in ISLAND_FOOTPRINTS:
            hits = [
                f
                for f in land
                if f["geometry"]["type"] == "Polygon"
                and shape(f["geometry"]).contains(Point(lon, lat))
            ]
            small = [f for f in hits if shape(f["geometry"]).area < 1e-4]
            if len(small) != 1:
                raise SystemExit(f"no single charted island around {row['name']}")
            geometry = small[0]["geometry"]
            fidn = small[0]["properties"]["FIDN"]
            source += (
                f"; footprint DHN ENC BR323100 LNDARE FIDN {fidn} (island containing the point)"
            )
        props = {
            "id": f"military-{slug}",
            "kind": "military",
            "name": row["name"],
            "source": source,
            "confidence": row["confidence"],
        }
        out.append(_feature(props, geometry))
    return out


def platforms(data: Path) -> list[dict[str, Any]]:
    """Campos basin platforms: every charted OFSPLF point, by cell and feature id."""
    out = []
    seen: set[tuple[str, int]] = set()
    with (data / "enc" / "ofsplf_platforms.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    for row_no, (name, lat, lon, cell_file, fid) in enumerate(rows, start=1):
        cell = cell_file.split(".")[0]
        fidn = int(fid.split("_")[1])
        seen.add((cell, fidn))
        props: dict[str, Any] = {"id": f"platform-{cell}-{fidn}", "kind": "platform"}
        if name:
            props["name"] = name
        props["source"] = f"DHN ENC {cell} OFSPLF {fid} (ofsplf_platforms.csv row {row_no})"
        out.append(_feature(props, {"type": "Point", "coordinates": [float(lon), float(lat)]}))
    for f in _layer(data, "BR323000", "OFSPLF"):
        fidn = f["properties"]["FIDN"]
        if ("BR323000", fidn) in seen:
            continue
        props = {"id": f"platform-BR323000-{fidn}", "kind": "platform"}
        if f["properties"].get("OBJNAM"):
            props["name"] = f["properties"]["OBJNAM"]
        props["source"] = f"DHN ENC BR323000 OFSPLF FIDN {fidn}"
        out.append(_feature(props, f["geometry"]))
    return out


def anchorages(data: Path) -> list[dict[str, Any]]:
    """Charted anchorage polygons (ACHARE); point-only anchorages cannot be areas."""
    out = []
    for cell in ("BR323000", "BR323100"):
        for f in _layer(data, cell, "ACHARE"):
            if f["geometry"]["type"] != "Polygon":
                continue
            p = f["properties"]
            fidn = p["FIDN"]
            if p.get("CATACH") != ["3"]:
                raise SystemExit(f"{cell} ACHARE {fidn}: CATACH {p.get('CATACH')} not mapped")
            props = {
                "id": f"anchorage-{cell}-{fidn}",
                "kind": "anchorage",
                "name": "Tanker anchorage (charted, CATACH 3)",
                "allowed": {"ship_types": TANKER_ANCHORAGE_TYPES},
                "source": f"DHN ENC {cell} ACHARE FIDN {fidn}",
            }
            out.append(_feature(props, f["geometry"]))
    return out


def practice_areas(data: Path) -> list[dict[str, Any]]:
    """Military practice areas (MIPARE) as special areas, not in force until configured."""
    out = []
    for cell in ("BR323100", "BR323000"):
        for f in _layer(data, cell, "MIPARE"):
            p = f["properties"]
            fidn = p["FIDN"]
            label = p.get("NOBJNM") or "sem nome"
            catmpa = ",".join(p.get("CATMPA", []))
            edition = CELL_EDITION[cell]
            props = {
                "id": f"special-{cell}-{fidn}",
                "kind": "special_area",
                "name": f"Área de exercícios militares ({label}, {cell})",
                "valid_from": edition,
                "valid_to": edition,
                "notice": "NOT CONFIGURED: set valid_from/valid_to from the Aviso aos "
                "Navegantes in force; the chart gives no dates",
                "source": f"DHN ENC {cell} MIPARE FIDN {fidn} (CATMPA {catmpa})",
                "validity_placeholder": True,
            }
            if p.get("INFORM"):
                props["chart_inform"] = " ".join(p["INFORM"].split())
            out.append(_feature(props, f["geometry"]))
    return out


THEMES = {
    "beaches_rio.geojson": beaches,
    "military_guanabara.geojson": military,
    "platforms_campos.geojson": platforms,
    "anchorages.geojson": anchorages,
    "special_areas_practice.geojson": practice_areas,
}


def dump(features: list[dict[str, Any]]) -> str:
    """A FeatureCollection, one feature per line, stable across runs."""
    lines = [json.dumps(f, ensure_ascii=False, separators=(",", ":")) for f in features]
    return '{"type":"FeatureCollection","features":[\n' + ",\n".join(lines) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    """Write every theme file; check them with the catalogue's loader."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=REPO / "data" / "geojson")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, build in THEMES.items():
        feats = build(args.data)
        (args.out / name).write_text(dump(feats), encoding="utf-8")
        print(f"{name}: {len(feats)} features")
    from vigia.zones.catalogue import load_zones

    print(f"loaded back: {len(load_zones([args.out]))} zones")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
