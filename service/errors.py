"""Service-level errors and the one table from domain errors to HTTP status codes."""

from __future__ import annotations

from vigia.alerts.procedure.workflow import ProcedureConflictError, ProcedureDataError
from vigia.ingest.errors import InputFormatError, VigiaError
from vigia.zones.model import ZoneError


class AuthenticationError(VigiaError):
    """No API key, or one that is unknown or revoked."""

    code = "unauthenticated"


class PermissionDeniedError(VigiaError):
    """The key's role is too low for the route."""

    code = "forbidden"


class NotFoundError(VigiaError):
    """The requested resource does not exist."""

    code = "not-found"


class RequestInvalidError(VigiaError):
    """A request that is well-formed JSON but asks for something impossible."""

    code = "invalid-request"


class FilterInvalidError(RequestInvalidError):
    """A CQL2 ``filter`` that does not parse, names a property the collection does not
    declare, or uses an operator or function the server does not implement."""

    code = "invalid-filter"


class CursorInvalidError(RequestInvalidError):
    """A paging ``cursor`` the server did not write (tampered, truncated, or for another
    order): a 400, as a malformed query parameter is."""

    code = "invalid-cursor"


class ConflictError(RequestInvalidError):
    """A request the current state refuses (revoking the last admin key)."""

    code = "conflict"

    def __init__(
        self, message: str, *, reason: str | None = None, facts: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        #: why, as a stable code with the figures it names (``lead-budget-exceeded``), so a
        #: client says the refusal in its user's language rather than the English detail
        self.reason = reason
        self.facts = facts or {}


class PreconditionFailedError(VigiaError):
    """An ``If-Match`` naming a version of a lead that is no longer the stored one."""

    code = "precondition-failed"


class PayloadTooLargeError(VigiaError):
    """An upload over the configured size limits (bytes, features, vertices)."""

    code = "payload-too-large"


class TooManyRequestsError(VigiaError):
    """A limit on use is reached (open event streams, requests a second per key or
    address); try again after ``retry_after_s``."""

    code = "too-many-requests"

    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail)
        self.retry_after_s = retry_after_s


class StoreUnavailableError(VigiaError):
    """The database cannot be reached right now."""

    code = "store-unavailable"


# most specific first; the first isinstance match wins
HTTP_STATUS: tuple[tuple[type[VigiaError], int], ...] = (
    (AuthenticationError, 401),
    (PermissionDeniedError, 403),
    (NotFoundError, 404),
    (ProcedureConflictError, 409),
    (ProcedureDataError, 422),
    (PreconditionFailedError, 412),
    (PayloadTooLargeError, 413),
    (ConflictError, 409),
    (FilterInvalidError, 400),
    (CursorInvalidError, 400),  # OGC API - Features Part 3: a bad filter is a 400
    (ZoneError, 422),
    (RequestInvalidError, 422),
    (InputFormatError, 400),
    (TooManyRequestsError, 429),
    (StoreUnavailableError, 503),
    (VigiaError, 500),
)


def status_for(exc: VigiaError) -> int:
    """The HTTP status a domain error maps to."""
    for cls, status in HTTP_STATUS:
        if isinstance(exc, cls):
            return status
    return 500
