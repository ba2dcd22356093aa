"""Official jurisdiction zones from the NPCP lists of municipalities (issue 32).

Usage: python -m scripts.build_jurisdictions --mesh BR_Municipios_2024.shp
       --out data/jurisdictions.geojson [--office NAME]... [--allow-unmatched]
       [--land FILE] [--crs CRS] [--spacing-m 500] [--simplify-m 0]

Each office whose list in ``alerts/procedure/npcp_municipalities.json`` is complete becomes
one ``jurisdiction`` zone (docs/contract.md, section 1): the union of its municipalities
in IBGE's municipal mesh ("Malha Municipal"; GeoJSON, shapefile or GeoPackage) and, for
an office of the sea, the sea nearer its coastal municipalities than any other coast, cut
at 200 NM (``scripts/jurisdiction_sea.py`` says how). A listed name the mesh does not
hold (accents, case and punctuation aside, within its state) stops the build, naming
every one, unless ``--allow-unmatched``. Offices with partial lists are skipped and named
in the report: they keep the bundled nearest-seat approximation. The report is printed
on stdout and kept in the output's ``report`` member; the zones load like any zone file
(docs/procedure-terms.md, "Routing out of the box").
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from pyproj import CRS, Geod, Transformer
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

from scripts.jurisdiction_sea import (
    OTHER,
    Frame,
    Seas,
    dissolve,
    finish,
    foreign_land,
    polygons,
    reproject,
    seas,
)
from vigia.alerts.procedure.register import office_named
from vigia.alerts.procedure.waters import EEZ_NM, TERRITORIAL_NM
from vigia.ingest.units import M_PER_NM
from vigia.zones.basemap import LandBasemap, bundled_land, load_land_file

#: IBGE's state codes, the first two digits of a municipality's code: older meshes
#: (NM_MUNICIP, CD_GEOCMU) carry no state abbreviation
UF_BY_CODE = {
    "11": "RO", "12": "AC", "13": "AM", "14": "RR", "15": "PA", "16": "AP", "17": "TO",
    "21": "MA", "22": "PI", "23": "CE", "24": "RN", "25": "PB", "26": "PE", "27": "AL",
    "28": "SE", "29": "BA", "31": "MG", "32": "ES", "33": "RJ", "35": "SP", "41": "PR",
    "42": "SC", "43": "RS", "50": "MS", "51": "MT", "52": "GO", "53": "DF",
}  # fmt: skip
NAME_FIELDS = ("NM_MUN", "NM_MUNICIP", "NOME", "NAME")
STATE_FIELDS = ("SIGLA_UF", "SIGLA", "UF", "STATE")
CODE_FIELDS = ("CD_MUN", "CD_GEOCMU", "CODE")
#: an Agência's sea: the territorial sea off its own coast (the register's 20 NM from its
#: seat is the same reach measured from a city behind the water)
AGENCY_REACH_NM = TERRITORIAL_NM
#: output grid: 1e-7 degree is about 1 cm, far below the mesh's 1:250,000
GRID_DEG = 1e-7
_GEOD = Geod(ellps="WGS84")
Window = tuple[float, float, float, float]


@dataclass(frozen=True)
class Municipality:
    """One feature of the mesh, in lon/lat."""

    name: str
    state: str
    geometry: BaseGeometry


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def name_key(text: str) -> str:
    """A name without accents, case, spaces or punctuation ('D’Oeste' = "D'OESTE")."""
    return "".join(ch for ch in _fold(text).upper() if ch.isalnum())


def load_lists(path: Path | None) -> dict[str, dict[str, Any]]:
    """The offices' lists: the bundled file, or another of the same shape."""
    if path is None:
        bundled = resources.files("vigia.alerts.procedure") / "npcp_municipalities.json"
        text = bundled.read_text(encoding="utf-8")
    else:
        text = path.read_text(encoding="utf-8")
    offices: dict[str, dict[str, Any]] = json.loads(text)["offices"]
    return offices


def _pick(fields: Sequence[str], wanted: str | None, options: Sequence[str]) -> str | None:
    upper = {f.upper(): f for f in fields}
    if wanted is not None:
        if wanted.upper() not in upper:
            raise SystemExit(f"the mesh has no field {wanted!r} (it has {', '.join(fields)})")
        return upper[wanted.upper()]
    return next((upper[o] for o in options if o in upper), None)


