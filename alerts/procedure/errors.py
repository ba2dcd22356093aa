"""What the procedure answers a move or a draft it refuses; the service maps each to its
HTTP status in its one table (service/errors.py)."""

from __future__ import annotations

from vigia.ingest.errors import VigiaError


class ProcedureConflictError(VigiaError):
    """A move the procedure does not allow from the lead's current state (HTTP 409)."""

    code = "procedure-conflict"

    def __init__(self, message: str, allowed: tuple[str, ...]) -> None:
        super().__init__(message)
        self.allowed = allowed


class ProcedureDataError(VigiaError):
    """A move that lacks the data its step requires, or carries impossible data (422)."""

    code = "procedure-data"

    def __init__(
        self,
        message: str,
        field: str | None = None,
        reason: str | None = None,
        facts: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        #: the body member at fault (``notice.appear_by``), a stable name a client can
        #: translate for its user where the message is English prose
        self.field = field
        #: why, as a stable code with the figures it names (``defence-term-running``,
        #: ``{"due": ..., "basis": ...}``), so a client says the server's reason in its
        #: user's language instead of a generic "data missing"
        self.reason = reason
        self.facts = facts or {}
