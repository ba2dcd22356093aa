"""Every benchmark still runs (issue 23: none may rot again unnoticed).

Each module of benchmarks/ (found with pkgutil, so a new one is picked up without
touching this file; ``_``-prefixed helpers are not benchmarks) runs as a user runs it,
``python -m benchmarks.NAME --quick``, in its own process from the repository root. The
test asserts what a person running it would notice: it ends with status 0, it printed
its figures and its baseline, and no figure came out as NaN or infinity (a measurement
that collected nothing). It is a smoke test, never timed: no assertion on any speed.

One class per benchmark, not one parametrised function: ``scripts/test.sh`` runs
``--dist loadscope``, which keeps a module's (or a class's) tests on one worker, and the
benchmarks together take a few minutes of CPU, so queued on one worker they would end the
suite last. The services they need are the machine's, as for the other tests: PostgreSQL
with PostGIS on 127.0.0.1:5432, the nats-server binary, /usr/bin/chromium.
"""

from __future__ import annotations

import os
import pkgutil
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted(
    m.name for m in pkgutil.iter_modules([str(ROOT / "benchmarks")]) if not m.name.startswith("_")
)
#: a generous bound for the slowest quick run on a loaded 2-core machine (a hung run
#: fails here, with its output, instead of holding the suite until pytest-timeout)
TIMEOUT_S = 420
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
#: how Python and numpy print a NaN or an infinity (lower case: "zone upload of NaN" is
#: one of hostile_soak's labels, not a figure)
NOT_A_NUMBER = re.compile(r"\b(?:nan|inf)\b")

pytestmark = pytest.mark.slow


def quick_run(name: str) -> tuple[int, str, str]:
    """``python -m benchmarks.NAME --quick`` from the repository root: (status, stdout,
    stderr). On timeout the run's whole process group is ended (its servers, browser and
    workers with it), and the test fails with what it printed so far."""
    proc = subprocess.Popen(
        [sys.executable, "-m", f"benchmarks.{name}", "--quick"],
        cwd=ROOT,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(
            f"benchmarks.{name} --quick still running after {TIMEOUT_S} s\n"
            f"stdout:\n{out[-3000:]}\nstderr:\n{err[-3000:]}"
        )
    return proc.returncode, out, err


def check_figures(name: str, out: str) -> None:
    """The output has figures (lines with numbers), says which is its baseline (on the
    figure's line or as the heading of a block of them), and has no NaN or infinite
    figure."""
    figures = [line for line in out.splitlines() if NUMBER.search(line)]
    assert len(figures) >= 3, f"benchmarks.{name} printed too few figures:\n{out}"
    assert "baseline" in out.lower(), f"benchmarks.{name} printed no baseline:\n{out}"
    bad = [line for line in out.splitlines() if NOT_A_NUMBER.search(line)]
    assert not bad, f"benchmarks.{name} printed figures that are not numbers: {bad}"


class _QuickRun:
    """The smoke run of one benchmark module (``module``)."""

    module: str

    def test_quick_run_prints_figures(self) -> None:
        status, out, err = quick_run(self.module)
        assert status == 0, (
            f"benchmarks.{self.module} --quick exited {status}\n"
            f"stdout:\n{out[-3000:]}\nstderr:\n{err[-5000:]}"
        )
        check_figures(self.module, out)


def _marks(name: str) -> list[pytest.MarkDecorator]:
    text = (ROOT / "benchmarks" / f"{name}.py").read_text()
    marks = []
    if "psycopg" in text or "temp_database" in text:
        marks.append(pytest.mark.postgis)
    return marks


for _name in BENCHMARKS:
    _cls = f"TestBenchmark_{_name}"
    globals()[_cls] = type(_cls, (_QuickRun,), {"module": _name, "pytestmark": _marks(_name)})


def test_discovery_finds_the_benchmarks() -> None:
    """pkgutil found the benchmark modules, helpers left out (were the discovery to find
    nothing, the smoke runs above would silently test nothing)."""
    assert {"api", "ingest", "replay", "scale", "startup", "zones"} <= set(BENCHMARKS)
    assert not [name for name in BENCHMARKS if name.startswith("_")]
