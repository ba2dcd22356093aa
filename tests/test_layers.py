"""The package layering the project promises: imports follow the data.

Between the four packages: ingest -> zones -> alerts -> service, never backwards. Inside
``service``, the rooms run one way too: cli -> http/runtime -> db (http may start the
runtime, the runtime never reaches into HTTP, and storage knows neither).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {
    "ingest": {"vigia.zones", "vigia.alerts", "vigia.service"},
    "zones": {"vigia.alerts", "vigia.service"},
    "alerts": {"vigia.service"},
    "service/db": {"vigia.service.cli", "vigia.service.http", "vigia.service.runtime"},
    "service/runtime": {"vigia.service.cli", "vigia.service.http"},
    "service/http": {"vigia.service.cli"},
}
PACKAGES = ("ingest", "zones", "alerts", "service")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _hits(imported: set[str], forbidden: set[str]) -> set[str]:
    return {f for f in forbidden for m in imported if m == f or m.startswith(f + ".")}


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_imports_follow_the_data(folder: str) -> None:
    """No module of a lower layer or room imports a higher one."""
    offenders = []
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, f"{folder} has no modules"
    for path in files:
        bad = _hits(_imported_modules(path), FORBIDDEN[folder])
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert not offenders, "\n".join(offenders)


def test_imports_use_the_installed_names() -> None:
    """Vigia's own modules are imported as vigia.*, never by their folder names, which
    would collide with other distributions in a user's environment."""
    offenders = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            bare = {m for m in _imported_modules(path) if m.split(".")[0] in PACKAGES}
            if bare:
                offenders.append(f"{path.relative_to(ROOT)} imports {sorted(bare)}")
    assert not offenders, "\n".join(offenders)


def test_modules_stay_readable_in_one_sitting() -> None:
    """Every module stays under about 400 lines."""
    long = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            n = len(path.read_text().splitlines())
            if n > 450:
                long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not long, "\n".join(long)