def read_mesh(path: Path, name_field: str | None, state_field: str | None) -> list[Municipality]:
    """Every municipality of the mesh file in lon/lat, with its name and state."""
    crs: Any = None
    if path.suffix.lower() in (".geojson", ".json"):
        obj = json.loads(path.read_text(encoding="utf-8"))
        rows = [f.get("properties") or {} for f in obj["features"]]
        geoms = [shape(f["geometry"]) if f.get("geometry") else None for f in obj["features"]]
        fields = sorted({k for r in rows for k in r})
        crs = (obj.get("crs") or {}).get("properties", {}).get("name")
    else:
        from pyogrio.raw import read  # type: ignore[import-untyped]

        meta, _, wkb, data = read(path, read_geometry=True)
        fields = [str(f) for f in meta["fields"]]
        rows = [dict(zip(fields, vals, strict=True)) for vals in zip(*data, strict=True)]
        geoms = list(shapely.from_wkb(wkb))
        crs = meta.get("crs")
    if crs and not CRS.from_user_input(crs).is_geographic:
        tr = Transformer.from_crs(CRS.from_user_input(crs), "EPSG:4326", always_xy=True)
        geoms = [None if g is None else reproject(g, tr) for g in geoms]
    # else lon/lat: GeoJSON's own (RFC 7946), or IBGE's SIRGAS 2000, WGS84 to the cm
    name = _pick(fields, name_field, NAME_FIELDS)
    state = _pick(fields, state_field, STATE_FIELDS)
    code = _pick(fields, None, CODE_FIELDS)
    if name is None or (state is None and code is None):
        raise SystemExit(f"cannot tell the municipality's name and state among {fields}")
    out = []
    for row, geom in zip(rows, geoms, strict=True):
        uf = str(row[state]) if state else UF_BY_CODE.get(str(row.get(code or "", ""))[:2], "")
        if geom is not None and not geom.is_empty and row.get(name):
            out.append(Municipality(str(row[name]), uf.upper(), geom))
    return out


def match(
    lists: dict[str, dict[str, Any]], offices: Sequence[str], mesh: Sequence[Municipality]
) -> tuple[dict[str, list[Municipality]], list[str]]:
    """Each office's municipalities in the mesh, and a line for each listed name that is
    not there (with the state's nearest names), listed twice, or another office's too."""
    index = {(m.state, name_key(m.name)): m for m in mesh}
    found: dict[str, list[Municipality]] = {}
    problems: list[str] = []
    taken: dict[tuple[str, str], str] = {}
    for office in offices:
        found[office] = []
        for row in lists[office]["municipalities"]:
            key = (row["state"], name_key(row.get("ibge_name") or row["name"]))
            hit = index.get(key)
            listed = f"{office}: {row['name']!r} ({row['state']})"
            if hit is None:
                names = [k for s, k in index if s == row["state"]]
                near = difflib.get_close_matches(key[1], names, n=3)
                hint = f"; near: {near}" if near else ""
                problems.append(f"{listed} is not in the mesh{hint}")
            elif key in taken:
                problems.append(f"{listed} is already {taken[key]}'s")
            else:
                taken[key] = office
                found[office].append(hit)
    return found, problems


def _coastline(land: LandBasemap, window: Window, frame: Frame) -> BaseGeometry:
    """The land basemap's coastline in the window, in metres. Its edges are cut to 0.01
    degree (about 1 km) first: a long edge straight in degrees is not straight in metres,
    and a coast bowed by its chord would tilt every equidistance line drawn from it."""
    # a polygon's ring is kept open (its first vertex not repeated): close it again
    rings = [
        shapely.LineString(np.vstack([r, r[:1]]) if closed else r)
        for r, closed in zip(land.rings, land.closed, strict=True)
        if len(r) > 1
    ]
    lines = shapely.clip_by_rect(shapely.MultiLineString(rings), *window)
    return frame.metres(shapely.segmentize(lines, 0.01))


