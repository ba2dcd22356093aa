"""A child Python process SIGKILLed the moment it reports: what a kill -9 leaves behind
(the writer's spool, the store) is then checked by the test that ran it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def kill_at_report(script: str, *args: str) -> str:
    """Run ``script`` (Python source) with ``args``; SIGKILL it as soon as it prints its
    first line; that line."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        child.send_signal(signal.SIGKILL)
        assert child.wait(10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return line
