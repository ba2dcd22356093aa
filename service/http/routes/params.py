"""Query-parameter parsing shared by the routers: bbox, times, intervals, paging links."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Annotated, Any, TypeVar
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import AfterValidator

from vigia.ingest.mmsi import is_valid_mmsi
from vigia.ingest.units import valid_lonlat
from vigia.service.db.protocol import BBox
from vigia.service.errors import RequestInvalidError
from vigia.service.settings import Settings

GEOJSON_MEDIA_TYPE = "application/geo+json"
BBOX_DESCRIPTION = (
    "min lon, min lat, max lon, max lat in WGS84 degrees, comma-separated "
    "(OGC API - Features); e.g. -43.3,-23.1,-43.0,-22.8"
)
TIME_DESCRIPTION = "ISO 8601 instant (UTC if no offset) or Unix seconds, 1970 to 2100"
# the one bound on paging offsets: far past any real collection, small enough for SQL
MAX_OFFSET = 10_000_000
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="items to skip")]
_DATE_T = re.compile(r"\d{4}-\d{2}-\d{2}T")


def _station_mmsi(mmsi: int) -> int:
    # the rule ingest and the store keep: an MMSI no report is stored under is a 422
    if not is_valid_mmsi(mmsi):
        raise ValueError("not an MMSI of a station (ITU-R M.585): never stored")
    return mmsi


#: a lead's id in a path
LeadId = Annotated[str, Path(max_length=200, description="the lead's stable id")]
#: a vessel's (or any station's) MMSI in a path
Mmsi = Annotated[
    int,
    Path(ge=1, le=999_999_999, description="the station's MMSI, nine digits (ITU-R M.585)"),
    AfterValidator(_station_mmsi),
]
#: times outside [1970, 2100) are no AIS report's and break date arithmetic near year 1
EARLIEST_T = 0.0
LATEST_T = 4_102_444_800.0


def _finite(obj: Any) -> Any:
    """``obj`` with every non-finite float as None (JSON has no NaN)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


class GeoJSONResponse(JSONResponse):
    """A JSON response served as ``application/geo+json``; a NaN kept in an old row is
    sent as null rather than failing the whole page."""

    media_type = GEOJSON_MEDIA_TYPE

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except ValueError:
            return super().render(_finite(content))


def public_base(request: Request) -> str:
    """The API's address without a trailing slash: the configured public URL, else (for
    development) the address the request came to."""
    configured: str | None = request.app.state.settings.api.public_url
    return configured if configured else str(request.base_url).rstrip("/")


def public_href(request: Request, path: str, query: str = "") -> str:
    """An absolute link to ``path`` (already percent-encoded) on the public address."""
    return public_base(request) + path + (f"?{query}" if query else "")


def _public_url(request: Request, **params: Any) -> str:
    """This request's own link on the public address, with ``params`` set in its query."""
    raw = request.scope.get("raw_path")
    # ASGI's raw_path has no query, but Starlette's test client before 0.37 (under the
    # lowest FastAPI we allow) put it there: cut it, or every next link repeats the query
    path = (
        raw.split(b"?", 1)[0].decode("latin-1")
        if isinstance(raw, bytes)
        else quote(request.url.path)
    )
    query = request.url.include_query_params(**params).query if params else request.url.query
    return public_href(request, path, query)


_Endpoint = TypeVar("_Endpoint", bound=Callable[..., Any])


def get_and_head(router: APIRouter, path: str, **options: Any) -> Callable[[_Endpoint], _Endpoint]:
    """Register a feature route for GET and HEAD (GIS clients probe with HEAD). HEAD is
    left out of the API document: it shares GET's operation, and two methods under one
    operation id would make the document invalid (FastAPI warns of duplicate ids)."""

    def register(endpoint: _Endpoint) -> _Endpoint:
        router.head(path, include_in_schema=False, **options)(endpoint)
        return router.get(path, **options)(endpoint)

    return register


def get_settings(request: Request) -> Settings:
    """The app's settings."""
    settings: Settings = request.app.state.settings
    return settings


def parse_bbox(text: str | None) -> BBox | None:
    """``minlon,minlat,maxlon,maxlat`` (a 6-number 3D bbox drops its heights)."""
    if text is None or text == "":
        return None
    parts = text.split(",")
    if len(parts) not in (4, 6):
        raise RequestInvalidError(f"bbox needs 4 comma-separated numbers, got {len(parts)}")
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        raise RequestInvalidError(f"bbox {text!r} is not a list of numbers") from None
    if not all(math.isfinite(n) for n in nums):
        raise RequestInvalidError("bbox values must be finite numbers")
    if len(nums) == 6:
        nums = [nums[0], nums[1], nums[3], nums[4]]
    x0, y0, x1, y1 = nums
    if not (valid_lonlat(x0, y0) and valid_lonlat(x1, y1)):
        raise RequestInvalidError("bbox is out of range: longitudes -180..180, latitudes -90..90")
    if y0 > y1:
        raise RequestInvalidError("bbox min lat is above its max lat")
    if x0 > x1:
        raise RequestInvalidError("bbox crossing the antimeridian is not supported")
    return (x0, y0, x1, y1)


