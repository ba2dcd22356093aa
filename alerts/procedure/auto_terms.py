"""The defence term as a drafted Auto de Infração states it.

The term runs from the day the infractor learns of the Auto (LESTA, NORMAM-07 0306 b) I)
or of the Laudo Técnico Ambiental (pollution, 0404 b)), not from the day the Auto is
drafted: an Auto handed over days later, or served by post, starts its term then. So
the Auto grants the term in those words, and fills the day of knowledge and the last
day only when the procedure records them; otherwise it leaves both as blank lines for
the agent who serves it. Where the seat's municipal holidays are not known the Auto
says so in plain words: a holiday Vigia lacks would make the last day shown too early,
and one taken from a secondary source, if it is not one, too late.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from vigia.alerts.procedure.calendars import SeatCalendar, has_municipal_calendar
from vigia.alerts.procedure.deadlines import compute_deadlines
from vigia.alerts.procedure.workflow import LESTA, regime_of

DATE_BLANK = "____/____/________"
#: the seat's municipal holidays are not in Vigia's calendars (issue 32)
UNVERIFIED_PT = "calendário municipal da sede não verificado: confirme feriados municipais"
DOUBTFUL_PT = (
    "feriado municipal da sede tirado de fonte secundária (não do ato municipal) conta "
    "neste prazo: confirme feriados municipais"
)
NO_SEAT_PT = "sede não informada: confirme os feriados estaduais e municipais da sede"
_ROLLOVER = (
    "vencendo em dia sem expediente na sede desta Organização Militar, ou em que o "
    "expediente se encerre antes da hora normal, o prazo prorroga-se até o primeiro dia "
    "útil seguinte (Lei 9.784/1999, art. 66, §1º)"
)
LESTA_TERM = (
    "15 (quinze) dias úteis, contados do dia em que tomar conhecimento deste Auto, "
    "excluído esse dia e incluído o do vencimento (NORMAM-07, item 0306 b) I); " + _ROLLOVER
)
POLLUTION_TERM = (
    "20 (vinte) dias, contados da ciência do Laudo Técnico Ambiental do Incidente pelo "
    "autuado, após a intimação para comparecimento, ou do fim do prazo da intimação, se não "
    "comparecer, em dias consecutivos, excluído o dia do começo e incluído o do vencimento "
    "(NORMAM-07, itens 0404 a) III e 0404 b)); " + _ROLLOVER
)


@dataclass(frozen=True, slots=True)
class DefenceTerm:
    """What the Auto says of the defence: the term granted, the day it started (or a
    blank), its last day (or a blank), and what the seat's calendar may lack."""

    sentence: str
    start_label: str
    start: str
    due: str
    note: str | None


def calendar_note_pt(
    state: str | None, municipality: str | None, window: tuple[dt.date, dt.date] | None = None
) -> str | None:
    """The seat calendar's gap, as the Auto says it; None when it is complete. With the
    defence's ``window`` (its first and last day), a municipal holiday from a secondary
    source counts only inside it; without one, any of the seat's counts."""
    if not state:
        return NO_SEAT_PT
    if not has_municipal_calendar(state, municipality):
        return UNVERIFIED_PT
    seat = SeatCalendar(state, municipality)
    note = seat.note if window is None else seat.term_note(*window)
    return None if note is None else DOUBTFUL_PT


def _pt(day: dt.date) -> str:
    return f"{day:%d/%m/%Y}"


def defence_term(
    rule: str, status: str, proc: dict[str, Any], seat: tuple[str | None, str | None]
) -> DefenceTerm:
    """The Auto's defence term for a lead whose procedure is ``proc``, at ``seat``."""
    lesta = regime_of(rule, proc) == LESTA
    defence = next((d for d in compute_deadlines(rule, status, proc) if d.name == "defesa"), None)
    window = None if defence is None else (defence.counted_from, defence.due)
    note = calendar_note_pt(*seat, window)
    if lesta:
        label = "Ciência do autuado:"
    elif defence is not None and not proc.get("report_known_date"):
        # 0404 b): summoned and did not appear, the term runs from the summons' end
        label = "Fim da intimação:"
    else:
        label = "Ciência do Laudo:"
    if defence is None:
        return DefenceTerm(
            LESTA_TERM if lesta else POLLUTION_TERM,
            label,
            f"{DATE_BLANK} (a preencher pelo agente)",
            f"até {DATE_BLANK} (a preencher pelo agente, contado dessa data)",
            note,
        )
    return DefenceTerm(
        LESTA_TERM if lesta else POLLUTION_TERM,
        label,
        _pt(defence.counted_from),
        f"até {_pt(defence.due)} ({defence.basis})",
        note,
    )
