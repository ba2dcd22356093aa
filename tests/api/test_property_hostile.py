"""The property run again, each drawn request sent with its numbers non-finite and with its
strings huge: no such input makes a 5xx."""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from tests.api.conftest import Api, lazy_schema

pytestmark = [pytest.mark.postgis, pytest.mark.slow]

schema = lazy_schema()


HUGE = "x" * 100_000
#: a URL part long enough to hurt, short enough that a whole query fits a request line
LONG = "x" * 2_000
HOSTILE_ITEMS = 4


def _hostile(value: Any, mode: str, depth: int = 0, *, in_json: bool = False) -> Any:
    """``value`` with every number made non-finite (``mode`` "nonfinite") or every string
    made longer (``mode`` "huge"): 100,000 characters and a lone surrogate (which only
    JSON's escapes can carry) in a body, 2,000 characters in a path or query."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return (math.nan, math.inf, -math.inf)[depth % 3] if mode == "nonfinite" else value
    if isinstance(value, str):
        grown = value + HUGE + "\ud800" if in_json else value + LONG
        return grown if mode == "huge" else value
    if isinstance(value, dict):
        return {
            k: _hostile(v, mode, depth + i + 1, in_json=in_json)
            for i, (k, v) in enumerate(value.items())
        }
    if isinstance(value, list):
        # the first few items turn hostile, the rest stay as drawn: a list of hundreds of
        # 100,000-character items only tests the body limit, and costs a minute a case
        return [
            _hostile(v, mode, depth + i + 1, in_json=in_json) if i < HOSTILE_ITEMS else v
            for i, v in enumerate(value)
        ]
    return value


@schema.parametrize()
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
def test_non_finite_numbers_and_huge_strings_make_no_server_error(
    case: schemathesis.Case, api: Api
) -> None:
    # schemathesis draws valid-shaped requests; each is then sent twice more, with its
    # numbers non-finite (JSON NaN/Infinity, query "nan"/"inf") and with its strings huge
    for mode in ("nonfinite", "huge"):
        path = case.path
        for name, value in (case.path_parameters or {}).items():
            path = path.replace("{" + name + "}", quote(str(_hostile(value, mode)), safe=""))
        # str() of a non-finite number is "nan", "inf" or "-inf": what a careless client sends
        query = {k: str(_hostile(v, mode)) for k, v in (case.query or {}).items()}
        headers = dict(api.h("admin"))
        content = None
        if isinstance(case.body, dict | list):
            content = json.dumps(_hostile(case.body, mode, in_json=True), allow_nan=True)
            headers["Content-Type"] = case.media_type or "application/json"
        try:
            response = api.client.request(
                case.method, path, params=query, content=content, headers=headers
            )
        except httpx.InvalidURL:
            continue  # longer than any client library sends (httpx: 64 kB); nothing to test

        assert response.status_code < 500, (mode, case.method, path, response.text[:500])
        if response.status_code >= 400:
            assert response.headers["content-type"].startswith("application/problem+json")
