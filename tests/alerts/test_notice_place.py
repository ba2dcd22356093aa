"""The Notice names where and when to appear (issue 32; NORMAM-07 Anexo 3-A): as the
inspector entered them, else the office's address and public-service hours as a public
source gives them (docs/register-sources.md), else blank lines for the agent, never a
guess. And the Auto warns where a holiday from a secondary source falls in its term."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.alerts.test_auto_drafts import PARTY, _known_auto, _lead, _pdf, _text
from vigia.alerts.procedure.auto_terms import DOUBTFUL_PT

ITAJAI = "Delegacia da Capitania dos Portos em Itajaí"
NOTICE = {"date": "2027-03-01", "appear_by": "2027-03-05"}


def _notice(tmp: Path, authority: str | None, notice: dict[str, Any]) -> str:
    proc = {"regime": "lesta", "responsible": [PARTY], "notice": notice}
    lead = replace(_lead("notified", proc), authority=authority)
    return _text(_pdf(lead, tmp, "notice"))


def test_the_register_gives_the_offices_address_and_hours(tmp_path: Path) -> None:
    text = _notice(tmp_path, ITAJAI, NOTICE)
    # the Delegacia's own page (marinha.mil.br/delitajai)
    assert "Endereço para comparecimento: Avenida Prefeito Paulo Bauer, 1055" in text
    assert "Horário de atendimento: 2ª a 6ª feira: 9h às 11h30" in text


def test_what_the_inspector_enters_wins(tmp_path: Path) -> None:
    entered = {**NOTICE, "place": "Cais do Porto, armazém 3", "hours": "das 10h às 11h"}
    text = _notice(tmp_path, ITAJAI, entered)
    assert "Endereço para comparecimento: Cais do Porto, armazém 3" in text
    assert "Horário de atendimento: das 10h às 11h" in text
    assert "Paulo Bauer" not in text


def test_an_office_without_a_source_leaves_blank_lines(tmp_path: Path) -> None:
    # no public source gave the Capitania do Rio de Janeiro's public-service hours
    for authority in ("Capitania dos Portos do Rio de Janeiro", None):
        text = _notice(tmp_path, authority, NOTICE)
        assert "Endereço para comparecimento: ____" in text and "(endereço a preencher)" in text
        assert "Horário de atendimento: ____" in text and "(horário a preencher)" in text


def test_the_auto_warns_of_a_secondary_holiday_in_its_term(tmp_path: Path) -> None:
    paraty = {"seat_state": "RJ", "seat_municipality": "Paraty"}
    # known Mon 30 Aug 2027: the term crosses Paraty's 08/09 (a holiday dataset's) and
    # ends Wed 22 Sep (tests/alerts/test_seat_holidays.py works it out)
    text = _text(_pdf(_lead("infraction", {**paraty, **_known_auto("2027-08-30")}), tmp_path))
    assert "até 22/09/2027" in text and f"Atenção: {DOUBTFUL_PT}" in text
    # known Mon 4 Oct 2027: ends Tue 26 Oct with no such date inside: no warning
    text = _text(_pdf(_lead("infraction", {**paraty, **_known_auto("2027-10-04")}), tmp_path))
    assert "até 26/10/2027" in text and "Atenção" not in text
