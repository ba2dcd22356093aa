"""CQL2 filters (OGC API - Features Part 3) as SQLAlchemy conditions.

The HTTP layer parses ``filter`` with the ``cql2`` library and hands over the standard
CQL2 JSON tree; this module turns that tree into one boolean SQL condition over the
columns a collection declares (``fields``), so a filter runs whole in the database and
``numberMatched``, ``limit`` and the ``next`` links stay exact. A property, operator or
value it cannot translate exactly is a ``FilterInvalidError`` naming it (a 400), never a
silently wider answer.

Times are Unix seconds on both stores. A date (``DATE('2026-01-10')`` or a bare
``'2026-01-10'``) is that whole UTC day, as ``datetime`` takes it. Spatial functions run
as PostGIS ``ST_*`` calls; SQLite has none, so there the bbox columns narrow and a SQL
function backed by shapely decides exactly (``sqlite_spatial``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal

import shapely
from shapely.geometry import box, shape
from sqlalchemy import ColumnElement, and_, false, func, literal, not_, or_, true

from vigia.service.db.sqlite_spatial import RELATE_FN, RELATE_POINT_FN, SPATIAL_OPS
from vigia.service.errors import FilterInvalidError

Kind = Literal["string", "number", "datetime", "geometry"]
#: a parsed filter as CQL2 JSON: an operation object, or a bare ``true``/``false``
Cql2 = dict[str, Any] | bool
Cond = ColumnElement[bool]
#: an open end of a temporal interval (``..``) or of a lead still going on
_FAR_PAST, _FAR_FUTURE = -1e300, 1e300


@dataclass(frozen=True, slots=True)
class Field:
    """One queryable: its type and the column (or SQL expression) holding it. A geometry
    names its PostGIS column, its bbox columns, and either a WKB blob column (SQLite) or
    that it is a point on ``box``'s first two columns."""

    kind: Kind
    column: Any
    box: tuple[Any, Any, Any, Any] | None = None
    wkb: Any = None


Fields = Mapping[str, Field]
_MIRROR = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_SPATIAL_MIRROR = {"s_within": "s_contains", "s_contains": "s_within"}


def to_condition(expr: Any, fields: Fields, pg: bool) -> Cond:
    """The SQL condition of a CQL2 JSON expression over ``fields``."""
    return _Translator(fields, pg).cond(expr)


