"""The islands' waters and Brazil's EEZ beyond every seat (issue 32): a lead at each island
group goes to its office, a lead of the EEZ to an office, a lead outside it to none, saying
why. Points are laid out with pyproj's geodesic (WGS84) from the places named; the edges
of each area are tested on both sides."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pyproj import Geod

from tests.api.test_procedure import make_lead
from vigia.alerts.procedure.register import nearest_office, office_named
from vigia.alerts.procedure.routing import SEA_BASIS, rerouted, routed, routing_for
from vigia.alerts.procedure.waters import EEZ_BASIS, FRANCE_ORIGIN, island_groups

GEOD = Geod(ellps="WGS84")
SOURCES = Path(__file__).resolve().parents[2] / "docs" / "register-sources.md"
CPPE = "Capitania dos Portos de Pernambuco"
CPRN = "Capitania dos Portos do Rio Grande do Norte"
CPES = "Capitania dos Portos do Espírito Santo"
PORTO_SEGURO = "Delegacia da Capitania dos Portos em Porto Seguro"
NORONHA = (-32.42, -3.85)
TRINDADE = "trindade-e-martim-vaz"


def off(lon: float, lat: float, azimuth: float, nm: float) -> tuple[float, float]:
    """The point ``nm`` nautical miles from (lon, lat) along ``azimuth`` (geodesic)."""
    x, y, _ = GEOD.fwd(lon, lat, azimuth, nm * 1852.0)
    return float(x), float(y)


def test_each_island_group_names_an_office_of_the_register_and_its_sources() -> None:
    text = SOURCES.read_text()
    groups = island_groups()
    assert {g.id for g in groups} == {
        "fernando-de-noronha", "atol-das-rocas", "sao-pedro-e-sao-paulo",
        "trindade-e-martim-vaz", "abrolhos",
    }  # fmt: skip
    for g in groups:
        assert office_named(g.authority) is not None, g.authority
        assert g.reach_nm in (12.0, 200.0) and g.sources
        # every source is quoted in docs/register-sources.md beside the group's name
        assert g.name in text and all(url in text for url in g.sources), g.id


@pytest.mark.parametrize(
    ("where", "point", "office", "area", "approximate"),
    [
        # Fernando de Noronha: the nearest seat is Natal's, its office Recife's (the CPPE)
        ("Noronha, 6 NM E", off(*NORONHA, 90, 6), CPPE, "fernando-de-noronha", False),
        ("Noronha, 30 NM E", off(*NORONHA, 90, 30), CPPE, "fernando-de-noronha", True),
        # toward the mainland (azimuth 200) the equidistance falls 121 NM out
        ("Noronha, 118 NM SSW", off(*NORONHA, 200, 118), CPPE, "fernando-de-noronha", True),
        ("Noronha, 123 NM SSW", off(*NORONHA, 200, 123), CPRN, None, True),
        # toward Atol das Rocas (83.8 NM W) the equidistance falls 43 NM out
        ("Noronha, 39 NM to Rocas", off(*NORONHA, -89.4, 39), CPPE, "fernando-de-noronha", True),
        ("Noronha, 46 NM to Rocas", off(*NORONHA, -89.4, 46), CPRN, "atol-das-rocas", True),
        ("Atol das Rocas", (-33.817, -3.867), CPRN, "atol-das-rocas", True),
        # São Pedro e São Paulo: its own EEZ, 200 NM about the rocks
        ("São Pedro e São Paulo", (-29.35, 0.92), CPPE, "sao-pedro-e-sao-paulo", True),
        ("SPSP, 190 NM N", off(-29.346, 0.917, 0, 190), CPPE, "sao-pedro-e-sao-paulo", True),
        # Trindade e Martim Vaz: 200 NM about both islands
        ("Trindade", (-29.33, -20.52), CPES, TRINDADE, True),
        ("Martim Vaz, 190 NM E", off(-28.88, -20.51, 90, 190), CPES, TRINDADE, True),
        # Abrolhos: 12 NM about the archipelago, then the nearest seat (the same Delegacia)
        ("Abrolhos, 10 NM E", off(-38.70, -17.965, 90, 10), PORTO_SEGURO, "abrolhos", True),
        ("Abrolhos, 14 NM E", off(-38.70, -17.965, 90, 14), PORTO_SEGURO, None, True),
    ],
)
def test_a_lead_at_an_island_goes_to_its_office(
    where: str, point: tuple[float, float], office: str, area: str | None, approximate: bool
) -> None:
    authority, routing = routing_for("SEC-PLATFORM", *point, None, [])
    assert authority == office and routing["authority"] == office, where
    assert routing.get("area") == area and routing["approximate"] is approximate, where


def test_noronha_no_longer_goes_to_the_nearest_seat_across_the_sea() -> None:
    near = nearest_office(*NORONHA)
    assert near is not None and near.name == CPRN  # Natal, 203 NM; Recife is 294 NM off
    assert routing_for("SEC-PLATFORM", *NORONHA, None, [])[0] == CPPE


@pytest.mark.parametrize(
    ("where", "point", "reason"),
    [
        ("SPSP, 210 NM N", off(-29.346, 0.917, 0, 210), "210 NM from Brazil's coast"),
        ("Martim Vaz, 210 NM E", off(-28.88, -20.51, 90, 210), "210 NM from Brazil's coast"),
        ("Trindade, 210 NM W", off(-29.35, -20.57, 270, 210), "210 NM from Brazil's coast"),
        ("mid-Atlantic", (-20.0, -25.0), "560 NM from Brazil's coast"),
        ("off Uruguay", (-54.5, -36.0), "nearer a neighbour's coast"),
        ("France's side", off(*FRANCE_ORIGIN, 36.5, 100), "France's side of the 1981"),
    ],
)
def test_outside_the_eez_no_office_and_the_routing_says_why(
    where: str, point: tuple[float, float], reason: str
) -> None:
    authority, routing = routing_for("SEC-PLATFORM", *point, None, [])
    assert authority is None and routing["authority"] is None, where
    assert routing["reason"].startswith("outside Brazil's EEZ") and reason in routing["reason"]


def test_the_eez_beyond_every_seat_goes_to_the_nearest_coast_office() -> None:
    # 190 NM NE off Calçoene (Amapá): 292 NM from the Capitania dos Portos do Amapá's seat
    # in Santana and farther from every other one, so no seat reaches it
    point = off(-50.95, 2.5, 45, 190)
    assert nearest_office(*point) is None
    authority, routing = routing_for("SEC-PLATFORM", *point, None, [])
    assert authority == "Capitania dos Portos do Amapá"
    assert routing["approximate"] is True and routing["basis"] == EEZ_BASIS
    assert 140 < routing["coast_nm"] < 190  # the coast bends north toward the Oiapoque
    # Brazil's side of the 1981 line with France, 10 degrees from France's point above
    brazil_side = off(*FRANCE_ORIGIN, 46.5, 100)
    assert routing_for("SEC-PLATFORM", *brazil_side, None, [])[0] == authority


def test_the_open_sea_off_rio_grande_do_sul_goes_to_an_office_of_the_sea() -> None:
    # 150 NM off Mostardas (RS): Porto Alegre's seat, the Capitania Fluvial's, is the
    # nearest (175 NM); Rio Grande's, the Capitania dos Portos', is 193 NM off
    point = off(-50.75, -31.2, 110, 150)
    near = nearest_office(*point)
    assert near is not None and near.name == "Capitania Fluvial de Porto Alegre"
    authority, routing = routing_for("SEC-PLATFORM", *point, None, [])
    assert authority == "Capitania dos Portos do Rio Grande do Sul"
    assert routing["basis"] == SEA_BASIS and routing["approximate"] is True
    # the Guaíba stays with the Capitania Fluvial
    assert routing_for("SEC-PLATFORM", -51.22, -30.05, None, [])[0] == near.name


def test_island_waters_are_measured_on_the_ellipsoid() -> None:
    """An island group's distance and its waters' outline against pyproj's geodesic."""
    trindade = next(g for g in island_groups() if g.id == TRINDADE)
    # 150 NM due east of Martim Vaz's easternmost point (its outline's vertex)
    east = max(trindade.land.geoms, key=lambda p: p.centroid.x)
    x0, y0 = max(east.exterior.coords, key=lambda c: c[0])
    assert trindade.distance_nm(*off(x0, y0, 90, 150)) == pytest.approx(150.0, abs=0.05)
    # every vertex of the waters' outline is reach_nm from the islands, to 0.1 NM
    for x, y in list(trindade.waters.exterior.coords)[::16]:
        assert trindade.distance_nm(x, y) == pytest.approx(200.0, abs=0.1)


def test_leads_no_rule_routed_are_routed_again_and_say_why_when_outside() -> None:
    base = make_lead("L-ISL")
    # a lead at Noronha that the register alone had routed to Natal moves to the CPPE
    at_noronha = dataclasses.replace(
        base, closest_lon=NORONHA[0], closest_lat=NORONHA[1], authority=CPRN,
        details={"routing": {"authority": CPRN, "approximate": True, "basis": "register"}},
    )  # fmt: skip
    moved = rerouted(at_noronha, None, [])
    assert moved is not None and moved.authority == CPPE
    # a lead at Trindade that no rule routed before (no authority, no routing) is routed
    at_trindade = dataclasses.replace(
        base, closest_lon=-29.33, closest_lat=-20.52, authority=None, details={}
    )
    moved = rerouted(at_trindade, None, [])
    assert moved is not None and moved.authority == CPES
    # one in the mid-Atlantic keeps no authority, and says why
    far = routed(dataclasses.replace(at_trindade, closest_lon=-20.0, closest_lat=-25.0), None, [])
    assert far.authority is None and "outside Brazil's EEZ" in far.details["routing"]["reason"]
    assert rerouted(far, None, []) is None  # the same answer: it stays as it is
