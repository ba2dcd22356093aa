"""Golden outputs: ``vigia decode`` and ``vigia replay`` on small real inputs, compared
line by line with files checked in under tests/golden/, the way pyais tests its decoder.

An intended change regenerates them: ``pytest tests/test_golden.py --regen-golden`` (or
``VIGIA_REGEN_GOLDEN=1``); the diff then shows every field that changed, for review.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"

# (input relative to the repository, the command's extra arguments)
DECODE = [
    "tests/golden/pyais_mixed_tagged.nmea",
    "tests/fixtures/ingest_dma_sample.csv",
    "tests/fixtures/ingest_noaa_sample.csv",
]
REPLAY = ["data/demo/rio_demo.nmea"]


def _vigia(*args: str) -> subprocess.CompletedProcess[str]:
    # the repository as working directory: paths in the output are the relative ones above
    return subprocess.run(
        [sys.executable, "-m", "vigia.service.cli", *args],
        cwd=ROOT, check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _check(golden: Path, actual: str, regen: bool) -> None:
    if regen:
        golden.write_text(actual)
        return
    assert golden.exists(), f"{golden} missing: run pytest {__file__} --regen-golden"
    expected = golden.read_text().splitlines()
    got = actual.splitlines()
    for i, (e, g) in enumerate(zip(expected, got, strict=False)):
        assert g == e, f"{golden.name} line {i + 1} differs:\n  expected {e}\n  got      {g}"
    assert len(got) == len(expected), f"{golden.name}: {len(got)} lines, {len(expected)} expected"


@pytest.mark.parametrize("source", DECODE, ids=lambda s: Path(s).name)
def test_decode_matches_golden(source: str, regen_golden: bool) -> None:
    """Every field of every decoded message is as it was when the golden was reviewed."""
    out = _vigia("decode", source).stdout
    assert out.strip(), "decoding produced nothing"
    _check(GOLDEN / f"{Path(source).name}.decode.jsonl", out, regen_golden)


@pytest.mark.parametrize("source", REPLAY, ids=lambda s: Path(s).name)
def test_replay_matches_golden(source: str, regen_golden: bool, tmp_path: Path) -> None:
    """The leads of a replay against the bundled zones, field by field."""
    leads = tmp_path / "leads.jsonl"
    _vigia("replay", source, "--leads-out", str(leads))
    out = leads.read_text()
    assert out.strip(), "the replay raised no lead"
    _check(GOLDEN / f"{Path(source).name}.replay.jsonl", out, regen_golden)
