"""Zone files (docs/contract.md, section 1): load, validate completely, and write back.

A file is refused whole on its first problem with a :class:`ZoneError` naming the file,
the feature (its id, or ``#index`` when it has none) and the reason; nothing is returned
until every feature of every file has passed.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

from vigia.ingest.units import lonlat_in_range
from vigia.zones.model import Zone, ZoneError, ZoneKind
from vigia.zones.recurrence import check as check_recurrence

#: Geometry types each kind takes (docs/contract.md, section 1).
_AREA = frozenset({"Polygon", "MultiPolygon"})
GEOMETRY_TYPES: dict[ZoneKind, frozenset[str]] = {
    ZoneKind.BATHER_BEACH: frozenset({"LineString", "MultiLineString"}),
    ZoneKind.PLATFORM: frozenset({"Point", "Polygon"}),
    ZoneKind.MILITARY: frozenset({"Point", "Polygon", "MultiPolygon"}),
    ZoneKind.ANCHORAGE: _AREA,
    ZoneKind.ACCESS_CHANNEL: _AREA,
    ZoneKind.PORT_FACILITY: _AREA,
    ZoneKind.POWER_PLANT: _AREA,
    ZoneKind.SPECIAL_AREA: _AREA,
    ZoneKind.LAUNCH_AREA: _AREA,
    ZoneKind.JURISDICTION: _AREA,
}

#: Properties the contract defines; anything else is kept in ``Zone.properties``.
_KNOWN = frozenset(
    {
        "id",
        "kind",
        "name",
        "distance_m",
        "valid_from",
        "valid_to",
        "allowed",
        "anchoring_prohibited",
        "max_dwell_min",
        "authority",
        "notice",
        "source",
        "version",
    }
)
#: The oar/sail band of a bather beach (NORMAM-07 0211 b) 1)); the motor band, which
#: ``distance_m`` overrides, cannot be narrower.
SAIL_BAND_M = 100.0
#: A rule distance beyond this is a typo, not a zone (NORMAM-07 uses 100 to 500 m).
MAX_DISTANCE_M = 50_000.0
#: Kind-specific extra properties (kept in ``Zone.properties``): (kind, upper bound).
#: ``footprint_m``: a platform's hull radius around its charted point (the largest FPSOs
#: are about 340 m long and swing round their turret). ``baseline_offset_m``: how far
#: seaward of the chart coastline the surf line lies (surf zones are tens of metres,
#: rarely more than a few hundred).
OFFSETS: dict[str, tuple[ZoneKind, float]] = {
    "footprint_m": (ZoneKind.PLATFORM, 2_000.0),
    "baseline_offset_m": (ZoneKind.BATHER_BEACH, 500.0),
}
#: Ship types a military zone lets in unless its ``allowed.ship_types`` says otherwise:
#: 35 (military operations) and 55 (law enforcement). 0212 a) keeps out the public, not
#: the Navy's own craft or the authorities' at their base.
MILITARY_DEFAULT_TYPES = frozenset({35, 55})
ENV_ZONES_DIR = "VIGIA_ZONES_DIR"
_Fail = Callable[[str], ZoneError]
#: zone times are refused before 1970 and after 2100 (UTC): a typo, not a notice
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
AFTER_LATEST = datetime(2101, 1, 1, tzinfo=UTC)


def bundled_zones_dir() -> Path:
    """The bundled zone folder: ``$VIGIA_ZONES_DIR`` if set; else the copy an installed
    wheel carries (vigia/zones/geojson); else the repository's data/geojson (a checkout
    or an editable install, where this module sits in the repository's zones/)."""
    override = os.environ.get(ENV_ZONES_DIR)
    if override:
        return Path(override)
    here = Path(__file__).resolve().parent
    installed = here / "geojson"
    return installed if installed.is_dir() else here.parent / "data" / "geojson"


