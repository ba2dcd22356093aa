"""Every seat's municipal holidays (issue 32): each office of the register has its seat's
holidays listed with a source, or is named here as a seat whose calendar is not known
(and its terms say so). The dates below are transcribed by hand from the sources quoted
in alerts/procedure/municipal_holidays.csv, not read from it, and checked against the
calendar the terms are counted on, in three years, on both sides of each date."""

from __future__ import annotations

import csv
import datetime as dt
import unicodedata
from importlib import resources

import pytest

from vigia.alerts.procedure.calendars import SeatCalendar, calendar_note
from vigia.alerts.procedure.deadlines import compute_deadlines
from vigia.alerts.procedure.register import offices

#: seat -> its fixed-date municipal holidays ("DD/MM"), by hand from the sources
HAND: dict[str, tuple[str, ...]] = {
    "AC/Cruzeiro do Sul": ("15/08",),
    "AL/Maceió": ("29/06", "27/08", "08/12"),
    "AL/Penedo": ("08/12",),
    "AM/Manaus": ("24/10", "08/12"),
    "AM/Tefé": ("15/06",),
    "AP/Santana": ("26/07",),
    "BA/Bom Jesus da Lapa": ("06/08", "15/09"),
    "BA/Ilhéus": ("23/04",),
    "BA/Juazeiro": ("15/07", "08/09"),
    "BA/Salvador": ("08/12",),
    "CE/Camocim": ("29/09",),
    "CE/Fortaleza": ("15/08",),  # 13/04 is only a municipal ponto facultativo
    "ES/Vitória": ("08/09",),
    "GO/Goiânia": ("24/05", "24/10"),
    "MA/Imperatriz": ("16/07",),
    "MA/São Luís": ("29/06", "08/09", "08/12"),
    "MG/Belo Horizonte": ("15/08", "08/12"),
    "MG/Pirapora": ("20/01",),
    "MS/Corumbá": ("02/02", "13/06", "24/06", "21/09"),
    "MS/Porto Murtinho": ("13/06",),
    "MT/Cuiabá": ("08/04", "08/12"),
    "MT/Cáceres": ("25/06", "25/08", "06/10"),
    "MT/Sinop": ("13/06", "14/09"),
    "PA/Belém": ("08/12",),  # 12/01 is only a municipal ponto facultativo
    "PA/Santarém": ("22/06", "08/12"),
    "PB/João Pessoa": ("24/06", "05/08", "08/12"),
    "PE/Recife": ("24/06", "16/07", "08/12"),
    "PI/Parnaíba": ("14/08", "08/09"),
    "PR/Foz do Iguaçu": ("10/06", "24/06"),
    "PR/Guaíra": ("02/02", "14/11"),
    "PR/Paranaguá": ("29/07", "07/10"),
    "RJ/Angra dos Reis": ("06/01",),
    "RJ/Cabo Frio": ("15/08", "13/11"),
    "RJ/Macaé": ("24/06",),
    "RJ/Mangaratiba": ("08/09", "11/11"),
    "RJ/Paraty": ("28/02", "08/09"),
    "RJ/Rio de Janeiro": ("20/01",),
    "RJ/São João da Barra": ("17/06", "24/06"),
    "RN/Areia Branca": ("15/08", "08/12"),
    "RN/Natal": ("06/01", "21/11"),
    "RO/Guajará-Mirim": ("10/04", "12/07", "06/08", "08/12"),
    "RO/Porto Velho": ("24/01", "24/05", "02/10"),
    "RR/Caracaraí": ("20/01", "27/05"),
    "RS/Porto Alegre": ("02/02",),
    "RS/Rio Grande": ("02/02", "29/06"),
    "RS/Tramandaí": ("02/02",),
    "RS/Uruguaiana": ("26/07",),
    "SC/Florianópolis": ("23/03",),
    "SC/Itajaí": ("15/06",),
    "SC/Laguna": ("02/02", "13/06"),
    "SC/São Francisco do Sul": ("15/04", "08/09"),
    "SE/Aracaju": ("17/03", "24/06", "08/12"),
    "SP/Barra Bonita": ("19/03",),
    "SP/Presidente Epitácio": ("27/03", "29/06", "15/08"),
    "SP/Santos": ("26/01", "08/09"),
    "SP/São Sebastião": ("20/01",),
    "TO/Palmas": ("19/03", "20/05"),
}
#: seats whose own holidays the package knows (São Paulo is not a seat; the Distrito
#: Federal has no municipalities: its district holidays are the package's BR-DF)
PACKAGE = {"DF/Brasília"}
#: seats no source was found for (docs/register-sources.md): their terms are not certain
UNKNOWN = {
    "AM/Boca do Acre", "AM/Eirunepé", "AM/Humaitá", "AM/Parintins", "AM/Tabatinga",
    "AP/Oiapoque", "BA/Porto Seguro", "MG/São José da Barra",
}  # fmt: skip
#: seats with a date only a holiday-calendar site or the press gives (confirmed = no)
SECONDARY = {
    "AM/Tefé", "BA/Bom Jesus da Lapa", "CE/Camocim", "MA/São Luís", "PA/Belém",
    "PI/Parnaíba", "PR/Guaíra",
    "PR/Paranaguá", "RJ/Angra dos Reis", "RJ/Cabo Frio", "RJ/Mangaratiba", "RJ/Paraty",
    "RJ/São João da Barra", "RN/Areia Branca", "RO/Guajará-Mirim", "RR/Caracaraí",
    "SC/Laguna", "SC/São Francisco do Sul", "SP/Barra Bonita", "SP/Presidente Epitácio",
}  # fmt: skip


