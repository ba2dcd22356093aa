"""Issue 10: the SYNTHETIC Campos platform traffic (scripts/make_platform_traffic.py)
replayed against the real bundled platforms: no lead for the installations or the
authorised vessels, every lead for the rest."""

from __future__ import annotations

from tests.alerts.test_replay_cli import ROOT, _leads, _vigia

NMEA = ROOT / "data" / "demo" / "campos_platforms.nmea"
REGISTER = ROOT / "data" / "demo" / "campos_register.csv"
INTRUDERS = {710_998_900 + 10 * k + j for k in range(3) for j in range(1, 5)}


def test_installations_and_authorised_vessels_raise_nothing_and_intruders_all_do() -> None:
    assert NMEA.read_text().startswith("# SYNTHETIC")
    proc = _vigia("replay", str(NMEA), "--authorised", str(REGISTER))
    assert proc.returncode == 0, proc.stderr
    leads = _leads(proc.stdout)
    assert {x["mmsi"] for x in leads} == INTRUDERS
    assert len(leads) == len(INTRUDERS)
    assert {x["rule"] for x in leads} == {"SEC-PLATFORM"}


def test_without_the_register_the_supply_vessels_are_leads_but_the_fpsos_are_not() -> None:
    proc = _vigia("replay", str(NMEA))
    assert proc.returncode == 0, proc.stderr
    mmsis = {x["mmsi"] for x in _leads(proc.stdout)}
    fpsos = {710_998_000 + 10 * i + 1 for i in range(8)}
    supply = {710_998_000 + 10 * i + 2 for i in range(8)}
    shuttles = {710_998_000 + 10 * i + 3 for i in range(8)}
    assert not mmsis & fpsos
    assert supply | shuttles <= mmsis and mmsis >= INTRUDERS


def test_the_platform_traffic_is_reproducible() -> None:
    from scripts import make_platform_traffic

    lines, register = make_platform_traffic.build()
    assert "\n".join(lines) + "\n" == NMEA.read_text()
    assert "\n".join(register) + "\n" == REGISTER.read_text()