def load_zones(paths: Sequence[str | Path]) -> list[Zone]:
    """Load and validate every zone of the given files or folders (of ``*.geojson``)."""
    files: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(path.glob("*.geojson"))
            if not found:
                raise ZoneError("folder holds no *.geojson file", file=str(path))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise ZoneError("no such file or folder", file=str(path))
    zones: list[Zone] = []
    seen: dict[str, str] = {}
    for f in files:
        try:
            obj = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ZoneError(f"cannot read: {exc}", file=str(f)) from exc
        except json.JSONDecodeError as exc:
            raise ZoneError(f"not JSON: {exc}", file=str(f)) from exc
        if not isinstance(obj, Mapping):
            raise ZoneError("top level is not a GeoJSON object", file=str(f))
        for z in parse_feature_collection(obj, file=str(f)):
            if z.id in seen:
                raise ZoneError(
                    f"duplicate id, already defined in {seen[z.id]}", file=str(f), feature=z.id
                )
            seen[z.id] = str(f)
            zones.append(z)
    return zones


def parse_feature_collection(obj: Mapping[str, Any], *, file: str | None = None) -> list[Zone]:
    """Validate a FeatureCollection (or a single Feature) and return its zones."""
    kind = obj.get("type")
    if kind == "Feature":
        features: Any = [obj]
    elif kind == "FeatureCollection":
        features = obj.get("features")
        if not isinstance(features, list):
            raise ZoneError("FeatureCollection without a 'features' list", file=file)
    else:
        raise ZoneError(f"expected a Feature or FeatureCollection, got type {kind!r}", file=file)
    zones: list[Zone] = []
    ids: set[str] = set()
    for i, feat in enumerate(features):
        z = parse_feature(feat, index=i, file=file)
        if z.id in ids:
            raise ZoneError("duplicate id", file=file, feature=z.id)
        ids.add(z.id)
        zones.append(z)
    return zones


def parse_feature(feat: Any, *, index: int = 0, file: str | None = None) -> Zone:
    """Validate one GeoJSON Feature and return its zone."""
    label = f"#{index}"
    if not isinstance(feat, Mapping) or feat.get("type") != "Feature":
        raise ZoneError("not a GeoJSON Feature", file=file, feature=label)
    props = feat.get("properties")
    if not isinstance(props, Mapping):
        raise ZoneError("Feature without a 'properties' object", file=file, feature=label)
    zid = props.get("id", feat.get("id"))
    if not isinstance(zid, str) or not zid.strip():
        raise ZoneError("missing id (a non-empty string)", file=file, feature=label)
    if "id" in feat and feat["id"] is not None and "id" in props and feat["id"] != props["id"]:
        raise ZoneError("Feature id and properties.id differ", file=file, feature=zid)

    def fail(reason: str) -> ZoneError:
        return ZoneError(reason, file=file, feature=zid)

    kind = _kind(props, fail)
    geometry = _geometry(feat.get("geometry"), kind, fail)
    return zone_from_properties({**props, "id": zid}, geometry, fail=fail)


def _kind(props: Mapping[str, Any], fail: _Fail) -> ZoneKind:
    raw_kind = props.get("kind")
    if raw_kind is None:
        raise fail("missing kind")
    try:
        return ZoneKind(str(raw_kind))
    except ValueError:
        raise fail(f"unknown kind {raw_kind!r}") from None


