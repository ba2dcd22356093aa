"""The bundled register of offices, its approximate jurisdiction, the overlap rule of
loaded zones, and the leads no silence hides."""

from __future__ import annotations

from dataclasses import replace

import pytest
import shapely

from tests.api.test_procedure import make_lead
from vigia.alerts.procedure.calendars import STATES, SeatCalendar
from vigia.alerts.procedure.register import (
    AGENCY_REACH_NM,
    REACH_NM,
    distance_nm,
    nearest_office,
    offices,
)
from vigia.alerts.procedure.routing import zone_at
from vigia.alerts.procedure.silencing import Silence, silence_for
from vigia.zones.model import Zone, ZoneKind


def test_register_rows_are_complete() -> None:
    rows = offices()
    assert len({o.name for o in rows}) == len(rows) >= 20
    for o in rows:
        assert o.kind in ("capitania", "delegacia", "agencia") and o.seat_state in STATES
        assert -75 < o.seat_lon < -28 and -34 < o.seat_lat < 6 and 1 <= o.naval_district <= 9
        SeatCalendar(o.seat_state, o.seat_municipality)  # every seat has a calendar
        # every row cites at least one public page (docs/register-sources.md quotes them)
        assert o.sources and all(u.startswith(("https://", "http://")) for u in o.sources)
        assert not any(u.endswith("...") for u in o.sources)  # no address cut short


@pytest.mark.parametrize(
    ("lon", "lat", "office"),
    [
        (-43.18, -22.97, "Capitania dos Portos do Rio de Janeiro"),  # off Copacabana
        (-46.30, -24.05, "Capitania dos Portos de São Paulo"),  # off Santos
        (-40.05, -22.37, "Capitania dos Portos de Macaé"),  # Campos basin platforms
        (-38.47, -13.02, "Capitania dos Portos da Bahia"),  # off Salvador
        # inland waters (stop 28's rows): the river office, not the nearest coast's
        (-57.66, -19.00, "Capitania Fluvial do Pantanal"),  # Rio Paraguai at Corumbá
        (-63.91, -8.74, "Capitania Fluvial de Porto Velho"),  # Rio Madeira
        (-54.72, -2.41, "Capitania Fluvial de Santarém"),  # Tapajós meets the Amazon
        (-69.95, -4.24, "Capitania Fluvial de Tabatinga"),  # Solimões at the border
        (-48.50, -22.50, "Capitania Fluvial do Tietê-Paraná"),  # Tietê at Barra Bonita
        (-47.80, -15.80, "Capitania Fluvial de Brasília"),  # Lago Paranoá
        # offices added in stop 29 from their public sources
        (-54.60, -25.55, "Capitania Fluvial do Rio Paraná"),  # Paraná at Foz do Iguaçu
        (-51.22, -30.05, "Capitania Fluvial de Porto Alegre"),  # Guaíba
        (-40.51, -9.41, "Capitania Fluvial de Juazeiro"),  # São Francisco at Juazeiro
        (-42.00, -22.90, "Delegacia da Capitania dos Portos em Cabo Frio"),  # off Cabo Frio
        (-51.80, 3.90, "Agência da Capitania dos Portos no Oiapoque"),  # Oiapoque river
    ],
)
def test_nearest_seat(lon: float, lat: float, office: str) -> None:
    found = nearest_office(lon, lat)
    assert found is not None and found.name == office


def test_reach_and_distance() -> None:
    # one degree of latitude is 60 NM (the nautical mile's definition, near enough)
    assert distance_nm(-40, -20, -40, -21) == pytest.approx(60.0, rel=0.01)
    assert nearest_office(-20.0, -25.0) is None  # mid-Atlantic: beyond REACH_NM
    assert REACH_NM >= 200  # covers the EEZ from a seat on the coast


@pytest.mark.parametrize(
    ("east_nm", "office"),
    [
        (19.0, "Agência da Capitania dos Portos em São João da Barra"),
        # by hand, 21 NM east of São João da Barra's seat (-41.051, -21.640) is -40.6737:
        # Macaé's seat is 43.9 NM south and 61.9 NM west of it (75.9 NM), Vitória's 79.2
        # NM north and 18.7 NM east (81.4 NM); São João da Barra's Agência reaches 20 NM
        (21.0, "Capitania dos Portos de Macaé"),
    ],
)
def test_an_agency_answers_only_near_its_seat(east_nm: float, office: str) -> None:
    import math

    lat = -21.640
    lon = -41.051 + east_nm / (60.0 * math.cos(math.radians(lat)))
    found = nearest_office(lon, lat)
    assert found is not None and found.name == office


def _zone(zid: str, authority: str, box: tuple[float, float, float, float]) -> Zone:
    return Zone(
        id=zid,
        name=zid,
        kind=ZoneKind.JURISDICTION,
        geometry=shapely.box(*box),
        authority=authority,
    )


def test_overlap_goes_to_the_smaller_zone_not_the_id() -> None:
    big = _zone("a-capitania", "CP", (-45, -25, -40, -20))
    small = _zone("z-delegacia", "DL", (-44.5, -23.2, -44.0, -22.8))
    assert zone_at(-44.3, -23.0, [big, small]).authority == "DL"  # type: ignore[union-attr]
    assert zone_at(-41.0, -21.0, [big, small]).authority == "CP"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("rule", "hidden"), [("SEC-PLATFORM", True), ("SAR-DISTRESS", False), ("PROC-SEAL", False)]
)
def test_silences_never_hide_distress_or_seal(rule: str, hidden: bool) -> None:
    lead = replace(make_lead("L-S", rule=rule), zone_id="plat-p66")
    everything = Silence(1, None, None, None, lead.started_at + 10, "maintenance")
    assert (silence_for(lead, [everything]) is not None) is hidden


@pytest.mark.parametrize(
    ("silence_of", "lead_of", "hidden"),
    [
        ("CP-TESTE-Macaé", "CP-TESTE-Macaé", True),  # its own authority's lead
        ("CP-TESTE-Macaé", "CP-TESTE-Santos", False),  # another Capitania's (issue 21)
        ("CP-TESTE-Macaé", None, False),  # a lead no jurisdiction routed
        (None, "CP-TESTE-Santos", True),  # an unlimited key's silence hides any
    ],
)
def test_a_silence_of_one_authority_hides_only_its_leads(
    silence_of: str | None, lead_of: str | None, hidden: bool
) -> None:
    lead = replace(make_lead("L-A"), zone_id="plat-p66", authority=lead_of)
    vessel = Silence(1, lead.mmsi, None, None, lead.started_at + 10, "survey", silence_of)
    assert (silence_for(lead, [vessel]) is not None) is hidden


def test_nearest_office_agrees_with_a_scan_of_every_seat() -> None:
    """The vectorised search against a plain scan (haversine with math, each office's
    reach, ties by kind then name) at 20,000 points over Brazil and its sea."""
    import random

    rank = {"capitania": 0, "delegacia": 1, "agencia": 2}
    rng = random.Random(7)
    rows = offices()
    for _ in range(20_000):
        lon, lat = rng.uniform(-75.0, -28.0), rng.uniform(-35.0, 6.0)
        near = [
            (round(distance_nm(lon, lat, o.seat_lon, o.seat_lat), 6), rank[o.kind], o.name)
            for o in rows
            if distance_nm(lon, lat, o.seat_lon, o.seat_lat)
            <= (AGENCY_REACH_NM if o.kind == "agencia" else REACH_NM)
        ]
        found = nearest_office(lon, lat)
        assert (found.name if found else None) == (min(near)[2] if near else None), (lon, lat)
