"""File sources: plain, gzip, missing files; a missing file is a clear error."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from vigia.ingest.errors import IngestError
from vigia.ingest.sources import FileSource


def test_plain_and_gzip_give_the_same_lines(fixtures: Path, tmp_path: Path) -> None:
    plain = fixtures / "pyais_mixed.txt"
    gz = tmp_path / "mixed.txt.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    a = [r.text for r in FileSource(plain).lines()]
    b = [r.text for r in FileSource(gz).lines()]
    assert a == b == plain.read_text().splitlines()
    assert all(not t.endswith(("\n", "\r")) for t in a)
    rec = next(iter(FileSource(gz, name="archive")))
    assert rec.source == "archive" and rec.received_at > 1.7e9


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no such file"):
        FileSource(tmp_path / "nope.nmea")
