"""Rebuild data/chart_land/chart_land.geojson: the land of the two bundled DHN chart cells,
for the dashboard's map (issue 22).

Usage: python -m scripts.build_chart_land [--data /work/shared/data] [--out data/chart_land]

One Feature per cell: the union of its LNDARE land polygons (islets charted as points
are left out: a point has no area to fill), to 1e-6 degree, and the cell's land bounds
as ``coverage``. Inside that box the map draws this land instead of the world dataset,
which runs about 300 m off the charted coast at Copacabana. Byte-identical on every run.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import shapely
from shapely.geometry import mapping, shape

DEFAULT_DATA = Path(os.environ.get("VIGIA_SHARED_DATA", "/work/shared/data"))
REPO = Path(__file__).resolve().parents[1]
#: (cell, edition, issue date), as data/README.md names them
CELLS = [("BR323000", 3, "2016-03-25"), ("BR323100", 1, "2011-07-15")]


def build(data: Path) -> dict[str, object]:
    features = []
    for cell, edition, issued in CELLS:
        src = json.loads((data / "enc" / f"{cell}_LNDARE.geojson").read_text())
        areas = [shape(f["geometry"]) for f in src["features"]]
        polys = [g for g in areas if g.geom_type in ("Polygon", "MultiPolygon")]
        land = shapely.set_precision(shapely.union_all(polys), 1e-6)
        features.append(
            {
                "type": "Feature",
                "geometry": mapping(land),
                "properties": {
                    "cell": cell,
                    "source": f"DHN ENC {cell} edition {edition} ({issued}), S-57 LNDARE",
                    "coverage": [round(v, 6) for v in land.bounds],
                },
            }
        )
    return {"type": "FeatureCollection", "features": features}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=REPO / "data" / "chart_land")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(build(args.data), separators=(",", ":"))
    (args.out / "chart_land.geojson").write_text(text + "\n")


if __name__ == "__main__":
    main()
