"""Where the benchmarks find real AIS traffic (a private module: not a benchmark itself).

The full runs read the 100,000-message real corpus of the shared data folder, which sits
beside the repository (``../shared/data``) or wherever ``VIGIA_SHARED_DATA`` says (a git
worktree has no ``../shared``). A ``--quick`` run reads the real sample bundled in the
repository instead, so that the test suite's smoke run needs nothing outside it.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("VIGIA_SHARED_DATA") or ROOT.parent / "shared" / "data")
CORPUS = SHARED_DATA / "ais" / "corpus_mix100k.nmea"
#: pyais's own sample (897 real lines, every common message type; tests/fixtures/README.md)
SAMPLE = ROOT / "tests" / "fixtures" / "pyais_nmea_data_sample.txt"


def corpus(quick: bool) -> Path:
    """The real NMEA a run reads: the repository's sample when ``quick``, else the shared
    corpus (exits with a message saying where it was looked for, if it is not there)."""
    if quick:
        return SAMPLE
    if not CORPUS.exists():
        raise SystemExit(
            f"{CORPUS} is missing: set VIGIA_SHARED_DATA to the shared data folder, "
            "or run with --quick (the repository's sample)"
        )
    return CORPUS