class _Translator:
    def __init__(self, fields: Fields, pg: bool) -> None:
        self.fields = fields
        self.pg = pg

    # ----- structure
    def cond(self, expr: Any) -> Cond:
        if isinstance(expr, bool):
            return true() if expr else false()
        if not isinstance(expr, dict) or "op" not in expr:
            raise FilterInvalidError(f"the filter is not a condition: {_show(expr)}")
        op, args = str(expr["op"]).lower(), list(expr.get("args") or [])
        if op in ("and", "or"):
            parts = [self.cond(a) for a in args]
            return and_(*parts) if op == "and" else or_(*parts)
        if op == "not":
            return not_(self.cond(_one(args, op)))
        handler = self._handlers().get(op)
        if handler is None:
            raise FilterInvalidError(f"unsupported operator or function {expr['op']!r}")
        return handler(op, args)

    def _handlers(self) -> dict[str, Callable[[str, list[Any]], Cond]]:
        table: dict[str, Callable[[str, list[Any]], Cond]] = dict.fromkeys(_MIRROR, self._compare)
        table |= {"between": self._between, "in": self._in, "like": self._like,
                  "isnull": self._is_null}  # fmt: skip
        table |= dict.fromkeys(SPATIAL_OPS, self._spatial)
        table |= dict.fromkeys(_TEMPORAL, self._temporal)
        return table

    def field(self, arg: Any) -> tuple[str, Field] | None:
        """The queryable an argument names (None for a literal)."""
        if not (isinstance(arg, dict) and "property" in arg):
            if isinstance(arg, dict) and "op" in arg:
                raise FilterInvalidError(f"unsupported operator or function {arg['op']!r}")
            return None
        name = str(arg["property"])
        found = self.fields.get(name)
        if found is None:
            known = ", ".join(sorted(self.fields))
            raise FilterInvalidError(f"unknown property {name!r}; the queryables are {known}")
        return name, found

    # ----- comparisons
    def _compare(self, op: str, args: list[Any]) -> Cond:
        lhs, rhs = _two(args, op)
        left, right = self.field(lhs), self.field(rhs)
        if left is None and right is not None:
            lhs, rhs, left, right, op = rhs, lhs, right, left, _MIRROR[op]
        if left is None:
            raise FilterInvalidError(f"{op!r} needs a property on one side")
        name, f = left
        col = _scalar_column(name, f)
        if right is not None:
            if right[1].kind != f.kind:
                raise FilterInvalidError(f"{name!r} and {right[0]!r} are not of one type")
            return _binary(op, col, _scalar_column(*right))
        if f.kind == "datetime":
            lo, hi = _instant_bounds(rhs, name)
            return _time_compare(op, col, lo, hi)
        return _binary(op, col, _value(rhs, name, f.kind))

    def _between(self, op: str, args: list[Any]) -> Cond:
        if len(args) != 3:
            raise FilterInvalidError("BETWEEN needs a property and two bounds")
        found = self.field(args[0])
        if found is None:
            raise FilterInvalidError("BETWEEN needs a property on its left")
        name, f = found
        col = _scalar_column(name, f)
        if f.kind == "datetime":
            low, high = _instant_bounds(args[1], name)[0], _instant_bounds(args[2], name)[1]
        else:
            low, high = _value(args[1], name, f.kind), _value(args[2], name, f.kind)
        return and_(col >= low, col <= high)

    def _in(self, op: str, args: list[Any]) -> Cond:
        lhs, values = _two(args, op)
        found = self.field(lhs)
        if found is None or not isinstance(values, list):
            raise FilterInvalidError("IN needs a property and a list of values")
        name, f = found
        col = _scalar_column(name, f)
        if f.kind == "datetime":
            return or_(false(), *(_time_compare("=", col, *_instant_bounds(v, name))
                                  for v in values))  # fmt: skip
        matched: Cond = col.in_([_value(v, name, f.kind) for v in values])
        return matched

    def _like(self, op: str, args: list[Any]) -> Cond:
        lhs, pattern = _two(args, op)
        found = self.field(lhs)
        if found is None or found[1].kind != "string" or not isinstance(pattern, str):
            raise FilterInvalidError("LIKE needs a text property and a text pattern")
        col, pattern = found[1].column, _text(pattern)
        if self.pg:
            return col.like(_checked_pattern(pattern), escape="\\")  # type: ignore[no-any-return]
        # SQLite's LIKE ignores case; CQL2's does not: GLOB is its case-sensitive twin
        return col.op("GLOB")(_glob(pattern))  # type: ignore[no-any-return]

    def _is_null(self, op: str, args: list[Any]) -> Cond:
        found = self.field(_one(args, "isNull"))
        if found is None:
            raise FilterInvalidError("IS NULL needs a property")
        f = found[1]
        col = f.column if f.kind != "geometry" else (f.wkb if f.wkb is not None else f.box[0])  # type: ignore[index]
        return col.is_(None)  # type: ignore[no-any-return]

    # ----- spatial
    def _spatial(self, op: str, args: list[Any]) -> Cond:
        lhs, rhs = _two(args, op)
        if self.field(lhs) is None and self.field(rhs) is not None:
            lhs, rhs, op = rhs, lhs, _SPATIAL_MIRROR.get(op, op)
        found = self.field(lhs)
        if found is None or found[1].kind != "geometry" or self.field(rhs) is not None:
            raise FilterInvalidError(f"{op.upper()} needs the geometry property and a geometry")
        f, geom = found[1], _geometry(rhs)
        if op == "s_disjoint":
            return not_(self._spatial("s_intersects", [lhs, rhs]))
        if self.pg:
            literal_geom = func.ST_GeomFromText(literal(shapely.to_wkt(geom)), 4326)
            return getattr(func, SPATIAL_OPS[op])(f.column, literal_geom)  # type: ignore[no-any-return]
        assert f.box is not None
        x0, y0, x1, y1 = f.box
        qx0, qy0, qx1, qy1 = (float(v) for v in shapely.bounds(geom))
        # every predicate but disjoint implies the boxes meet: a cheap, exact narrowing
        boxes = and_(x1 >= qx0, x0 <= qx1, y1 >= qy0, y0 <= qy1)
        wkb = literal(shapely.to_wkb(geom))
        exact = (getattr(func, RELATE_FN)(op, f.wkb, wkb) if f.wkb is not None
                 else getattr(func, RELATE_POINT_FN)(op, x0, y0, wkb))  # fmt: skip
        return and_(boxes, exact == 1)

    # ----- temporal
    def _temporal(self, op: str, args: list[Any]) -> Cond:
        a, b = (self._span(x) for x in _two(args, op))
        return _TEMPORAL[op](a[0], a[1], b[0], b[1])

    def _span(self, arg: Any) -> tuple[Any, Any]:
        """A temporal operand as (start, end): an instant's ends are equal; a day is its
        first and last instant; an open end or a lead still going on is far away."""
        if isinstance(arg, dict) and "interval" in arg:
            ends = arg["interval"]
            if not isinstance(ends, list) or len(ends) != 2:
                raise FilterInvalidError("INTERVAL needs a start and an end")
            return self._end(ends[0], 0, _FAR_PAST), self._end(ends[1], 1, _FAR_FUTURE)
        found = self.field(arg)
        if found is not None:
            col = _scalar_column(*found, want="datetime")
            return col, col
        lo, hi = _instant_bounds(arg, "a temporal operand")
        # bound literals, so that two literals still compare in SQL, not in Python
        return literal(lo), literal(hi)

    def _end(self, arg: Any, side: int, far: float) -> Any:
        if arg == "..":
            return literal(far)
        found = self.field(arg)
        if found is not None:
            return func.coalesce(_scalar_column(*found, want="datetime"), far)
        return literal(_instant_bounds(arg, "an interval end")[side])