def parse_time(text: str | None, name: str) -> float | None:
    """An ISO 8601 instant or Unix seconds, as Unix seconds."""
    if text is None or text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    else:
        if not math.isfinite(value):
            raise RequestInvalidError(f"{name} {text!r} is not a usable Unix time")
        return check_time_range(value, name, text)
    if _DATE_T.fullmatch(text.strip()):
        # GDAL's OAPIF driver turns a date literal of an attribute filter on the temporal
        # property (`t < '2025-11-24'`) into `datetime=../2025-11-24T`: that day's midnight
        text = text.strip() + "00:00:00"
    try:
        dt = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise RequestInvalidError(f"{name} {text!r} is not an ISO 8601 time") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        value = dt.timestamp()
    except (OverflowError, OSError, ValueError):
        raise RequestInvalidError(f"{name} {text!r} is out of range") from None
    return check_time_range(value, name, text)


def check_time_range(value: float, name: str, text: object) -> float:
    """``value`` (Unix seconds) if it lies in 1970..2100, else a RequestInvalidError."""
    if not EARLIEST_T <= value < LATEST_T:
        raise RequestInvalidError(f"{name} {text!s:.60} is outside 1970..2100")
    return value


def _day(text: str, name: str) -> tuple[float, float] | None:
    """A date-only ``text`` (``2024-03-01``) as that whole UTC day: its first instant and
    the last float before the next day, since the stores compare both ends inclusively
    (RFC 3339 has no date-only instant; OGC API clients such as QGIS send one to mean the
    day, and taken as midnight it silently matched almost nothing)."""
    stripped = text.strip()
    if len(stripped) != 10 or "T" in stripped:
        return None
    try:
        day = date.fromisoformat(stripped)
    except ValueError:
        return None
    start = check_time_range(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp(),
                             name, text)  # fmt: skip
    return start, math.nextafter(start + 86_400.0, -math.inf)


def parse_interval(text: str | None) -> tuple[float | None, float | None] | None:
    """OGC ``datetime`` as inclusive Unix bounds: an instant, or ``start/end`` with ``..``
    (or empty) for open ends. A date-only instant or bound stands for its whole UTC day:
    ``2024-03-01`` is that day, ``2024-03-01/..`` starts at its first second and
    ``../2024-03-01`` ends at its last."""
    if text is None or text == "":
        return None
    if "/" not in text:
        day = _day(text, "datetime")
        if day is not None:
            return day
        t = parse_time(text, "datetime")
        return (t, t)
    start_text, _, end_text = text.partition("/")
    if start_text in ("..", "") and end_text in ("..", ""):
        return (None, None)
    start_day = _day(start_text, "datetime start")
    end_day = _day(end_text, "datetime end")
    start = (
        None
        if start_text in ("", "..")
        else start_day[0]
        if start_day
        else parse_time(start_text, "datetime start")
    )
    end = (
        None
        if end_text in ("", "..")
        else end_day[1]
        if end_day
        else parse_time(end_text, "datetime end")
    )
    if start is not None and end is not None and start > end:
        raise RequestInvalidError("datetime interval ends before it starts")
    return (start, end)


def check_order(start: float | None, end: float | None) -> None:
    """Refuse a time range that ends before it starts."""
    if start is not None and end is not None and start > end:
        raise RequestInvalidError("end is before start")


def clamp_limit(limit: int | None, settings: Settings) -> int:
    """The page size asked for, bounded by the configured maximum (OGC: servers clamp)."""
    if limit is None:
        return settings.api.default_page_limit
    return min(limit, settings.api.max_page_limit)


def page_links(
    request: Request,
    offset: int,
    limit: int,
    returned: int,
    total: int | None,
    media_type: str = GEOJSON_MEDIA_TYPE,
) -> list[dict[str, Any]]:
    """``self``, and ``next``/``prev`` links when there are such pages, each with its
    ``type`` (OGC API - Features Part 1, /req/core/fc-links: every page link says what it
    answers with: GeoJSON unless the page is plain JSON)."""
    kind = media_type
    links: list[dict[str, Any]] = [{"rel": "self", "href": _public_url(request), "type": kind}]
    more = offset + returned < total if total is not None else returned >= limit
    if more and returned > 0:
        href = _public_url(request, offset=offset + returned, limit=limit)
        links.append({"rel": "next", "href": href, "type": kind})
    if offset > 0:
        href = _public_url(request, offset=max(0, offset - limit), limit=limit)
        links.append({"rel": "prev", "href": href, "type": kind})
    return links


def feature_page(
    request: Request,
    features: list[dict[str, Any]],
    offset: int,
    limit: int,
    total: int | None,
) -> GeoJSONResponse:
    """One page of an OGC API - Features collection (``numberMatched`` when known)."""
    body: dict[str, Any] = {"type": "FeatureCollection", "features": features}
    if total is not None:
        body["numberMatched"] = total
    body["numberReturned"] = len(features)
    body["links"] = page_links(request, offset, limit, len(features), total)
    return GeoJSONResponse(body)