def _seat(key: str) -> SeatCalendar:
    state, town = key.split("/")
    return SeatCalendar(state, town)


def test_every_seat_of_the_register_is_accounted_for() -> None:
    seats = {f"{o.seat_state}/{o.seat_municipality}" for o in offices()}
    assert len(seats) == 66
    assert seats == set(HAND) | PACKAGE | UNKNOWN
    for key in UNKNOWN:
        note = _seat(key).note
        assert note is not None and "not in Vigia's calendars" in note
    for key in PACKAGE | (set(HAND) - SECONDARY):
        assert _seat(key).note is None, key
    for key in SECONDARY:
        note = _seat(key).note
        assert note is not None and "secondary source" in note, key


@pytest.mark.parametrize("key", sorted(HAND))
def test_each_seats_municipal_dates_close_its_office(key: str) -> None:
    seat, state_only = _seat(key), SeatCalendar(key.split("/")[0])
    for year in (2026, 2027, 2028):
        for text in HAND[key]:
            day, month = map(int, text.split("/"))
            date = dt.date(year, month, day)
            if date.weekday() >= 5:
                continue
            assert not seat.is_working_day(date), (key, date)
            assert not seat.can_end_term(date)
            # the day is the city's: the state's other seats work on it, unless the
            # state or the nation keeps it too (5 Aug in Paraíba, 2 Feb nowhere else)
            others = state_only.is_working_day(date)
            if others:
                assert seat.roll_forward(date) > date
    # and a seat works on the weekdays next to them, unless they are holidays too
    day, month = map(int, HAND[key][0].split("/"))
    ordinary = [
        d
        for d in (dt.date(2027, month, day) + dt.timedelta(days=k) for k in (-2, -1, 1, 2))
        if d.weekday() < 5 and d.strftime("%d/%m") not in HAND[key]
    ]
    assert any(seat.is_working_day(d) for d in ordinary), (key, ordinary)


def test_every_row_names_its_source() -> None:
    text = resources.files("vigia.alerts.procedure").joinpath("municipal_holidays.csv")
    rows = list(csv.DictReader(text.read_text("utf-8").splitlines()))
    assert len(rows) == sum(len(v) for v in HAND.values())
    for row in rows:
        assert row["source"].startswith(("http://", "https://")), row
        assert row["confirmed"] in {"yes", "no"} and row["name"]
        dt.date(2028, int(row["month"]), int(row["day"]))  # a real day (2028: leap)
        plain = unicodedata.normalize("NFC", row["municipality"])
        assert f"{row['state']}/{plain}" in HAND


def _defence(seat: str, known: str) -> dict[str, object]:
    state, town = seat.split("/")
    proc = {
        "seat_state": state,
        "seat_municipality": town,
        "auto": {"number": "A", "date": known, "known_date": known},
    }
    return next(d.to_json() for d in compute_deadlines("SEC-PLATFORM", "infraction", proc)
                if d.name == "defesa")  # fmt: skip


def test_a_secondary_date_makes_only_the_terms_across_it_uncertain() -> None:
    # Paraty (RJ): 08/09 (Nossa Senhora dos Remédios) only from a holiday dataset. Auto
    # known Mon 30 Aug 2027: 15 working days: 31 Aug, 1-3 Sep (4), Mon 6 (5), Tue 7
    # national, Wed 8 Paraty's, 9-10 (7), 13-17 (12), 20-22 (15) -> Wed 22 Sep, across
    # the doubtful day: not certain
    d = _defence("RJ/Paraty", "2027-08-30")
    assert d["due"] == "2027-09-22" and d["certain"] is False
    assert isinstance(d["note"], str) and "08/09" in d["note"] and "28/02" not in d["note"]
    # Auto known Mon 4 Oct 2027: 5-8 (4), Mon 11 (5), Tue 12 national, 13-15 (8),
    # 18-22 (13), 25-26 (15) -> Tue 26 Oct; no doubtful day inside: certain
    d = _defence("RJ/Paraty", "2027-10-04")
    assert (d["due"], d["certain"], d["note"]) == ("2027-10-26", True, None)
    # the lead's calendar still says the seat has a doubtful date
    assert "secondary source" in str(calendar_note("RJ", "Paraty"))
