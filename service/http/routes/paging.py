"""Cursor paging for the lead lists (issue 39): the ``cursor`` query parameter and the
page links that carry it.

A cursor is the last lead's sort key as base64url JSON (``{"s": sort, "t": started_at,
"id": id, "d": due_on}``): opaque to clients, who only follow ``next`` links. It is
checked field by field; one that does not decode to a key of the request's own order is
a 400 ``invalid-cursor`` problem. ``offset`` stays accepted for old clients, but every
``next`` link the server writes carries a cursor, so the page after it costs what the
first one does however deep it is.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from typing import Annotated, Any, TypeGuard
from urllib.parse import quote

from fastapi import Query, Request

from vigia.service.db.protocol import LeadKey, LeadPage
from vigia.service.errors import CursorInvalidError
from vigia.service.http.routes.params import GEOJSON_MEDIA_TYPE, public_href

#: a cursor is far shorter: a time, a lead id (at most 200 characters) and a date
MAX_CURSOR_CHARS = 1_000
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
Cursor = Annotated[
    str | None,
    Query(
        max_length=MAX_CURSOR_CHARS,
        description="where the page starts: copy it from a `next` link (opaque)",
        examples=["eyJzIjoibmV3ZXN0IiwidCI6MTcwOTI5NDQwMC4wLCJpZCI6IkwtMSJ9"],
    ),
]


def _pack(body: dict[str, Any]) -> str:
    raw = json.dumps(body, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unpack(text: str, sort: str) -> dict[str, Any]:
    """A cursor's body, if it is one the server wrote for the order ``sort``."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        body = json.loads(raw)
    except (binascii.Error, ValueError):
        raise CursorInvalidError("the cursor is not one this server wrote") from None
    if not isinstance(body, dict) or body.get("s") != sort:
        raise CursorInvalidError(f"the cursor is not one of the {sort!r} order's pages")
    return body


def _finite(t: Any) -> TypeGuard[int | float]:
    return isinstance(t, int | float) and not isinstance(t, bool) and math.isfinite(t)


def encode_cursor(key: LeadKey, sort: str) -> str:
    """``key`` in the order ``sort`` as an opaque cursor."""
    body: dict[str, Any] = {"s": sort, "t": key.started_at, "id": key.id}
    if sort == "due":
        body["d"] = key.due_on
    return _pack(body)


def decode_cursor(text: str | None, sort: str) -> LeadKey | None:
    """The key a cursor names (None: no cursor); CursorInvalidError if it is not one the
    server wrote for the order ``sort``."""
    if text is None or text == "":
        return None
    body = _unpack(text, sort)
    t, lead_id, due = body.get("t"), body.get("id"), body.get("d")
    keys = {"s", "t", "id", "d"} if sort == "due" else {"s", "t", "id"}
    ok = (
        set(body) == keys
        and _finite(t)
        and isinstance(lead_id, str)
        and 0 < len(lead_id) <= 200
        and (due is None or (isinstance(due, str) and _DATE.fullmatch(due) is not None))
    )
    if not ok or t is None or not isinstance(lead_id, str):
        raise CursorInvalidError("the cursor is not one this server wrote")
    return LeadKey(float(t), lead_id, due)


def _link(request: Request, paged: bool, **params: Any) -> str:
    """This request's link on the public address; ``paged``: with its ``offset`` and
    ``cursor`` replaced by ``params``."""
    raw = request.scope.get("raw_path")
    # as params.py: the raw path without any query a test client put there
    path = (
        raw.split(b"?", 1)[0].decode("latin-1")
        if isinstance(raw, bytes)
        else quote(request.url.path)
    )
    url = request.url
    if paged:
        url = url.remove_query_params(["offset", "cursor"]).include_query_params(**params)
    return public_href(request, path, url.query)


def cursor_links(
    request: Request,
    page: LeadPage,
    sort: str,
    limit: int,
    offset: int,
    media_type: str = GEOJSON_MEDIA_TYPE,
) -> list[dict[str, Any]]:
    """``self``; ``next`` with the cursor after this page's last lead when there is a
    next page; ``first`` when this is not it; ``prev`` only for an old client's offset."""
    links: list[dict[str, Any]] = [
        {"rel": "self", "href": _link(request, False), "type": media_type}
    ]
    if page.next_key is not None:
        href = _link(request, True, cursor=encode_cursor(page.next_key, sort), limit=limit)
        links.append({"rel": "next", "href": href, "type": media_type})
    if offset > 0 or request.query_params.get("cursor"):
        links.append({"rel": "first", "href": _link(request, True, limit=limit),
                      "type": media_type})  # fmt: skip
    if offset > 0:
        href = _link(request, True, offset=max(0, offset - limit), limit=limit)
        links.append({"rel": "prev", "href": href, "type": media_type})
    return links


#: a vessel's identity history, newest first: its cursor's order
HISTORY = "history"


def encode_history_cursor(t: float, field: str) -> str:
    """The change (``t``, ``field``) of an identity history as an opaque cursor."""
    return _pack({"s": HISTORY, "t": t, "f": field})


def decode_history_cursor(text: str | None) -> tuple[float, str] | None:
    """The change a history cursor names (None: no cursor); CursorInvalidError if it is
    not one the server wrote for a history."""
    if text is None or text == "":
        return None
    body = _unpack(text, HISTORY)
    t, field = body.get("t"), body.get("f")
    if (
        set(body) != {"s", "t", "f"}
        or not _finite(t)
        or not isinstance(field, str)
        or not 0 < len(field) <= 40
    ):
        raise CursorInvalidError("the cursor is not one this server wrote")
    return float(t), field
