"""Municipal holidays of the authorities' seat cities, and the federal office closures.

The ``holidays`` package knows Brazil's national and state holidays and, of the seat
cities, only São Paulo capital. Every other seat city's own holidays live in this table,
each with its source. Municipal holidays exist under Lei 9.093/1995 (art. 1º III: the
city's founding centenary year; art. 2º: up to four religious holidays set by municipal
law). The table is ``municipal_holidays.csv`` beside this module, one row per holiday:
the act where the source names one, the source (the prefeitura, the press quoting the
decree, or, weakest, a holiday-calendar site), and whether it is confirmed. Only
fixed-date holidays are kept; a city whose holidays the table lacks counts national and
state holidays only, and its terms say so.

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

import csv
import io
import unicodedata
from dataclasses import dataclass
from importlib import resources

FEDERAL_CLOSED: frozenset[str] = frozenset({"Carnival", "Corpus Christi"})
FEDERAL_SHORT: frozenset[str] = frozenset({"Christmas Eve", "New Year's Eve"})


@dataclass(frozen=True, slots=True)
class MunicipalHoliday:
    """A fixed-date municipal holiday: month, day, name, where it is published, the
    municipal act when the source names one, and whether the source is primary enough
    to count a term on without a check (``confirmed``)."""

    month: int
    day: int
    name: str
    source: str
    act: str = ""
    confirmed: bool = True


def fold_name(text: str) -> str:
    """A place name as the tables key it: accents dropped, upper case, single spaces
    (the calendars, the municipal holidays and the seats' legal time all look up by it)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(plain.upper().split())


def _load() -> dict[tuple[str, str], tuple[MunicipalHoliday, ...]]:
    text = resources.files("vigia.alerts.procedure").joinpath(_CSV).read_text("utf-8")
    out: dict[tuple[str, str], list[MunicipalHoliday]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        key = (row["state"], fold_name(row["municipality"]))
        day = MunicipalHoliday(
            int(row["month"]),
            int(row["day"]),
            row["name"],
            row["source"],
            row["act"],
            row["confirmed"] == "yes",
        )
        out.setdefault(key, []).append(day)
    return {key: tuple(days) for key, days in out.items()}


#: the table: one row per holiday, with its source; ``confirmed`` is ``no`` where the
#: only source is a holiday-calendar site or a community dataset, or the researcher
#: found it doubtful (docs/procedure-terms.md, "Calendars")
_CSV = "municipal_holidays.csv"

#: (state, folded municipality name) -> its fixed-date municipal holidays
MUNICIPAL_HOLIDAYS: dict[tuple[str, str], tuple[MunicipalHoliday, ...]] = _load()

#: seats with no holidays of their own beyond those the ``holidays`` package knows for
#: their state: the Distrito Federal has no municipalities, and its district holidays
#: (21 April, the founding of Brasília; 30 November, Dia do Evangélico: Decreto DF
#: 45.425/2024, Lei Distrital 963/1995) are the package's BR-DF ones
NONE_OF_THEIR_OWN: frozenset[tuple[str, str]] = frozenset({("DF", "BRASILIA")})
