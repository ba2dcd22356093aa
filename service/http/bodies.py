"""Checks on uploaded JSON that no schema expresses: finite numbers only, text every store
can keep, zone ids a URL can name, and coordinates that are numbers.

The zone catalogue validates meaning; these refuse what would otherwise be stored and then
break reads (a NaN a SQLite row keeps but JSON cannot carry back, a lone surrogate
PostgreSQL cannot encode, an id with ``/`` no route can address).
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any

from vigia.service.errors import RequestInvalidError

#: an id longer than this is no name an officer types; the routes' path limit too
MAX_ZONE_ID = 200
#: integer literals with more digits than this are no coordinate or property anyone meant
_MAX_INT_DIGITS = 30


def _refuse_constant(name: str) -> Any:
    raise RequestInvalidError(f"{name} is not a number JSON allows; use finite numbers")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise RequestInvalidError(f"{text[:40]} is out of range for a number")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        raise RequestInvalidError(f"an integer of {len(text)} digits is out of range")
    return int(text)


def _text_ok(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_text(obj: Any) -> None:
    """Refuse any key or string holding a lone surrogate (no store can keep one)."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not _text_ok(item):
                raise RequestInvalidError("the body holds text that is not valid Unicode")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def decode_upload(raw: bytes) -> dict[str, Any]:
    """A JSON object of finite numbers and valid text, or a RequestInvalidError."""
    try:
        obj = json.loads(
            raw,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except (ValueError, RecursionError):
        raise RequestInvalidError("the body is not valid JSON") from None
    if not isinstance(obj, dict):
        raise RequestInvalidError("the body must be a GeoJSON Feature or FeatureCollection")
    check_text(obj)
    return obj


def check_zone_id(zone_id: Any) -> None:
    """Refuse an id no route could address or no officer could read back."""
    if not isinstance(zone_id, str):
        return  # the catalogue says what a zone id must be
    if not zone_id.strip():
        raise RequestInvalidError("a zone id cannot be empty")
    if len(zone_id) > MAX_ZONE_ID:
        raise RequestInvalidError(f"a zone id has at most {MAX_ZONE_ID} characters")
    if "/" in zone_id or "\\" in zone_id:
        raise RequestInvalidError(f"zone id {zone_id!r} holds a slash")
    if not _text_ok(zone_id) or any(unicodedata.category(c) in ("Cc", "Cs") for c in zone_id):
        raise RequestInvalidError("a zone id cannot hold control characters or surrogates")


def check_zone_ids(features: list[Any]) -> None:
    """Every feature's id (``properties.id``, else ``id``) passes ``check_zone_id``."""
    for feat in features:
        if not isinstance(feat, dict):
            continue
        props = feat.get("properties")
        zid = props.get("id") if isinstance(props, dict) and "id" in props else feat.get("id")
        check_zone_id(zid)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _count_vertices(coords: Any) -> int:
    """Vertices in a coordinates array; every leaf must be a number (not a boolean,
    string or null, which JSON would carry and shapely would coerce)."""
    stack, n = [coords], 0
    while stack:
        item = stack.pop()
        if not isinstance(item, list):
            raise RequestInvalidError("geometry coordinates must be arrays of numbers")
        if item and not isinstance(item[0], list):
            if not all(_is_number(c) for c in item):
                raise RequestInvalidError("geometry coordinates must be numbers")
            n += 1
        else:
            stack.extend(item)
    return n


def geometry_vertices(geometry: Any) -> int:
    """Vertices in a GeoJSON geometry, refusing coordinates that are not numbers."""
    if not isinstance(geometry, dict):
        return 0
    if geometry.get("type") == "GeometryCollection":
        members = geometry.get("geometries")
        return sum(geometry_vertices(g) for g in members) if isinstance(members, list) else 0
    if "coordinates" not in geometry:
        return 0
    return _count_vertices(geometry["coordinates"])