def _window(munis: Sequence[Municipality]) -> Window:
    """Lon/lat bounds of what can bear on these municipalities' sea (only to keep the
    build fast): a point within 200 NM of their coast is nearer them than any coast
    beyond 400 NM."""
    x0, y0, x1, y1 = shapely.union_all([m.geometry.envelope for m in munis]).bounds
    pad = (2 * EEZ_NM + 30.0) / 60.0
    wide = pad / max(0.2, float(np.cos(np.radians(max(abs(y0), abs(y1)) + pad))))
    return x0 - wide, max(-89.0, y0 - pad), x1 + wide, min(89.0, y1 + pad)


def geodesic_km2(geom: BaseGeometry) -> float:
    """A lon/lat area on the WGS84 ellipsoid."""
    return abs(_GEOD.geometry_area_perimeter(geom)[0]) / 1e6 if not geom.is_empty else 0.0


def build(args: argparse.Namespace) -> tuple[list[dict[str, Any]], dict[str, Any], int]:
    """The zones, the report and the exit status."""
    lists = load_lists(args.lists)
    unknown = [o for o in args.office or [] if o not in lists]
    if unknown:
        raise SystemExit(f"no list for {unknown} in the NPCP lists")
    asked = args.office or sorted(lists)
    complete = [o for o in asked if lists[o]["status"] == "complete"]
    mesh = read_mesh(args.mesh, args.name_field, args.state_field)
    found, problems = match(lists, complete, mesh)
    partial = [o for o in asked if lists[o]["status"] != "complete"]
    report: dict[str, Any] = {
        "built_from": f"IBGE municipal mesh {args.mesh.name}",
        "skipped_partial": [_skipped(o, lists[o]) for o in partial],
        "unmatched": problems,
    }
    if problems and not args.allow_unmatched:
        return [], report, 1
    built = [o for o in complete if found[o]]
    zones = {o: dissolve([m.geometry for m in found[o]]) for o in built}
    waters = _waters(args, mesh, found, [o for o in built if not _fluvial(o)], report)
    for office, water in waters.items():
        zones[office] = polygons(shapely.union(zones[office], water))
    frame = Frame.of(report["frame"])
    geoms, notes = finish(list(zones.values()), frame, args.simplify_m, GRID_DEG)
    report.update(notes=notes, built=[])
    features = []
    for office, geom in zip(zones, geoms, strict=True):
        water = waters.get(office, shapely.MultiPolygon())
        features.append(_feature(office, lists[office], found[office], geom, water, args))
        report["built"].append({
            "office": office, "municipalities": len(found[office]),
            "land_km2": round(geodesic_km2(geom) - geodesic_km2(water), 1),
            "sea_km2": round(geodesic_km2(water), 1),
            "vertices": int(shapely.get_num_coordinates(geom)),
        })  # fmt: skip
    report["vertices"] = sum(b["vertices"] for b in report["built"])
    return features, report, 0


def _skipped(office: str, row: dict[str, Any]) -> dict[str, Any]:
    why = "partial list: keeps the bundled nearest-seat approximation"
    return {"office": office, "listed": len(row["municipalities"]), "source": row["source"],
            "why": why}  # fmt: skip


def _waters(
    args: argparse.Namespace,
    mesh: Sequence[Municipality],
    found: dict[str, list[Municipality]],
    sea_offices: Sequence[str],
    report: dict[str, Any],
) -> dict[str, BaseGeometry]:
    """Each office of the sea's water (lon/lat), noting the frame and what went where."""
    coastal = [m for o in sea_offices for m in found[o]] or [m for o in found for m in found[o]]
    centre = shapely.union_all([m.geometry.envelope for m in coastal]).centroid
    frame = Frame.of(args.crs) if args.crs else Frame.centred(centre.x, centre.y)
    land = load_land_file(args.land) if args.land else bundled_land()
    report.update(frame=frame.crs, land=land.name, spacing_m=args.spacing_m)
    if not sea_offices:
        return {}
    window = _window(coastal)
    tree = shapely.STRtree([m.geometry for m in mesh])
    near = [mesh[int(i)] for i in sorted(tree.query(shapely.box(*window), "intersects"))]
    sea = _seas(args, near, found, sea_offices, _coastline(land, window, frame), frame)
    report["coast_samples"] = sea.sites
    report["sea_beyond_an_agency_reach"] = [{"office": o, "to": h} for o, h in sea.beyond_reach]
    mesh_land = dissolve([m.geometry for m in near])
    abroad = foreign_land(
        shapely.clip_by_rect(land.polygons, *window), mesh_land, frame, args.coast_tolerance_m
    )
    dry = shapely.union(mesh_land, abroad)
    # the sea, made in metres, meets the land in lon/lat on the mesh's own edges
    return {o: polygons(shapely.difference(frame.degrees(s), dry)) for o, s in sea.sea.items()}