def zone_from_properties(
    props: Mapping[str, Any],
    geometry: BaseGeometry,
    *,
    version: int | None = None,
    fail: _Fail | None = None,
) -> Zone:
    """The zone of a Feature's properties (with ``id`` and ``kind``) and a checked
    geometry: the one reading of the zone JSON, for files, uploads and the store."""
    zid = str(props["id"])
    fail = fail or (lambda reason: ZoneError(reason, feature=zid))
    kind = _kind(props, fail)
    valid_from = _instant(props, "valid_from", fail)
    valid_to = _instant(props, "valid_to", fail)
    if kind is ZoneKind.SPECIAL_AREA and (valid_from is None or valid_to is None):
        raise fail("special_area needs both valid_from and valid_to")
    if valid_from is not None and valid_to is not None and valid_to < valid_from:
        raise fail("valid_to is before valid_from")
    mmsi, ship_types = _allowed(props.get("allowed"), fail)
    raw_allowed = props.get("allowed")
    if kind is ZoneKind.MILITARY and not (
        isinstance(raw_allowed, Mapping) and "ship_types" in raw_allowed
    ):
        ship_types = MILITARY_DEFAULT_TYPES
    for key, (owner, upper) in OFFSETS.items():
        if key in props and props[key] is not None:
            if kind is not owner:
                raise fail(f"{key} applies to {owner.value} zones only")
            _number(props, key, fail, upper=upper)
    if props.get("recurrence") is not None:
        check_recurrence(props["recurrence"], fail)
    if props.get("operator") is not None and not isinstance(props.get("operator"), str):
        raise fail("operator must be a string")
    distance_m = _number(props, "distance_m", fail, upper=MAX_DISTANCE_M)
    if kind is ZoneKind.BATHER_BEACH and distance_m is not None and distance_m < SAIL_BAND_M:
        raise fail(f"distance_m {distance_m:g} is inside the {SAIL_BAND_M:g} m oar/sail band")
    anchoring = props.get("anchoring_prohibited", kind is ZoneKind.ACCESS_CHANNEL)
    if not isinstance(anchoring, bool):
        raise fail("anchoring_prohibited must be true or false")
    if version is None:
        version = props.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise fail("version must be a positive integer")
    return Zone(
        id=zid,
        kind=kind,
        geometry=geometry,
        name=_text(props, "name", fail),
        distance_m=distance_m,
        valid_from=valid_from,
        valid_to=valid_to,
        allowed_mmsi=mmsi,
        allowed_ship_types=ship_types,
        anchoring_prohibited=anchoring,
        max_dwell_min=_number(props, "max_dwell_min", fail, upper=math.inf, positive=True),
        authority=_text(props, "authority", fail),
        notice=_text(props, "notice", fail),
        source=_text(props, "source", fail),
        version=version,
        properties={k: v for k, v in props.items() if k not in _KNOWN},
    )


def zone_to_feature(zone: Zone) -> dict[str, Any]:
    """The zone as a GeoJSON Feature with the contract's properties (parses back equal)."""
    props: dict[str, Any] = dict(zone.properties)
    props["id"] = zone.id
    props["kind"] = zone.kind.value
    optional: dict[str, Any] = {
        "name": zone.name,
        "distance_m": zone.distance_m,
        "valid_from": zone.valid_from.isoformat() if zone.valid_from else None,
        "valid_to": zone.valid_to.isoformat() if zone.valid_to else None,
        "max_dwell_min": zone.max_dwell_min,
        "authority": zone.authority,
        "notice": zone.notice,
        "source": zone.source,
    }
    props.update({k: v for k, v in optional.items() if v is not None})
    if zone.allowed_mmsi or zone.allowed_ship_types or zone.kind is ZoneKind.MILITARY:
        # a military zone always says its ship types: absent means the default
        props["allowed"] = {
            "mmsi": sorted(zone.allowed_mmsi),
            "ship_types": sorted(zone.allowed_ship_types),
        }
    props["anchoring_prohibited"] = zone.anchoring_prohibited
    if zone.version != 1:
        props["version"] = zone.version
    return {
        "type": "Feature",
        "id": zone.id,
        "geometry": mapping(zone.geometry),
        "properties": props,
    }


