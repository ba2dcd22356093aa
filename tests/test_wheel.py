"""The wheel carries its data: built for real, installed into a fresh venv from the lock,
and run from another folder with no environment variable pointing at the repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.pg import unavailable

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo" / "rio_demo.nmea"


def _uv_command() -> list[str]:
    """uv as scripts/setup.sh installs it (python3 -m uv), or on PATH."""
    for cmd in (["python3", "-m", "uv"], [sys.executable, "-m", "uv"], ["uv"]):
        if (
            shutil.which(cmd[0])
            and subprocess.run([*cmd, "--version"], capture_output=True).returncode == 0
        ):
            return cmd
    unavailable("uv is not installed (scripts/setup.sh installs it)")


def _uv(*args: str, cwd: Path = ROOT) -> None:
    """uv, offline from its cache when it can be (fast, no network), else online."""
    cmd = [*_uv_command(), *args]
    done = subprocess.run([*cmd, "--offline"], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True)


@pytest.mark.slow
def test_installed_wheel_finds_bundled_zones_and_basemaps(tmp_path: Path) -> None:
    """``pip install .`` then ``vigia replay`` / ``vigia ballast assess`` elsewhere work."""
    dist = tmp_path / "dist"
    _uv("build", "--wheel", "--out-dir", str(dist), "--quiet")
    (wheel,) = dist.glob("vigia-*.whl")
    reqs = tmp_path / "requirements.txt"
    _uv("export", "--frozen", "--no-dev", "--no-hashes", "--no-emit-project", "--quiet",
        "-o", str(reqs))  # fmt: skip
    venv = tmp_path / "venv"
    _uv("venv", "--quiet", str(venv))
    py = str(venv / "bin" / "python")
    _uv("pip", "install", "--quiet", "-p", py, "-r", str(reqs), str(wheel))

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIGIA_", "PYTHON"))}
    vigia = str(venv / "bin" / "vigia")
    out = elsewhere / "leads.jsonl"
    subprocess.run(
        [vigia, "replay", str(DEMO), "--leads-out", str(out)],
        cwd=elsewhere, env=env, check=True, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    leads = [json.loads(line) for line in out.read_text().splitlines()]
    bundled = {p.stem for p in (ROOT / "data" / "geojson").glob("*.geojson")}
    assert leads and bundled, "the demo track raises leads against the bundled zones"
    assert all(ld["zone_id"] for ld in leads if ld["rule"] != "SAR-DISTRESS")

    points = elsewhere / "points.json"
    points.write_text(json.dumps([{"lat": -27.0, "lon": -38.0}]))
    done = subprocess.run(
        [vigia, "ballast", "assess", str(points)],
        cwd=elsewhere, env=env, check=True, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    figures = json.loads(done.stdout.splitlines()[0])
    assert figures["zone"] == "beyond_200nm" and figures["depth_m"] > 1000
    # and it really ran the installed copy, not this checkout
    where = subprocess.run(
        [py, "-c", "import vigia.zones.catalogue as c; print(c.bundled_zones_dir())"],
        cwd=elsewhere, env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    assert where.startswith(str(venv)) and where.endswith("vigia/zones/geojson")
