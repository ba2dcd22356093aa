"""Start-up time of the ``vigia`` command: what a person waits for on first contact.

Usage: python -m benchmarks.startup [--runs 15] [--quick]

Each case is a fresh interpreter, timed by wall clock from spawn to exit; the figure is
the median of the runs. The baseline, measured in the same run, is ``python -c pass``:
the interpreter's own start, which no change to Vigia can remove. Goal (issue 23):
``vigia --help`` and ``vigia decode`` of a one-line file under 0.3 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# a real type 1 sentence (pyais's documentation example)
SENTENCE = "!AIVDM,1,1,,B,15M67FC000G?ufbE`FepT@3n00Sa,0*5C\n"


def _median_s(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="three runs: a smoke test")
    args = ap.parse_args()
    runs = 3 if args.quick else args.runs
    vigia = [sys.executable, "-m", "vigia.service.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        nmea = Path(tmp) / "one.nmea"
        nmea.write_text(SENTENCE)
        cases = {
            "python -c pass (baseline)": [sys.executable, "-c", "pass"],
            "vigia --help": [*vigia, "--help"],
            "vigia decode one.nmea": [*vigia, "decode", str(nmea)],
            "vigia replay --help": [*vigia, "replay", "--help"],
        }
        base = None
        print(f"median of {runs} runs, wall clock")
        for name, argv in cases.items():
            s = _median_s(argv, runs)
            base = base or s
            print(f"{name:28s} {s * 1000:7.0f} ms  {s / base:5.1f}x baseline")


if __name__ == "__main__":
    main()
