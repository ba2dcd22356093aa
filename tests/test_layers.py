"""The package layering the project promises: imports follow the data."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {
    "ingest": {"zones", "alerts", "service"},
    "zones": {"alerts", "service"},
    "alerts": {"service"},
}


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_follow_the_data(package: str) -> None:
    """No module of a lower layer imports a higher one."""
    offenders = []
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package} has no modules"
    for path in files:
        bad = _imported_packages(path) & FORBIDDEN[package]
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert not offenders, "\n".join(offenders)


def test_modules_stay_readable_in_one_sitting() -> None:
    """Every module stays under about 400 lines."""
    long = []
    for package in ("ingest", "zones", "alerts", "service"):
        for path in (ROOT / package).rglob("*.py"):
            n = len(path.read_text().splitlines())
            if n > 450:
                long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not long, "\n".join(long)
