"""Issue 34: ``vigia replay --state-vessels FILE.csv`` judges with the register of state
vessels: a type 35 lying 60 m off the Navy's Ilha Fiscal is a military-area lead and a
type claim without it, and neither with it. A bad register refuses the run before any
output exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts import aisgen
from tests.alerts.scenario_kit import T0, find_zone
from tests.alerts.test_replay_cli import _leads, _vigia
from vigia.alerts.identity.state_register import parse_csv
from vigia.ingest.errors import InputFormatError
from vigia.zones.evaluate import ZoneIndex

NAPA = 710_200_435
HEADER = "mmsi,name,kind,source,valid_from,valid_to,note\n"


def _claim_at_fiscal(bundled: ZoneIndex, path: Path) -> Path:
    """Static data claiming type 35, then half an hour lying 60 m off Ilha Fiscal."""
    _, fiscal = find_zone(bundled, "military", "fiscal")
    x, y = fiscal.geometry.x, fiscal.geometry.y  # type: ignore[attr-defined]
    spot = aisgen.fwd(x, y, 45, 60.0)
    fixes = aisgen.hold(*spot, t0=T0, dt_s=60, n=30, nav_status=5)
    lines = aisgen.static_lines(NAPA, T0 - 60, name="NAPA", ship_type=35, length_m=40)
    lines += [line for _, line in aisgen.lines_for(NAPA, fixes)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_register_given_to_replay_earns_the_exemption(
    bundled: ZoneIndex, tmp_path: Path
) -> None:
    track = _claim_at_fiscal(bundled, tmp_path / "napa.nmea")
    plain = _vigia("replay", str(track))
    assert plain.returncode == 0, plain.stderr
    assert sorted(x["rule"] for x in _leads(plain.stdout)) == ["ID-TYPE-CLAIM", "SEC-MILITARY"]
    register = tmp_path / "state.csv"
    register.write_text(HEADER + f"{NAPA},NAPA,navy,https://example.org/list,,,\n")
    other = tmp_path / "other.csv"
    other.write_text(HEADER + "710200999,OTHER,police,a document,,,\n")
    registered = _vigia(
        "replay", str(track), "--state-vessels", str(other), "--state-vessels", str(register)
    )
    assert registered.returncode == 0, registered.stderr
    assert _leads(registered.stdout) == []
    # an entry that ended before the vessel came does not earn it
    expired = tmp_path / "expired.csv"
    expired.write_text(HEADER + f"{NAPA},NAPA,navy,src,,2025-12-31T00:00:00Z,\n")
    late = _vigia("replay", str(track), "--state-vessels", str(expired))
    assert sorted(x["rule"] for x in _leads(late.stdout)) == ["ID-TYPE-CLAIM", "SEC-MILITARY"]


def test_a_register_row_without_a_source_refuses_the_replay(
    bundled: ZoneIndex, tmp_path: Path
) -> None:
    track = _claim_at_fiscal(bundled, tmp_path / "napa.nmea")
    register = tmp_path / "state.csv"
    register.write_text(HEADER + f"{NAPA},NAPA,navy,src,,,\n710200998,X,navy,,,,\n")
    out = tmp_path / "leads.jsonl"
    proc = _vigia("replay", str(track), "--state-vessels", str(register), "--leads-out", str(out))
    assert proc.returncode != 0
    assert "line 3" in proc.stderr and "no source" in proc.stderr
    assert not out.exists()
    missing = _vigia("replay", str(track), "--state-vessels", str(tmp_path / "none.csv"))
    assert missing.returncode != 0 and "cannot read" in missing.stderr


def test_the_csv_reader_takes_every_column_and_counts_every_bad_row() -> None:
    (entry,) = parse_csv(
        HEADER + f" {NAPA} , NAPA , coast-guard , https://x ,2026-01-01T00:00:00-03:00,, n \n"
    )
    assert (entry.mmsi, entry.name, entry.kind, entry.source, entry.note) == (
        NAPA, "NAPA", "coast-guard", "https://x", "n",
    )  # fmt: skip
    assert entry.valid_from is not None and entry.valid_from.timestamp() == 1_767_236_400
    assert entry.valid_to is None and entry.id is None
    bad = "".join(f"7102000{i:02d},N,navy,,,,\n" for i in range(23))
    with pytest.raises(InputFormatError) as refused:
        parse_csv(HEADER + bad)
    text = str(refused.value)
    assert text.startswith("23 bad row(s)") and text.endswith("3 more")
    assert "line 2: no source" in text and "line 22:" not in text