def _fluvial(office: str) -> bool:
    found = office_named(office)
    return found.fluvial if found is not None else "Fluvial" in office


def _seas(
    args: argparse.Namespace,
    near: Sequence[Municipality],
    found: dict[str, list[Municipality]],
    sea_offices: Sequence[str],
    coastline: BaseGeometry,
    frame: Frame,
) -> Seas:
    owner_of = {id(m): o for o in sea_offices for m in found[o]}
    rows = {o: office_named(o) for o in sea_offices}
    agencies = [o for o, r in rows.items() if r is not None and r.kind == "agencia"]
    return seas(
        [frame.metres(m.geometry) for m in near],
        [owner_of.get(id(m), OTHER) for m in near],
        coastline,
        eez_m=EEZ_NM * M_PER_NM,
        reach_m={o: AGENCY_REACH_NM * M_PER_NM for o in agencies},
        parent={o: r.parent if r else None for o, r in rows.items()},
        spacing_m=args.spacing_m,
        tolerance_m=args.coast_tolerance_m,
    )


def _feature(
    office: str,
    row: dict[str, Any],
    munis: Sequence[Municipality],
    geom: BaseGeometry,
    water: BaseGeometry,
    args: argparse.Namespace,
) -> dict[str, Any]:
    register = office_named(office)
    zid = "npcp-" + re.sub(r"[^a-z0-9]+", "-", _fold(office).lower()).strip("-")
    agency = register is not None and register.kind == "agencia"
    how = (
        f"nearer its coastal municipalities than any other coast (sampled every "
        f"{args.spacing_m:g} m), to {AGENCY_REACH_NM if agency else EEZ_NM:g} NM from its "
        f"coast{'' if agency else ' (the EEZ, simplified as a buffer of the mesh coastline)'}"
    )
    props: dict[str, Any] = {
        "id": zid,
        "kind": "jurisdiction",
        "name": office,
        "authority": office,
        "seat_state": register.seat_state if register else None,
        "seat_municipality": register.seat_municipality if register else None,
        "source": f"NPCP list {row['source']} on the IBGE municipal mesh {args.mesh.name}",
        "npcp_source": row["source"],
        "npcp_source_date": row["source_date"],
        "built_from": f"IBGE municipal mesh {args.mesh.name}",
        "municipalities": [f"{m.name}/{m.state}" for m in munis],
        "waters": row.get("waters"),
        "sea": how if not water.is_empty else None,
    }
    return {"type": "Feature", "id": zid, "geometry": mapping(geom), "properties": props}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--mesh", type=Path, required=True, help="IBGE municipal mesh file")
    p.add_argument("--out", type=Path, required=True, help="the zones' GeoJSON")
    p.add_argument("--office", action="append", help="build only this office (repeatable)")
    p.add_argument("--lists", type=Path, help="other NPCP lists (the bundled file's shape)")
    p.add_argument("--allow-unmatched", action="store_true", help="build what matched")
    p.add_argument("--land", help="land (GeoJSON, shapefile) whose edge is the sea coast")
    p.add_argument("--crs", help="projected frame in metres (default: aeqd about the coast)")
    p.add_argument("--spacing-m", type=float, default=500.0, help="coast sampling step")
    p.add_argument("--coast-tolerance-m", type=float, default=5000.0,
                   help="mesh outline this near the land's coastline is coast")  # fmt: skip
    p.add_argument("--simplify-m", type=float, default=0.0, help="simplify limits (metres)")
    p.add_argument("--name-field", help="the mesh's municipality name field")
    p.add_argument("--state-field", help="the mesh's state (UF) field")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    features, report, status = build(args)
    for line in report["unmatched"]:
        print(f"unmatched: {line}", file=sys.stderr)
    if status == 0:
        fc = {"type": "FeatureCollection", "report": report, "features": features}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(fc, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(report, ensure_ascii=False, indent=1))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
