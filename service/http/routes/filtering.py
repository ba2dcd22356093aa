"""OGC API - Features Part 3 (Filtering): the ``filter``, ``filter-lang`` and
``filter-crs`` query parameters of every items route, parsed by the ``cql2`` library
(CQL2 text or JSON) into the standard CQL2 JSON tree the stores translate to SQL
(``service/db/cql_sql.py``).

``get_filter`` is an ordinary FastAPI dependency, so a deployment can override it
(``app.dependency_overrides``) to add or restrict what a filter may say, as tipg does.
"""

from __future__ import annotations

import json
from typing import Annotated

import cql2
from fastapi import Depends, Query

from vigia.service.db.cql_sql import Cql2
from vigia.service.errors import FilterInvalidError

CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
#: what a filter may be at most: a GIS client's filter is a few hundred characters
MAX_FILTER_CHARS = 8_000
_CQL2 = "http://www.opengis.net/spec/cql2/1.0/conf/"
_PART3 = "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/"
#: the Part 3 and CQL2 conformance classes the filter implements, each tested
FILTER_CONFORMANCE = [
    f"{_PART3}queryables",
    f"{_PART3}filter",
    f"{_PART3}features-filter",
    f"{_CQL2}cql2-text",
    f"{_CQL2}cql2-json",
    f"{_CQL2}basic-cql2",
    f"{_CQL2}advanced-comparison-operators",
    f"{_CQL2}basic-spatial-functions",
    f"{_CQL2}basic-spatial-functions-plus",
    f"{_CQL2}spatial-functions",
    f"{_CQL2}temporal-functions",
]
FILTER_DESCRIPTION = (
    "CQL2 filter over the collection's queryables (OGC API - Features Part 3), e.g. "
    "`started_at >= TIMESTAMP('2026-01-10T14:00:00Z') AND rule IN ('BW-EXCH-200')`; "
    "`S_INTERSECTS(geometry, BBOX(-44,-24,-43,-22))`; a date is its whole UTC day"
)
FILTER_PARAMS = ("filter", "filter-lang", "filter-crs")
#: ``cql-text`` is the draft's name for CQL2 text, the only one GDAL's OAPIF driver knows
#: (up to 3.12 at least): it sends a `-where` as a filter only where the API document
#: lists it, and its output is valid CQL2 text
LANGS = ("cql2-text", "cql2-json", "cql-text")


def parse_filter(text: str, lang: str = "cql2-text") -> Cql2:
    """``text`` in ``lang`` as CQL2 JSON; a FilterInvalidError saying where it fails."""
    if len(text) > MAX_FILTER_CHARS:
        raise FilterInvalidError(f"the filter is over {MAX_FILTER_CHARS} characters")
    try:
        expr = cql2.parse_json(text) if lang == "cql2-json" else cql2.parse_text(text)
        tree = expr.to_json()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        # the parser is Rust: besides its ParseError, a panic on hostile input arrives
        # as a BaseException, and either way it is the client's filter that is wrong
        where = " ".join(str(exc).split())[:300]  # the parser's caret diagram, on one line
        raise FilterInvalidError(f"the filter is not valid {lang}: {where}") from None
    if not isinstance(tree, dict | bool):
        raise FilterInvalidError(f"the filter is not a condition: {json.dumps(tree)[:80]}")
    return tree


def get_filter(
    filter: Annotated[
        str | None,
        Query(
            description=FILTER_DESCRIPTION,
            max_length=MAX_FILTER_CHARS,
            examples=["started_at >= TIMESTAMP('2026-01-10T14:00:00Z')"],
        ),
    ] = None,
    filter_lang: Annotated[
        str | None,
        # the enum is documented (GDAL looks for `cql2-text` in it before it sends a
        # filter) but checked below, so a wrong value is an invalid-filter like the rest
        Query(
            alias="filter-lang",
            max_length=32,
            examples=["cql2-text"],
            json_schema_extra={"enum": list(LANGS)},
            description="the filter's encoding: `cql2-text` (the default) or `cql2-json`",
        ),
    ] = None,
    filter_crs: Annotated[
        str | None,
        Query(alias="filter-crs", description=f"the CRS of the filter's geometries: {CRS84}"),
    ] = None,
) -> Cql2 | None:
    """The request's CQL2 filter as CQL2 JSON (None: no filter)."""
    if filter_crs not in (None, CRS84):
        raise FilterInvalidError(f"filter-crs {filter_crs[:80]!r} is not supported; use {CRS84}")
    if filter_lang not in (None, *LANGS):
        raise FilterInvalidError(f"filter-lang {filter_lang!r} is not one of {', '.join(LANGS)}")
    if filter is None or filter.strip() == "":
        return None
    return parse_filter(filter, filter_lang or "cql2-text")


#: the parsed ``filter`` of an items route
CqlFilter = Annotated[Cql2 | None, Depends(get_filter)]
