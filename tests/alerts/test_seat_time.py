"""The legal time of each seat (Decreto 2.784/1913 as Lei 12.876/2013 wrote it), converted
by hand: T0 = 1,767,000,000 s is Mon 29 Dec 2025 09:20:00 UTC (20,451 days and 33,600 s
after 1970-01-01); 1,300,000,000 s is Sun 13 Mar 2011 07:06:40 UTC (15,046 days and
25,600 s), when Lei 11.662/2008 had put Acre on UTC-4 (until 10 Nov 2013)."""

from __future__ import annotations

import pytest

from vigia.alerts.procedure.register import offices
from vigia.alerts.procedure.seat_time import fact_time_pt, seat_of, seat_zone, zone_pt

T0 = 1_767_000_000.0


def test_every_office_of_the_register_has_a_zone() -> None:
    for office in offices():
        assert seat_zone(office.seat_state, office.seat_municipality) is not None, office.name


@pytest.mark.parametrize(
    ("state", "town", "zone", "local"),
    [
        ("AM", "Manaus", "America/Manaus", "05:20:00"),
        ("AM", "Tabatinga", "America/Manaus", "05:20:00"),
        ("AM", "Boca do Acre", "America/Manaus", "05:20:00"),  # east of the line
        ("AM", "Eirunepé", "America/Eirunepe", "04:20:00"),
        ("AC", "Cruzeiro do Sul", "America/Rio_Branco", "04:20:00"),
        ("RO", "Porto Velho", "America/Porto_Velho", "05:20:00"),
        ("MT", "Cuiabá", "America/Cuiaba", "05:20:00"),
        ("MS", "Corumbá", "America/Campo_Grande", "05:20:00"),
        ("RR", "Caracaraí", "America/Boa_Vista", "05:20:00"),
        ("PA", "Santarém", "America/Santarem", "06:20:00"),
        ("PA", "Belém", "America/Belem", "06:20:00"),
        ("TO", "Palmas", "America/Araguaina", "06:20:00"),
        ("BA", "Salvador", "America/Bahia", "06:20:00"),
        ("PE", "Recife", "America/Recife", "06:20:00"),
        ("PE", "Fernando de Noronha", "America/Noronha", "07:20:00"),
        ("RJ", "Rio de Janeiro", "America/Sao_Paulo", "06:20:00"),
    ],
)
def test_hand_converted_times(state: str, town: str, zone: str, local: str) -> None:
    assert str(seat_zone(state, town)) == zone
    assert fact_time_pt(T0, state, town) == f"29/12/2025 {local} (09:20:00 UTC)"
    assert zone_pt(T0, state, town).startswith(f"hora local da sede, {town}/{state}, UTC-")


def test_the_offset_of_the_facts_own_day() -> None:
    assert (
        fact_time_pt(1_300_000_000, "AC", "Cruzeiro do Sul") == "13/03/2011 03:06:40 (07:06:40 UTC)"
    )
    assert zone_pt(1_300_000_000, "AC", "Cruzeiro do Sul") == (
        "hora local da sede, Cruzeiro do Sul/AC, UTC-4; entre parênteses, em UTC"
    )
    assert zone_pt(T0, "AC", "Cruzeiro do Sul").startswith(
        "hora local da sede, Cruzeiro do Sul/AC, UTC-5"
    )
    # eight hours earlier it is still the 28th in Acre: the UTC date is stated too
    assert fact_time_pt(T0 - 8 * 3600, "AC", "Cruzeiro do Sul") == (
        "28/12/2025 20:20:00 (29/12/2025 01:20:00 UTC)"
    )


def test_the_seat_of_a_lead() -> None:
    assert seat_of({"seat_state": "MS", "seat_municipality": "Corumbá"}, None) == ("MS", "Corumbá")
    assert seat_of({}, "Capitania Fluvial de Tabatinga") == ("AM", "Tabatinga")
    assert seat_of({}, "no such office") == (None, None)
    assert fact_time_pt(T0, None, None) == "29/12/2025 06:20:00 (09:20:00 UTC)"
    assert zone_pt(T0, None, None).startswith("hora de Brasília, UTC-3 (sede não informada)")
