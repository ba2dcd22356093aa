"""`vigia --help` answers without importing the heavy libraries (issue 23: it took 1.2 s
importing FastAPI, SQLAlchemy, numpy and pyais before parsing its arguments)."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

from vigia.service.cli import COMMANDS, full_parser

HEAVY = ("fastapi", "sqlalchemy", "numpy", "pyais", "shapely", "pydantic")

PROBE = """
import contextlib, io, json, sys
from vigia.service.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):
    main(sys.argv[1:])
print(json.dumps({"help": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def _probe(*argv: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return result


def test_top_level_help_imports_no_heavy_library() -> None:
    seen = _probe("--help")
    modules = {str(m).partition(".")[0] for m in seen["modules"]}  # type: ignore[attr-defined]
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    for name in COMMANDS:
        assert name in str(seen["help"])


def test_a_sub_command_imports_what_it_needs() -> None:
    # the probe would pass vacuously if main() never reached a command module
    seen = _probe("replay", "--help")
    assert "vigia.alerts.pipeline" in seen["modules"]  # type: ignore[operator]
    assert "--leads-out" in str(seen["help"])


def test_decoding_a_small_file_imports_no_numpy(fixtures: Path, tmp_path: Path) -> None:
    # numpy's import is a fifth of `vigia decode`'s start; a few lines do not need it
    seen = _probe("decode", str(fixtures / "ingest_decode_sample.nmea"))
    assert '"msg_type":27' in str(seen["help"])  # it did decode (stdout is captured)
    assert "numpy" not in seen["modules"]  # type: ignore[operator]
    large = tmp_path / "large.nmea"
    large.write_bytes((fixtures / "ingest_decode_sample.nmea").read_bytes() * 1_000)
    assert "numpy" in _probe("decode", str(large))["modules"]  # type: ignore[operator]


class _Recorder:
    """Stands in for argparse's sub-parser group: records each command's help line."""

    def __init__(self) -> None:
        self.helps: dict[str, str | None] = {}

    def add_parser(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
        self.helps[name] = kwargs.get("help")  # type: ignore[assignment]
        return argparse.ArgumentParser(prog=name)


def test_the_help_table_says_what_each_module_registers() -> None:
    recorder = _Recorder()
    for module in dict.fromkeys(m for m, _ in COMMANDS.values()):
        importlib.import_module(module).register(recorder)
    assert recorder.helps == {name: help_line for name, (_m, help_line) in COMMANDS.items()}


def test_the_full_parser_parses_every_command() -> None:
    parser = full_parser()
    assert parser.parse_args(["decode", "x.nmea"]).command == "decode"
    assert parser.parse_args(["evaluate"]).command == "evaluate"
