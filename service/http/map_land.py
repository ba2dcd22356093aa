"""The land the dashboard draws: the ballast basemap's (Natural Earth 10m and more) with
the bundled chart land in place of it wherever a chart cell covers (issue 22).

The basemap is a union, so near Rio the world dataset's coast, about 300 m off the charted
one at Copacabana, still fills the sea there and a boat 118 m off the beach is drawn on
land. Inside each cell's coverage the chart's own land (data/chart_land/, built by
scripts/build_chart_land.py from the DHN cells' LNDARE) is the finest source and replaces
the basemap's. The ballast distances keep their own basemap: this is the map's land only.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry

CHART_LAND = Path(__file__).resolve().parents[2] / "data" / "chart_land" / "chart_land.geojson"


@cache
def chart_cells(path: Path = CHART_LAND) -> tuple[tuple[BaseGeometry, BaseGeometry, str], ...]:
    """(coverage box, land, source) per bundled chart cell; none when the file is absent
    (an installed wheel without data/): the basemap's land is then drawn alone."""
    if not path.exists():
        return ()
    doc: dict[str, Any] = json.loads(path.read_text())
    out = []
    for f in doc["features"]:
        land = shape(f["geometry"])
        shapely.prepare(land)
        out.append((shapely.box(*f["properties"]["coverage"]), land, f["properties"]["source"]))
    return tuple(out)


def finest_land(basemap_land: BaseGeometry, bounds: tuple[float, float, float, float]) -> Any:
    """The land inside ``bounds``: the chart's where a cell covers, the basemap's elsewhere."""
    window = shapely.box(*bounds)
    land = shapely.clip_by_rect(basemap_land, *bounds)
    charted = []
    for cover, chart, _ in chart_cells():
        if not cover.intersects(window):
            continue
        land = shapely.difference(land, cover)
        charted.append(shapely.clip_by_rect(chart, *bounds))
    return shapely.union_all([land, *charted]) if charted else land


def sources() -> list[str]:
    """The chart cells drawn in place of the basemap, for the map's attribution."""
    return [src for _, _, src in chart_cells()]
