"""Control characters in tag-block fields (issue 31): a station name carrying a terminal
escape (``ESC [2J`` clears the screen, ``ESC ]`` sets a window title) must not reach the
records' ``source``, ``vigia decode``'s output, the store or what is exported from it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.nmea import sentence, tag_block
from vigia.ingest.batch import BatchIngestor
from vigia.ingest.decoder import Ingestor
from vigia.ingest.nmea import MAX_TAG_FIELD
from vigia.ingest.records import RawLine
from vigia.service.db.repository import SqlRepository
from vigia.service.db.store import open_repository

POSITION = sentence("AIVDM,1,1,,B,15M67FC000G?ufbE`FepT@3n00Sa,0")  # MMSI 366053209
T = 1_714_564_800
HOSTILE = [
    "evil\x1b[2J",
    "\x1b]0;owned\x07rx",
    "a\x00b\x7fc\x08d",
]


def _controls(text: str) -> list[str]:
    return [ch for ch in text if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0]


def _line(station: str) -> str:
    return tag_block(f"s:{station},c:{T}") + POSITION


@pytest.mark.parametrize("station", HOSTILE)
@pytest.mark.parametrize("batch", [False, True], ids=["per_line", "columns"])
def test_a_station_name_loses_its_control_characters(station: str, batch: bool) -> None:
    lines = [RawLine(_line(station), T + 1.0, "feed")]
    if batch:
        b = BatchIngestor()
        (rec,) = b.feed_batch(lines)
        ing: Ingestor = b
    else:
        ing = Ingestor()
        (rec,) = ing.feed(lines[0])
    assert not _controls(rec.source)
    assert rec.source == "".join("\ufffd" if _controls(c) else c for c in station)
    assert ing.counters.tag_cleaned == 1 and ing.counters.decoded_lines == 1


def test_a_long_station_name_is_bounded_and_counted() -> None:
    ing = Ingestor()
    (rec,) = ing.feed(RawLine(_line("x" * 500), T + 1.0, "feed"))
    assert rec.source == "x" * MAX_TAG_FIELD
    assert ing.counters.tag_cleaned == 1


def test_an_ordinary_station_name_is_kept_and_not_counted() -> None:
    ing = Ingestor()
    (rec,) = ing.feed(RawLine(_line("b003669710"), T + 1.0, "feed"))
    assert rec.source == "b003669710" and ing.counters.tag_cleaned == 0


def test_vigia_decode_and_the_store_carry_no_control_character(tmp_path: Path) -> None:
    path = tmp_path / "hostile.nmea"
    path.write_bytes("\n".join(_line(s) for s in HOSTILE).encode("ascii") + b"\n")
    res = subprocess.run(
        [sys.executable, "-m", "vigia.service.cli", "decode", str(path)],
        capture_output=True, timeout=60, check=True,
    )  # fmt: skip
    assert b"\x1b" not in res.stdout and b"\\u001b" not in res.stdout
    sources = [json.loads(line)["source"] for line in res.stdout.decode().splitlines()]
    assert len(sources) == 3 and not any(_controls(s) for s in sources)
    assert "tag_cleaned=3" in res.stderr.decode()

    repo = open_repository(f"sqlite:///{tmp_path / 'vigia.sqlite'}")
    assert isinstance(repo, SqlRepository)
    repo.migrate()
    ing = Ingestor()
    recs = [r for s in HOSTILE for r in ing.feed(RawLine(_line(s), T + 1.0, "feed"))]
    assert repo.add_positions(recs) == 1  # one vessel, one time: one row
    (stored,) = repo.track(366053209, None, None)
    assert not _controls(stored.source)
    repo.close()


@pytest.mark.parametrize("station", ["r\x1b[2J", "r" + "9" * 100])
def test_a_hostile_uscg_trailing_station_is_not_used(station: str) -> None:
    # after the checksum, so unprotected: a station that does not parse is not used
    ing = Ingestor()
    (rec,) = ing.feed(RawLine(f"{POSITION},{station},{T}", T + 1.0, "feed"))
    assert rec.source == "feed" and rec.t == T