def _geometry(raw: Any, kind: ZoneKind, fail: _Fail) -> BaseGeometry:
    if not isinstance(raw, Mapping) or "type" not in raw:
        raise fail("missing geometry")
    gtype = raw.get("type")
    if gtype not in GEOMETRY_TYPES[kind]:
        allowed = ", ".join(sorted(GEOMETRY_TYPES[kind]))
        raise fail(f"geometry {gtype} is not one {kind.value} takes ({allowed})")
    _check_rings(raw, fail)
    try:
        geom = shape(dict(raw))
    except Exception as exc:  # shapely raises several types for malformed coordinates
        raise fail(f"malformed {gtype} coordinates: {str(exc).strip()}") from None
    geom = shapely.force_2d(geom)
    if geom.is_empty:
        raise fail(f"empty {gtype}")
    coords = shapely.get_coordinates(geom)
    if not (coords == coords).all():
        raise fail("coordinates are not numbers (NaN)")
    bad = ~lonlat_in_range(coords[:, 0], coords[:, 1])
    if bad.any():
        lon, lat = coords[bad.argmax()]
        raise fail(f"coordinate out of range (lon {lon}, lat {lat}); expected lon/lat in WGS84")
    if not shapely.is_valid(geom):
        raise fail(f"invalid geometry: {shapely.is_valid_reason(geom)}")
    if gtype in ("LineString", "MultiLineString") and not shapely.is_simple(geom):
        raise fail("self-intersecting baseline (a surf line must not cross itself)")
    return geom


def _check_rings(raw: Mapping[str, Any], fail: _Fail) -> None:
    """RFC 7946 rings are closed with at least four positions (shapely would close them)."""
    coords = raw.get("coordinates")
    polys = [coords] if raw.get("type") == "Polygon" else coords
    if raw.get("type") not in _AREA or not isinstance(polys, list):
        return
    for poly in polys:
        for ring in poly if isinstance(poly, list) else []:
            if not isinstance(ring, list) or len(ring) < 4 or ring[0] != ring[-1]:
                raise fail("malformed Polygon: each ring must be closed, with 4 or more positions")


def _instant(props: Mapping[str, Any], key: str, fail: _Fail) -> datetime | None:
    raw = props.get(key)
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise fail(f"{key} must be an ISO 8601 string")
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        raise fail(f"{key} {raw!r} is not an ISO 8601 instant") from None
    if value.tzinfo is None or value.utcoffset() is None:
        raise fail(f"{key} {raw!r} has no UTC offset (write Z or +00:00)")
    # compared in UTC: 1970-01-01T00:30+01:00 is still 1969 (docs/operations.md)
    if not EARLIEST <= value < AFTER_LATEST:
        raise fail(f"{key} {raw!r} is outside 1970-2100 (UTC)")
    return value


def _number(
    props: Mapping[str, Any], key: str, fail: _Fail, *, upper: float, positive: bool = False
) -> float | None:
    raw = props.get(key)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        raise fail(f"{key} must be a number")
    if raw < 0 or (positive and raw == 0):
        raise fail(f"{key} must be {'positive' if positive else 'zero or more'}, got {raw}")
    if raw > upper:
        raise fail(f"{key} {raw} is beyond {upper:g}")
    return float(raw)


def _text(props: Mapping[str, Any], key: str, fail: _Fail) -> str | None:
    raw = props.get(key)
    if raw is not None and not isinstance(raw, str):
        raise fail(f"{key} must be a string")
    return raw


def _allowed(raw: Any, fail: _Fail) -> tuple[frozenset[int], frozenset[int]]:
    if raw is None:
        return frozenset(), frozenset()
    if not isinstance(raw, Mapping):
        raise fail("allowed must be an object {mmsi: [...], ship_types: [...]}")
    extra = set(raw) - {"mmsi", "ship_types"}
    if extra:
        raise fail(f"allowed has unknown keys {sorted(extra)}")
    out: list[frozenset[int]] = []
    for key, lo, hi in (("mmsi", 1, 999_999_999), ("ship_types", 0, 99)):
        values = raw.get(key, [])
        if not isinstance(values, list):
            raise fail(f"allowed.{key} must be a list of integers")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise fail(f"allowed.{key} holds {v!r}; expected integers {lo}..{hi}")
        out.append(frozenset(values))
    return out[0], out[1]