def _binary(op: str, a: Any, b: Any) -> Cond:
    ops: dict[str, Callable[[Any, Any], Cond]] = {
        "=": lambda x, y: x == y, "<>": lambda x, y: x != y, "<": lambda x, y: x < y,
        "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
    }  # fmt: skip
    return ops[op](a, b)


def _time_compare(op: str, col: Any, lo: float, hi: float) -> Cond:
    """``col op L`` where L spans [lo, hi] (one instant, or a whole day): the day is
    after an instant before it and before one after it, and equal to any inside it."""
    table: dict[str, Callable[[], Cond]] = {
        "=": lambda: and_(col >= lo, col <= hi), "<>": lambda: or_(col < lo, col > hi),
        "<": lambda: col < lo, "<=": lambda: col <= hi,
        ">": lambda: col > hi, ">=": lambda: col >= lo,
    }  # fmt: skip
    return table[op]()


# CQL2 section 6.4.6 (Allen's relations), each on (a start, a end, b start, b end)
_TEMPORAL: dict[str, Callable[[Any, Any, Any, Any], Cond]] = {
    "t_after": lambda as_, ae, bs, be: as_ > be,
    "t_before": lambda as_, ae, bs, be: ae < bs,
    "t_contains": lambda as_, ae, bs, be: and_(as_ < bs, ae > be),
    "t_disjoint": lambda as_, ae, bs, be: or_(as_ > be, ae < bs),
    "t_during": lambda as_, ae, bs, be: and_(as_ > bs, ae < be),
    "t_equals": lambda as_, ae, bs, be: and_(as_ == bs, ae == be),
    "t_finishedby": lambda as_, ae, bs, be: and_(as_ < bs, ae == be),
    "t_finishes": lambda as_, ae, bs, be: and_(as_ > bs, ae == be),
    "t_intersects": lambda as_, ae, bs, be: and_(as_ <= be, ae >= bs),
    "t_meets": lambda as_, ae, bs, be: ae == bs,
    "t_metby": lambda as_, ae, bs, be: as_ == be,
    "t_overlappedby": lambda as_, ae, bs, be: and_(as_ > bs, as_ < be, ae > be),
    "t_overlaps": lambda as_, ae, bs, be: and_(as_ < bs, ae > bs, ae < be),
    "t_startedby": lambda as_, ae, bs, be: and_(as_ == bs, ae > be),
    "t_starts": lambda as_, ae, bs, be: and_(as_ == bs, ae < be),
}


def _scalar_column(name: str, f: Field, want: Kind | None = None) -> Any:
    if f.kind == "geometry" or (want is not None and f.kind != want):
        raise FilterInvalidError(f"property {name!r} is a {f.kind}, not usable here")
    return f.column


