"""The README's first command: replaying the bundled demo shows its leads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_first_command_shows_the_demo_leads(tmp_path: Path) -> None:
    """The demo track gives its documented leads, in the file and in the stderr table."""
    readme = (ROOT / "README.md").read_text()
    assert "vigia replay data/demo/rio_demo.nmea" in readme.split("\n```", 2)[1]
    out = tmp_path / "leads.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "vigia.service.cli",
            "replay",
            "data/demo/rio_demo.nmea",
            "--leads-out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    leads = [json.loads(line) for line in out.read_text().splitlines()]
    rules = sorted(lead["rule"] for lead in leads)
    assert rules == ["BATH-MOTOR", "BATH-MOTOR", "BATH-SAIL", "SEC-MILITARY", "SEC-PLATFORM"]
    table_rows = [ln for ln in proc.stderr.splitlines() if ln.split(" ")[0] in rules]
    assert len(table_rows) == 5
    assert any("platform-" in row and "SEC-PLATFORM" in row for row in table_rows)
