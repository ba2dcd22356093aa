"""A backtest's leads as GeoJSON (a point at each closest approach, for the map or a
GIS) and as CSV (for a spreadsheet), each marked new, kept or gone."""

from __future__ import annotations

import csv
import io
from typing import Any

from vigia.alerts.backtest.report import GONE, Compared
from vigia.alerts.lead import Lead

CSV_COLUMNS = (
    "id", "change", "mmsi", "rule", "zone_id", "started_at", "ended_at",
    "min_distance_m", "max_sog_kn", "lon", "lat", "authority", "silence_id",
)  # fmt: skip


def _rows(compared: Compared) -> list[tuple[Lead, str]]:
    return [*compared.draft, *((x, GONE) for x in compared.gone)]


def _props(lead: Lead, change: str) -> dict[str, Any]:
    j = lead.to_json()
    return {
        "id": lead.id,
        "change": change,
        "mmsi": lead.mmsi,
        "rule": lead.rule,
        "zone_id": lead.zone_id,
        "started_at": j["started_at"],
        "ended_at": j["ended_at"],
        "min_distance_m": lead.min_distance_m,
        "max_sog_kn": lead.max_sog_kn,
        "authority": lead.authority,
        "silence_id": lead.silence_id,
    }


def geojson(compared: Compared) -> dict[str, Any]:
    """A FeatureCollection, one Point feature a lead (gone leads included, marked)."""
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "id": lead.id,
                "geometry": {"type": "Point", "coordinates": [lead.closest_lon, lead.closest_lat]},
                "properties": _props(lead, change),
            }
            for lead, change in _rows(compared)
        ],
    }


def to_csv(compared: Compared) -> str:
    """One row a lead, the columns of ``CSV_COLUMNS``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for lead, change in _rows(compared):
        p = _props(lead, change)
        p["lon"], p["lat"] = lead.closest_lon, lead.closest_lat
        w.writerow(["" if p[c] is None else p[c] for c in CSV_COLUMNS])
    return buf.getvalue()
