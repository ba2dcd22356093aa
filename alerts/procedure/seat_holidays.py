"""Municipal holidays of the authorities' seat cities, and the federal office closures.

The ``holidays`` package knows Brazil's national and state holidays and, of the seat
cities, only São Paulo capital. Every other seat city's own holidays live in this table,
each with its source. Municipal holidays exist under Lei 9.093/1995 (art. 1º III: the
city's founding centenary year; art. 2º: up to four religious holidays set by municipal
law); the source column names the municipal act where the project found it and, where
it did not, the city's published holiday calendar, so a reviewer knows which rows still
need the act itself. Only fixed-date holidays are kept here; a city whose holidays this
table lacks counts national and state holidays only (``MUNICIPAL_HOLIDAYS`` says which).

Federal *pontos facultativos* are set each year by a Portaria of the Ministério da Gestão
e da Inovação em Serviços Públicos (the yearly list of pontos facultativos). On them a
federal office such as a Capitania does not open, or closes early. Lei 9.784/1999 art. 66
§1º extends a term that ends on a day "em que não houver expediente ou este for encerrado
antes da hora normal" to the next working day. So:

- ``FEDERAL_CLOSED``: days with no office at all (Carnival Monday and Tuesday, Corpus
  Christi): they are not working days, and a term ending on them moves on.
- ``FEDERAL_SHORT``: days the office closes early (Christmas Eve and New Year's Eve, open
  only until 14h): counted as working days, but a term ending on them moves on.
- Ash Wednesday opens *late* (from 14h) and closes at the normal hour: a working day.

Both sets are matched against the package's English names of its "optional" category
and can be replaced per :class:`~vigia.alerts.procedure.calendars.SeatCalendar`.
"""

from __future__ import annotations

from dataclasses import dataclass

FEDERAL_CLOSED: frozenset[str] = frozenset({"Carnival", "Corpus Christi"})
FEDERAL_SHORT: frozenset[str] = frozenset({"Christmas Eve", "New Year's Eve"})


@dataclass(frozen=True, slots=True)
class MunicipalHoliday:
    """A fixed-date municipal holiday: month, day, name and where it is published."""

    month: int
    day: int
    name: str
    source: str


_CAL = "city's official holiday calendar (Lei 9.093/1995 art. 2º); municipal act to cite"

#: (state, folded municipality name) -> its fixed-date municipal holidays
MUNICIPAL_HOLIDAYS: dict[tuple[str, str], tuple[MunicipalHoliday, ...]] = {
    ("RJ", "RIO DE JANEIRO"): (MunicipalHoliday(1, 20, "São Sebastião", _CAL),),
    ("SP", "SANTOS"): (
        MunicipalHoliday(1, 26, "Aniversário de Santos", _CAL),
        MunicipalHoliday(9, 8, "Nossa Senhora do Monte Serrat", _CAL),
    ),
    ("PA", "BELEM"): (MunicipalHoliday(1, 12, "Aniversário de Belém", _CAL),),
    ("AM", "MANAUS"): (
        MunicipalHoliday(10, 24, "Aniversário de Manaus", _CAL),
        MunicipalHoliday(12, 8, "Nossa Senhora da Conceição", _CAL),
    ),
    ("BA", "SALVADOR"): (MunicipalHoliday(12, 8, "Nossa Senhora da Conceição da Praia", _CAL),),
    ("PE", "RECIFE"): (MunicipalHoliday(7, 16, "Nossa Senhora do Carmo", _CAL),),
    ("CE", "FORTALEZA"): (MunicipalHoliday(4, 13, "Aniversário de Fortaleza", _CAL),),
    ("ES", "VITORIA"): (MunicipalHoliday(9, 8, "Nossa Senhora da Vitória", _CAL),),
    ("SC", "FLORIANOPOLIS"): (MunicipalHoliday(3, 23, "Aniversário de Florianópolis", _CAL),),
    ("RS", "PORTO ALEGRE"): (MunicipalHoliday(2, 2, "Nossa Senhora dos Navegantes", _CAL),),
    ("MA", "SAO LUIS"): (MunicipalHoliday(9, 8, "Aniversário de São Luís", _CAL),),
    ("RN", "NATAL"): (MunicipalHoliday(1, 6, "Santos Reis", _CAL),),
}
