"""Recurring validity: a zone (or a Notice to Mariners' special area) in force only at
some local times, e.g. bathers' hours, the summer season, weekends.

A zone's ``recurrence`` property (inside ``valid_from``..``valid_to`` when those are
given too)::

    {"tz": "America/Sao_Paulo",          # IANA zone of the local times (default)
     "months": [12, 1, 2, 3],            # 1-12; absent = every month
     "weekdays": [6, 7],                 # ISO 1 = Monday .. 7 = Sunday; absent = all
     "hours": ["08:00", "18:00"]}        # local start and end; end < start wraps midnight

Bather strips apply "where and when bathers are" (0211): fixed local hours stand in for
daylight, because the operator who knows the beach sets them, not an ephemeris.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_TZ = "America/Sao_Paulo"
_KEYS = frozenset({"tz", "months", "weekdays", "hours"})


def _minutes(text: Any, fail: Callable[[str], Exception]) -> int:
    if not isinstance(text, str) or len(text) != 5 or text[2] != ":":
        raise fail(f"recurrence hours {text!r}: expected HH:MM")
    hh, mm = text[:2], text[3:]
    # ASCII only: str.isdigit also says yes to superscripts, which int() then refuses
    if not (text.isascii() and hh.isdigit() and mm.isdigit()) or int(hh) > 24 or int(mm) > 59:
        raise fail(f"recurrence hours {text!r}: expected HH:MM")
    return min(int(hh) * 60 + int(mm), 24 * 60)


def check(raw: Any, fail: Callable[[str], Exception]) -> None:
    """Validate a ``recurrence`` object (raises ``fail(reason)``)."""
    if not isinstance(raw, Mapping):
        raise fail("recurrence must be an object {tz, months, weekdays, hours}")
    extra = set(raw) - _KEYS
    if extra:
        raise fail(f"recurrence has unknown keys {sorted(extra)[:5]}")
    tz = raw.get("tz", DEFAULT_TZ)
    try:
        if not isinstance(tz, str) or len(tz) > 64:
            raise ValueError
        ZoneInfo(tz)
    except (ValueError, ZoneInfoNotFoundError):
        raise fail(f"recurrence tz {str(tz)[:64]!r} is not an IANA time zone") from None
    for key, lo, hi in (("months", 1, 12), ("weekdays", 1, 7)):
        values = raw.get(key)
        if values is None:
            continue
        if not isinstance(values, list) or not values or len(values) > 12:
            raise fail(f"recurrence {key} must be a non-empty list")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise fail(f"recurrence {key} holds {v!r}; expected integers {lo}..{hi}")
    hours = raw.get("hours")
    if hours is not None:
        if not isinstance(hours, list) or len(hours) != 2:
            raise fail("recurrence hours must be [start, end] as HH:MM")
        if _minutes(hours[0], fail) == _minutes(hours[1], fail):
            raise fail("recurrence hours start and end are the same")


def matches(raw: Mapping[str, Any], t: float) -> bool:
    """Whether Unix time ``t`` falls in the (validated) recurrence."""
    local = datetime.fromtimestamp(t, ZoneInfo(str(raw.get("tz", DEFAULT_TZ))))
    months = raw.get("months")
    if months is not None and local.month not in months:
        return False
    weekdays = raw.get("weekdays")
    if weekdays is not None and local.isoweekday() not in weekdays:
        return False
    hours = raw.get("hours")
    if hours is None:
        return True

    def fail(reason: str) -> Exception:
        return ValueError(reason)

    start, end = _minutes(hours[0], fail), _minutes(hours[1], fail)
    now = local.hour * 60 + local.minute
    return start <= now < end if start < end else (now >= start or now < end)
