"""The legal time of an authority's seat, for the facts a drafted document states.

Brazil has four time zones (Decreto 2.784/1913 art. 2º as Lei 12.876/2013 wrote it): UTC-2
for Fernando de Noronha and Trindade; UTC-3 for the Federal District and most states;
UTC-4 for Mato Grosso, Mato Grosso do Sul, Rondônia, Roraima and Amazonas east of the
line from Tabatinga to Porto Acre; UTC-5 for Acre and Amazonas west of that line. No
daylight saving time since Decreto 9.772/2019. A document drafted at a seat in Manaus
or Cruzeiro do Sul states the time of the fact as the people there read their clocks,
with the UTC instant beside it, so nobody converts by hand.

The zones are the IANA tz database's (``zoneinfo``), which carries the history (western
Amazonas and Acre were UTC-4 from 2008 to 2013): a fact is converted with the offset of
its own day. The state gives the zone; the municipalities of a state that spans two
zones are listed by name. The tz database's own notes (file ``southamerica``) name the
places: "west Amazonas: Atalaia do Norte, Boca do Maoco, Benjamin Constant, Eirunepé,
Envira, Ipixuna" (Guajará, west of them, too); Boca do Acre, Jutaí and Tabatinga keep
Manaus's time; west Pará (Altamira, Óbidos, Oriximiná, Santarém) has its own zone, on
UTC-3 since 2008.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from vigia.alerts.procedure.register import office_named
from vigia.alerts.procedure.seat_holidays import fold_name

#: the zone of each state's seats (tz database ``zone1970.tab`` and ``southamerica``)
STATE_ZONES: dict[str, str] = {
    "AC": "America/Rio_Branco",
    "AL": "America/Maceio",
    "AM": "America/Manaus",
    "AP": "America/Belem",
    "BA": "America/Bahia",
    "CE": "America/Fortaleza",
    "DF": "America/Sao_Paulo",
    "ES": "America/Sao_Paulo",
    "GO": "America/Sao_Paulo",
    "MA": "America/Fortaleza",
    "MG": "America/Sao_Paulo",
    "MS": "America/Campo_Grande",
    "MT": "America/Cuiaba",
    "PA": "America/Belem",
    "PB": "America/Fortaleza",
    "PE": "America/Recife",
    "PI": "America/Fortaleza",
    "PR": "America/Sao_Paulo",
    "RJ": "America/Sao_Paulo",
    "RN": "America/Fortaleza",
    "RO": "America/Porto_Velho",
    "RR": "America/Boa_Vista",
    "RS": "America/Sao_Paulo",
    "SC": "America/Sao_Paulo",
    "SE": "America/Maceio",
    "SP": "America/Sao_Paulo",
    "TO": "America/Araguaina",
}

#: municipalities whose zone is not their state's, by (state, folded name)
MUNICIPAL_ZONES: dict[tuple[str, str], str] = {
    **{
        ("AM", town): "America/Eirunepe"
        for town in (
            "ATALAIA DO NORTE",
            "BENJAMIN CONSTANT",
            "EIRUNEPE",
            "ENVIRA",
            "GUAJARA",
            "IPIXUNA",
        )
    },
    ("PE", "FERNANDO DE NORONHA"): "America/Noronha",
    **{
        ("PA", town): "America/Santarem"
        for town in ("ALTAMIRA", "OBIDOS", "ORIXIMINA", "PRAINHA", "SANTAREM")
    },
}

#: where no seat is known, the country's legal reference time
BRASILIA = "America/Sao_Paulo"


@lru_cache(maxsize=128)
def seat_zone(state: str | None, municipality: str | None) -> ZoneInfo | None:
    """The IANA zone of a seat, or None when its state is not known."""
    if not state or state not in STATE_ZONES:
        return None
    name = MUNICIPAL_ZONES.get((state, fold_name(municipality or "")), STATE_ZONES[state])
    return ZoneInfo(name)


def seat_of(procedure: dict[str, Any], authority: str | None) -> tuple[str | None, str | None]:
    """The seat (state, municipality) a lead's documents speak from: as the procedure
    recorded it (the first move copies it from the jurisdiction zone or the register),
    else the bundled register's office of its authority, else unknown."""
    state = procedure.get("seat_state")
    if state:
        return str(state), procedure.get("seat_municipality") or None
    office = office_named(authority) if authority else None
    if office is None:
        return None, None
    return office.seat_state, office.seat_municipality


def _offset(local: dt.datetime) -> str:
    delta = local.utcoffset() or dt.timedelta()
    minutes = int(delta.total_seconds() // 60)
    sign, minutes = ("-" if minutes < 0 else "+"), abs(minutes)
    hours, rest = divmod(minutes, 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def _local(t: float, state: str | None, municipality: str | None) -> dt.datetime:
    zone = seat_zone(state, municipality) or ZoneInfo(BRASILIA)
    return dt.datetime.fromtimestamp(t, dt.UTC).astimezone(zone)


def fact_time_pt(t: float, state: str | None, municipality: str | None) -> str:
    """A fact's instant in Portuguese: the seat's local time (Brasília's when the seat is
    not known), and the same instant in UTC beside it, its date only where it differs."""
    local = _local(t, state, municipality)
    utc = local.astimezone(dt.UTC)
    same_day = utc.date() == local.date()
    return (
        f"{local:%d/%m/%Y %H:%M:%S} ({utc:%H:%M:%S} UTC)"
        if same_day
        else (f"{local:%d/%m/%Y %H:%M:%S} ({utc:%d/%m/%Y %H:%M:%S} UTC)")
    )


def zone_pt(t: float, state: str | None, municipality: str | None) -> str:
    """Which local time :func:`fact_time_pt` states, with its offset on the fact's day."""
    offset = _offset(_local(t, state, municipality))
    if seat_zone(state, municipality) is None:
        return f"hora de Brasília, {offset} (sede não informada); entre parênteses, em UTC"
    where = f"{municipality}/{state}" if municipality else str(state)
    return f"hora local da sede, {where}, {offset}; entre parênteses, em UTC"
