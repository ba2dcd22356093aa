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
    ("MA", "SAO LUIS"): (MunicipalHoliday(9, 8, "Aniversário de São Luís", _CAL),),
    ("RN", "NATAL"): (MunicipalHoliday(1, 6, "Santos Reis", _CAL),),
    # found for the register's other seats (docs/register-sources.md): each with the
    # page that publishes it, a municipal decree or the press; the acts still to cite
    ("AC", "CRUZEIRO DO SUL"): (
        MunicipalHoliday(
            8,
            15,
            "Nossa Senhora da Glória",
            "http://www.ac24horas.com/2017/08/14/reparticoes-publicas-nao-funcionam-nesta-segunda-em-cruzeiro-do-sul/",
        ),
    ),
    ("AL", "PENEDO"): (
        MunicipalHoliday(
            12,
            8,
            "Imaculada Conceição",
            "https://boainformacao.com.br/2020/12/confira-o-que-abre-e-fecha-em-penedo-nesse-feriado-de-terca-feira-8/",
        ),
    ),
    ("AM", "TEFE"): (
        MunicipalHoliday(
            6,
            15,
            "Aniversário de Tefé (emancipação política)",
            "https://www.calendario.cnt.br/feriados-tefe-am/",
        ),
    ),
    ("BA", "ILHEUS"): (
        MunicipalHoliday(
            4, 23, "São Jorge", "https://zonasulfmilheus.com.br/noticia/116909/publis/13545"
        ),
    ),
    ("BA", "JUAZEIRO"): (
        MunicipalHoliday(
            7,
            15,
            "Aniversário do município (elevação de Juazeiro à categoria de cidade)",
            "https://www.carlosbritto.com/novo-decreto-define-feriados-municipais-de-juazeiro-sindicato-critica",
        ),
        MunicipalHoliday(
            9,
            8,
            "Nossa Senhora das Grotas, Padroeira de Juazeiro",
            "https://www.carlosbritto.com/novo-decreto-define-feriados-municipais-de-juazeiro-sindicato-critica",
        ),
    ),
    ("MG", "BELO HORIZONTE"): (
        MunicipalHoliday(
            8,
            15,
            "Assunção de Nossa Senhora",
            "https://www.otempo.com.br/mobile/cidades/pbh-divulga-calendario-de-feriados-de-2015-veja-a-lista-1.952688",
        ),
        MunicipalHoliday(
            12,
            8,
            "Imaculada Conceição",
            "https://www.otempo.com.br/mobile/cidades/pbh-divulga-calendario-de-feriados-de-2015-veja-a-lista-1.952688",
        ),
    ),
    ("MT", "CACERES"): (
        MunicipalHoliday(
            6,
            25,
            "Dia Municipal em homenagem ao Padre Geraldo José dos Santos",
            "https://caceresnewsmt.com.br/?p=46643",
        ),
        MunicipalHoliday(
            8, 25, "Padroeiro de Cáceres", "https://amm.diariomunicipal.org/publicacao/1344208"
        ),
        MunicipalHoliday(
            10, 6, "Aniversário de Cáceres", "https://amm.diariomunicipal.org/publicacao/1344208"
        ),
    ),
    ("MT", "SINOP"): (
        MunicipalHoliday(
            6,
            13,
            "Santo Antônio - Padroeiro de Sinop",
            "https://www.sinop.mt.gov.br/portal/noticias/0/3/10958/prefeitura-divulga-relacao-de-feriados-em-2010",
        ),
        MunicipalHoliday(
            9,
            14,
            "Data da Fundação de Sinop",
            "https://www.sinop.mt.gov.br/portal/noticias/0/3/10958/prefeitura-divulga-relacao-de-feriados-em-2010",
        ),
    ),
    ("PR", "FOZ DO IGUACU"): (
        MunicipalHoliday(
            6,
            10,
            "Aniversário do Município",
            "https://www.radioculturafoz.com.br/2014/02/06/municipio-tera-25-feriados-em-seu-calendario-oficial/amp/",
        ),
        MunicipalHoliday(
            6,
            24,
            "Padroeiro da Cidade - São João Batista",
            "https://www.radioculturafoz.com.br/2014/02/06/municipio-tera-25-feriados-em-seu-calendario-oficial/amp/",
        ),
    ),
    ("RJ", "ANGRA DOS REIS"): (
        MunicipalHoliday(
            1, 6, "Aniversário da cidade", "https://feriado.net/feriados-em-angra-dos-reis-rj"
        ),
    ),
    ("RJ", "CABO FRIO"): (
        MunicipalHoliday(
            8,
            15,
            "Nossa Senhora da Assunção",
            "https://prensadebabel.com.br/prefeitura-de-cabo-frio-decreta-ponto-facultativo-nesta-sexta-feira-16",
        ),
        MunicipalHoliday(
            11,
            13,
            "Aniversário de Cabo Frio",
            "https://www.calendario.cnt.br/feriados-cabo-frio-rj/",
        ),
    ),
    ("RJ", "MACAE"): (
        MunicipalHoliday(
            6,
            24,
            "São João Batista",
            "https://odia.ig.com.br/macae/2021/06/6173971-sao-joao-prefeitura-de-macae-decreta-feriado-e-ponto-facultativo-nesta-quinta-e-sexta-feira.html",
        ),
    ),
    ("RS", "PORTO ALEGRE"): (
        MunicipalHoliday(
            2,
            2,
            "Nossa Senhora dos Navegantes",
            "https://acusticafm.com.br/saiba-quais-municipios-da-regiao-celebram-feriado-em-02-de-fevereiro/",
        ),
    ),
    ("SP", "SAO SEBASTIAO"): (
        MunicipalHoliday(
            1,
            20,
            "Dia de São Sebastião",
            "https://www.bol.uol.com.br/noticias/2025/01/17/feriado-dia-20-de-janeiro-saiba-algumas-cidades-que-terao-folga.htm",
        ),
    ),
}
