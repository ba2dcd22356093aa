"""The project's root exception and the ingestion errors.

Every error Vigia raises on purpose derives from :class:`VigiaError`; the service maps
each subclass to an HTTP status in one table (``service/errors.py``).
"""

from __future__ import annotations


class VigiaError(Exception):
    """Root of every error Vigia raises on purpose."""

    #: short machine-readable code, used as the problem+json ``type`` suffix
    code: str = "vigia-error"


class IngestError(VigiaError):
    """A source or an input file could not be read."""

    code = "ingest-error"


class InputFormatError(IngestError):
    """An input file (CSV export, JSON list) does not have the shape expected."""

    code = "input-format"