def _one(args: Sequence[Any], op: str) -> Any:
    if len(args) != 1:
        raise FilterInvalidError(f"{op} takes one argument, got {len(args)}")
    return args[0]


def _two(args: Sequence[Any], op: str) -> tuple[Any, Any]:
    if len(args) != 2:
        raise FilterInvalidError(f"{op!r} takes two arguments, got {len(args)}")
    return args[0], args[1]


def _show(value: Any) -> str:
    return repr(value)[:80]


def _value(arg: Any, name: str, kind: Kind) -> Any:
    """A literal compared with property ``name``, of the property's type."""
    if kind == "number":
        if isinstance(arg, bool) or not isinstance(arg, int | float) or not math.isfinite(arg):
            raise FilterInvalidError(f"property {name!r} is a number; got {_show(arg)}")
        return int(arg) if float(arg).is_integer() and abs(arg) < 2**53 else float(arg)
    if not isinstance(arg, str):
        raise FilterInvalidError(f"property {name!r} is text; got {_show(arg)}")
    return _text(arg)


def _text(value: str) -> str:
    # PostgreSQL refuses a NUL in any text: a client's mistake, not a server error
    if "\x00" in value:
        raise FilterInvalidError("a text in the filter contains a NUL character")
    return value


def _instant_bounds(arg: Any, name: str) -> tuple[float, float]:
    """A time literal as its first and last instant (equal unless it is a date)."""
    text = arg
    if isinstance(arg, dict) and len(arg) == 1 and ("timestamp" in arg or "date" in arg):
        text = next(iter(arg.values()))
    if not isinstance(text, str):
        raise FilterInvalidError(f"{name} needs a time; got {_show(arg)}")
    # GDAL's OAPIF driver sends the date it was given as `2025-11-24T`: that date
    stripped = text.strip().removesuffix("T")
    try:
        if len(stripped) == 10:
            day = date.fromisoformat(stripped)
            start = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
            return start, math.nextafter(start + 86_400.0, -math.inf)
        moment = datetime.fromisoformat(stripped.replace("z", "Z"))
    except (ValueError, OverflowError):
        raise FilterInvalidError(f"{name}: {text[:60]!r} is not an RFC 3339 time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    t = moment.timestamp()
    return t, t


def _geometry(arg: Any) -> shapely.Geometry:
    """A GeoJSON geometry or ``BBOX`` literal (CRS84) as a valid shapely geometry."""
    try:
        if isinstance(arg, dict) and "bbox" in arg:
            nums = [float(v) for v in arg["bbox"]]
            if len(nums) == 6:
                nums = [nums[0], nums[1], nums[3], nums[4]]
            geom: shapely.Geometry = box(nums[0], nums[1], nums[2], nums[3])
        else:
            geom = shape(arg)
    except (TypeError, ValueError, KeyError, AttributeError, shapely.errors.GEOSException):
        raise FilterInvalidError(f"not a geometry: {_show(arg)}") from None
    if not all(math.isfinite(v) for v in shapely.bounds(geom)):
        raise FilterInvalidError("the filter's geometry has coordinates that are not finite")
    if shapely.is_empty(geom) or not shapely.is_valid(geom):
        reason = shapely.is_valid_reason(geom)
        raise FilterInvalidError(f"the filter's geometry is not valid ({reason})")
    return geom


def _checked_pattern(pattern: str) -> str:
    escaped = False
    for ch in pattern:
        escaped = not escaped and ch == "\\"
    if escaped:
        raise FilterInvalidError("a LIKE pattern cannot end with its escape character")
    return pattern


def _glob(pattern: str) -> str:
    """A CQL2 LIKE pattern (``%``, ``_``, ``\\`` escapes) as a SQLite GLOB pattern."""
    out: list[str] = []
    chars = iter(_checked_pattern(pattern))
    for ch in chars:
        if ch == "\\":
            out.append(_glob_literal(next(chars)))
        elif ch == "%":
            out.append("*")
        elif ch == "_":
            out.append("?")
        else:
            out.append(_glob_literal(ch))
    return "".join(out)


def _glob_literal(ch: str) -> str:
    return f"[{ch}]" if ch in "*?[" else ch
