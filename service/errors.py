"""One table from domain errors to HTTP status codes, used by the app's handler."""

from __future__ import annotations

from ingest.errors import InputFormatError, VigiaError
from zones.model import ZoneError

# most specific first; the first isinstance match wins
HTTP_STATUS: tuple[tuple[type[VigiaError], int], ...] = (
    (ZoneError, 422),
    (InputFormatError, 400),
    (VigiaError, 500),
)


def status_for(exc: VigiaError) -> int:
    """The HTTP status a domain error maps to."""
    for cls, status in HTTP_STATUS:
        if isinstance(exc, cls):
            return status
    return 500
