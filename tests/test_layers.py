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
    """Every module stays under about 400 lines (420 at most: a module of one concern
    may run a little over; past that it holds two, and is split by concern)."""
    long = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            n = len(path.read_text().splitlines())
            if n > 420:
                long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not long, "\n".join(long)


def _module_files() -> dict[str, Path]:
    """Every module of the four packages under its installed name."""
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(["vigia", *parts])] = path
    return out


def _import_graph() -> dict[str, set[str]]:
    """Module -> the Vigia modules it imports, lazy (in-function) and TYPE_CHECKING
    imports included: a circle hidden inside a function is still a circle."""
    modules = _module_files()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for m in _imported_modules(path):
            # "from vigia.a import b" names vigia.a.b when b is a module, else vigia.a
            while m and m not in modules:
                m = m.rpartition(".")[0]
            if m and m != name:
                targets.add(m)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_anywhere() -> None:
    """The import graph of the four packages is acyclic, lazy imports included."""
    graph = _import_graph()
    assert len(graph) > 50 and graph["vigia.alerts.pipeline"], "the graph was not built"
    assert not _cycles(graph), _cycles(graph)


def test_the_circle_check_can_fail() -> None:
    """The detector sees a planted circle (a check that cannot fail checks nothing)."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _repo_python() -> list[Path]:
    skip = {".venv", "build", ".git"}
    return [
        p
        for p in ROOT.rglob("*.py")
        if not skip & set(p.relative_to(ROOT).parts) and "site-packages" not in p.parts
    ]


def test_nothing_edits_the_import_path() -> None:
    """No module inserts into ``sys.path``: tests, scripts and benchmarks import by
    package name (tests.support, scripts.*, vigia.*)."""
    offenders = [
        str(p.relative_to(ROOT))
        for p in _repo_python()
        if p != Path(__file__) and "sys.path" in p.read_text()
    ]
    assert not offenders, offenders


def test_benchmarks_import_no_test_module() -> None:
    """Benchmarks run without pytest: they may use tests.support helpers that import no
    pytest, and no test module or fixture file."""
    offenders = []
    for path in (ROOT / "benchmarks").glob("*.py"):
        for m in _imported_modules(path):
            if m == "pytest" or (m.startswith("tests") and not m.startswith("tests.support")):
                offenders.append(f"{path.name} imports {m}")
            elif m.startswith("tests.support."):
                helper = ROOT / (m.replace(".", "/") + ".py")
                if helper.exists() and "pytest" in _imported_modules(helper):
                    offenders.append(f"{path.name} imports {m}, which needs pytest")
    assert not offenders, offenders
