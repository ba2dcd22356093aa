"""The drafted Auto as the day it is served needs it (issue 32): the defence term counted
from the infractor's knowledge (filled when the procedure records it, a blank line for
the agent otherwise), a plain warning where the seat's municipal holidays are unknown,
the facts in the seat's local time with UTC beside, and every script a name is written
in printed or the draft refused naming the character.

Dates and times worked out by hand: T0 = 1,767,000,000 s is 20,451 days and 33,600 s
after 1970-01-01, so Mon 29 Dec 2025 09:20:00 UTC; the first fix is at T0, the last at
T0 + 60 s.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_procedure import make_lead
from vigia.alerts.lead import Lead
from vigia.alerts.procedure.documents import draft
from vigia.alerts.procedure.glyphs import UnprintableTextError

RIO = {"seat_state": "RJ", "seat_municipality": "Rio de Janeiro"}
TABATINGA = {"seat_state": "AM", "seat_municipality": "Tabatinga"}
PARTY = {"role": "comandante", "name": "João da Silva"}
UNVERIFIED = "calendário municipal da sede não verificado: confirme feriados municipais"


def _lead(status: str, proc: dict[str, Any], **changes: Any) -> Lead:
    return replace(make_lead("L-AUTO"), status=status, procedure=proc, **changes)


def _pdf(lead: Lead, tmp: Path, kind: str = "auto") -> Path:
    path = tmp / f"{kind}.pdf"
    path.write_bytes(draft(kind, lead, None)[0])
    return path


def _text(path: Path) -> str:
    # poppler-utils (scripts/setup.sh): missing, this fails loudly rather than skipping
    out = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    return " ".join(out.split())  # -layout wraps and pads: compare the words


def _known_auto(known: str, **more: Any) -> dict[str, Any]:
    auto = {"number": "A-1/2026", "date": "2026-10-02", "known_date": known}
    return {"regime": "lesta", "responsible": [PARTY], "auto": {**auto, **more}}


def test_before_it_is_served_the_auto_leaves_the_days_to_the_agent(tmp_path: Path) -> None:
    text = _text(
        _pdf(_lead("triaged", {**RIO, "regime": "lesta", "responsible": [PARTY]}), tmp_path)
    )
    assert "15 (quinze) dias úteis, contados do dia em que tomar conhecimento deste Auto" in text
    assert "Ciência do autuado: ____/____/________ (a preencher pelo agente)" in text
    assert "Prazo da defesa: até ____/____/________ (a preencher pelo agente" in text
    assert "art. 66, §1º" in text and "Atenção" not in text  # Rio's holidays are known


def test_a_known_knowledge_date_fills_the_term(tmp_path: Path) -> None:
    # known Mon 5 Oct 2026 at Rio de Janeiro: 15 working days skip Mon 12 Oct -> Tue 27 Oct
    lead = _lead("infraction", {**RIO, **_known_auto("2026-10-05")})
    text = _text(_pdf(lead, tmp_path))
    assert "Ciência do autuado: 05/10/2026" in text
    assert "Prazo da defesa: até 27/10/2026 (NORMAM-07/DPC 0306 b) I)" in text
    # pollution at Belém: Auto known Mon 5 Oct, Laudo Tue 6 Oct; 20 consecutive days from
    # the later -> Mon 26 Oct
    proc = {
        "seat_state": "PA",
        "seat_municipality": "Belém",
        **_known_auto("2026-10-05"),
        "regime": "pollution",
        "report_known_date": "2026-10-06",
    }
    text = _text(_pdf(_lead("infraction", proc, rule="BW-EXCH-200"), tmp_path))
    assert "20 (vinte) dias, contados da ciência do Laudo Técnico Ambiental do Incidente" in text
    assert "pelo autuado" in text
    assert "Ciência do Laudo: 06/10/2026" in text and "até 26/10/2026" in text


def test_the_auto_says_when_the_seats_municipal_calendar_is_unknown(tmp_path: Path) -> None:
    # Tabatinga (AM): none of its own holidays listed; Mon 5 Oct + 15 working days on the
    # national and state calendars -> Tue 27 Oct, with the warning beside it
    text = _text(_pdf(_lead("infraction", {**TABATINGA, **_known_auto("2026-10-05")}), tmp_path))
    assert "até 27/10/2026" in text and f"Atenção: {UNVERIFIED}" in text
    # before it is served too: the agent counting by hand is told
    text = _text(_pdf(_lead("triaged", {**TABATINGA, "responsible": [PARTY]}), tmp_path))
    assert f"Atenção: {UNVERIFIED}" in text
    text = _text(_pdf(_lead("infraction", {**RIO, **_known_auto("2026-10-05")}), tmp_path))
    assert "Atenção" not in text and UNVERIFIED not in text


@pytest.mark.parametrize(
    ("state", "town", "start", "closest", "offset"),
    [
        # Tabatinga keeps Manaus's time, UTC-4 (tz database: east of the Tabatinga-Porto
        # Acre line); Corumbá UTC-4; Cruzeiro do Sul (Acre) and Eirunepé UTC-5; Rio UTC-3;
        # Fernando de Noronha UTC-2
        ("AM", "Tabatinga", "05:20:00", "05:21:00", "UTC-4"),
        ("MS", "Corumbá", "05:20:00", "05:21:00", "UTC-4"),
        ("AC", "Cruzeiro do Sul", "04:20:00", "04:21:00", "UTC-5"),
        ("AM", "Eirunepé", "04:20:00", "04:21:00", "UTC-5"),
        ("RJ", "Rio de Janeiro", "06:20:00", "06:21:00", "UTC-3"),
        ("PE", "Fernando de Noronha", "07:20:00", "07:21:00", "UTC-2"),
    ],
)
def test_facts_in_the_seats_local_time_with_utc(
    state: str, town: str, start: str, closest: str, offset: str, tmp_path: Path
) -> None:
    seat = {"seat_state": state, "seat_municipality": town}
    text = _text(
        _pdf(_lead("triaged", {**seat, "regime": "lesta", "responsible": [PARTY]}), tmp_path)
    )
    assert (
        f"Horários: hora local da sede, {town}/{state}, {offset}; entre parênteses, em UTC" in text
    )
    assert f"Início: 29/12/2025 {start} (09:20:00 UTC)" in text
    assert f"Fim: 29/12/2025 {closest} (09:21:00 UTC)" in text
    assert f"(WGS-84), 29/12/2025 {closest} (09:21:00 UTC)" in text
    assert "Brasília" not in text


def test_the_seat_comes_from_the_register_when_none_was_entered(tmp_path: Path) -> None:
    lead = _lead("triaged", {"regime": "lesta"}, authority="Agência Fluvial de Eirunepé")
    text = _text(_pdf(lead, tmp_path, "notice"))
    assert "Horários: hora local da sede, Eirunepé/AM, UTC-5" in text
    assert "Início: 29/12/2025 04:20:00 (09:20:00 UTC)" in text
    # no seat at all: Brasília time, said to be so
    lead = _lead("triaged", {"regime": "lesta"}, authority=None)
    text = _text(_pdf(lead, tmp_path, "notice"))
    assert "Horários: hora de Brasília, UTC-3 (sede não informada)" in text
    assert "Início: 29/12/2025 06:20:00 (09:20:00 UTC)" in text


def test_a_chinese_name_and_an_emoji_print(tmp_path: Path) -> None:
    party = {"role": "comandante", "name": "王小明 🚢", "address": "上海市浦东新区 😀"}
    path = _pdf(_lead("triaged", {**RIO, "regime": "lesta", "responsible": [party]}), tmp_path)
    text = _text(path)
    assert "王小明 🚢 / comandante" in text and "上海市浦东新区 😀" in text
    fonts = subprocess.run(["pdffonts", str(path)], check=True, capture_output=True, text=True)
    assert "NotoSansCJK" in fonts.stdout and "Symbola" in fonts.stdout  # drawn, not only text


def test_a_character_no_font_draws_refuses_the_draft(tmp_path: Path) -> None:
    party = {"role": "comandante", "name": "राम"}  # Devanagari: no bundled font draws it
    lead = _lead("triaged", {**RIO, "regime": "lesta", "responsible": [party]})
    with pytest.raises(UnprintableTextError) as err:
        draft("auto", lead, None)
    assert err.value.field == "responsible[0].name"
    assert "U+0930 DEVANAGARI LETTER RA" in str(err.value)
    # a variation selector only asks for a presentation: the heart prints without it
    party = {"role": "comandante", "name": "Ana \u2764\ufe0f"}
    text = _text(_pdf(_lead("triaged", {**RIO, "responsible": [party]}), tmp_path))
    assert "Ana \u2764 / comandante" in text
