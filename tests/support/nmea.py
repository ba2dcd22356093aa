"""NMEA framing for building test input: the one checksum helper of the tests.

Computed here, byte by byte, independently of ``vigia.ingest.nmea`` (which folds big
integers for speed), so a test that feeds these lines checks the product against an
oracle rather than against itself.
"""

from __future__ import annotations

from functools import reduce
from operator import xor


def checksum(body: str) -> int:
    """XOR of the bytes between the start character and ``*``."""
    return reduce(xor, body.encode("latin-1"), 0)


def sentence(body: str, lead: str = "!") -> str:
    """``body`` framed as a sentence with its checksum: ``!body*HH``."""
    return f"{lead}{body}*{checksum(body):02X}"


def tag_block(body: str) -> str:
    """``body`` framed as an IEC 61162-450 tag block: ``\\body*HH\\``."""
    return f"\\{body}*{checksum(body):02X}\\"


def timestamped(line: str, t: float) -> str:
    """``line`` behind a tag block carrying Unix time ``t`` (the ``c:`` field)."""
    return tag_block(f"c:{int(t)}") + line
