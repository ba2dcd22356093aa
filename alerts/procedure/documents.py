"""Drafts of the procedure's documents, in Portuguese, as PDF: the Notificação para
Comparecimento (NORMAM-07 Anexo 3-A, 0306 a) I) and the Auto de Infração (Anexo 3-B,
0306 a) and 0404 a)).

Vigia fills what the evidence establishes (vessel, place and time, the article broken,
the evidence summary and its map) and leaves blank what a person must complete:
signatures, witnesses, refusal to sign, and anything the inspector has not entered.
The annexes' official layouts are published by the DPC, not in the seeds; these drafts
carry their fields, not their typography.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from vigia.alerts.lead import Lead
from vigia.alerts.procedure.auto_terms import defence_term
from vigia.alerts.procedure.docmap import draw_evidence_map
from vigia.alerts.procedure.glyphs import (
    FONT,
    add_fonts,
    check_entered,
    clean_text,
    drawn,
    printable,
)
from vigia.alerts.procedure.infractions import POLLUTION_RULES
from vigia.alerts.procedure.penalties import penalty_article
from vigia.alerts.procedure.register import office_named
from vigia.alerts.procedure.seat_time import fact_time_pt, seat_of, zone_pt
from vigia.alerts.procedure.workflow import LESTA, check_issuable, regime_of
from vigia.zones.model import Zone

BLANK = "_" * 28
KIND_PT = {
    "platform": "zona de segurança de plataforma",
    "military": "área militar",
    "bather_beach": "área de banhistas",
    "anchorage": "fundeadouro",
    "access_channel": "canal de acesso",
    "port_facility": "instalação portuária",
    "power_plant": "usina",
    "special_area": "área especial (Aviso aos Navegantes)",
    "launch_area": "área de lançamento",
}
TITLES = {
    "notice": ("NOTIFICAÇÃO PARA COMPARECIMENTO", "NORMAM-07/DPC, item 0306 a) I - Anexo 3-A"),
    "auto": ("AUTO DE INFRAÇÃO", "NORMAM-07/DPC, item 0306 a) - Anexo 3-B"),
}
#: under Lei 9.966 the Auto comes first and the intimação follows it (0404 a), b))
POLLUTION_TITLES = {
    "notice": ("INTIMAÇÃO PARA COMPARECIMENTO", "NORMAM-07/DPC, item 0404 b); Lei 9.966/2000"),
    "auto": ("AUTO DE INFRAÇÃO", "NORMAM-07/DPC, item 0404 a) - Anexo 3-B; Lei 9.966/2000"),
}


def _dms(value: float, pos: str, neg: str, width: int) -> str:
    hemi = pos if value >= 0 else neg
    value = abs(value)
    deg = int(value)
    minutes = (value - deg) * 60
    return f"{deg:0{width}d}°{minutes:06.3f}'{hemi}".replace(".", ",")


#: ITU-R M.1371-5 Table 53, ship and cargo type, in words (first digit, then exceptions)
_TYPE_TENS = {
    2: "embarcação de efeito solo (WIG)",
    4: "embarcação de alta velocidade",
    6: "navio de passageiros",
    7: "navio de carga",
    8: "navio-tanque",
    9: "outro tipo",
}
_TYPE_EXACT = {
    30: "pesca",
    31: "rebocador",
    32: "rebocador",
    33: "dragagem ou operação submarina",
    34: "mergulho",
    35: "operação militar",
    36: "veleiro",
    37: "embarcação de recreio",
    50: "embarcação de praticagem",
    51: "busca e salvamento",
    52: "rebocador",
    53: "apoio portuário",
    54: "combate à poluição",
    55: "aplicação da lei",
    58: "transporte médico",
    59: "embarcação não combatente (Res. 18)",
}


def ship_type_pt(code: Any) -> str:
    """The AIS ship type in words, with its code (``"pesca (30)"``)."""
    if not isinstance(code, int) or not 0 < code < 100:
        return "-"
    words = _TYPE_EXACT.get(code) or _TYPE_TENS.get(code // 10) or "não especificado"
    return f"{words} ({code})"


def num_pt(value: Any, digits: int = 1) -> str:
    """A number with the decimal comma (``18,0``)."""
    if not isinstance(value, int | float):
        return "-"
    return f"{value:.{digits}f}".replace(".", ",")


def _sentence(text: str) -> str:
    # str.capitalize() would lower every later letter: "NORMAM-20" -> "normam-20"
    return text[:1].upper() + text[1:]


def _date_pt(value: str | None) -> str:
    return dt.date.fromisoformat(value).strftime("%d/%m/%Y") if value else BLANK


class _Doc(FPDF):
    def __init__(self, footer_text: str) -> None:
        super().__init__(format="A4")
        add_fonts(self)
        #: what the loaded fonts draw: text with anything else is refused, not cut
        self.points = drawn(self)
        self._footer_text = footer_text
        self.set_margins(15, 15, 15)
        self.set_auto_page_break(True, 18)

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(FONT, "I", 7)
        self.cell(0, 4, f"{self._footer_text} - página {self.page_no()} de {{nb}}", align="C")

    def normalize_text(self, text: str) -> str:
        return super().normalize_text(printable(clean_text(text), self.points))

    def heading(self, text: str) -> None:
        self.ln(1.5)
        self.set_font(FONT, "B", 9.5)
        self.set_fill_color(235, 235, 235)
        self.cell(0, 5.5, text, fill=True, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.set_font(FONT, "", 9)

    def field(self, label: str, value: Any) -> None:
        self.set_font(FONT, "B", 9)
        self.cell(48, 5, label)
        self.set_font(FONT, "", 9)
        text = BLANK if value in (None, "") else str(value)
        self.multi_cell(0, 5, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def para(self, text: str) -> None:
        self.set_font(FONT, "", 9)
        self.multi_cell(0, 4.8, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def signature(self, label: str) -> None:
        self.ln(7)
        self.cell(0, 4, "_" * 60, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.set_font(FONT, "", 8)
        self.multi_cell(0, 4, label, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.set_font(FONT, "", 9)


def _offence(lead: Lead, zone: Zone | None) -> str:
    """The conduct, in the words of the rule the lead broke (the regime and the penalty
    article follow the same rule, so the three agree)."""
    if lead.rule in POLLUTION_RULES:
        return "gerenciamento de água de lastro em desacordo com a NORMAM-20 (Lei 9.966/2000)"
    if lead.rule == "PROC-SEAL":
        return "movimentação de embarcação apreendida ou lacrada (NORMAM-07, item 0310)"
    if lead.rule == "ATON-DAMAGE":
        # the lead's vessel is the damaged aid; the Auto names the vessel held responsible
        aid = lead.vessel.get("name") or "sinal náutico"
        return f"dano a sinal náutico: {aid}, MMSI {lead.mmsi} (NORMAM-07, item 0207)"
    kind = KIND_PT.get(lead.zone_kind or "", lead.zone_kind or "zona")
    name = zone.name if zone is not None and zone.name else lead.zone_id or BLANK
    return f"navegação em desacordo com as restrições de {kind} ({name})"


def draft(
    kind: str, lead: Lead, zone: Zone | None, vessel: dict[str, Any] | None = None
) -> tuple[bytes, dict[str, Any]]:
    """The draft ``notice`` or ``auto`` for ``lead`` as PDF bytes, and what its map shows;
    refused, as the move to it would be, for a lead that can never become one."""
    check_issuable(lead.rule, lead.status, lead.procedure)
    lesta = regime_of(lead.rule, lead.procedure) == LESTA
    title, basis = (TITLES if lesta else POLLUTION_TITLES)[kind]
    proc = lead.procedure
    seat = seat_of(proc, lead.authority)  # facts in its local time (Decreto 2.784/1913)
    info = {**lead.vessel, **(vessel or {})}
    mmsi = lead.mmsi
    chosen = proc.get("vessel") or (proc.get("auto") or {}).get("vessel")
    if isinstance(chosen, dict) and chosen.get("mmsi"):
        # ATON-DAMAGE: the lead's MMSI is the aid's; the Auto names the chosen vessel
        info, mmsi = {k: v for k, v in chosen.items() if v is not None}, int(chosen["mmsi"])
    pdf = _Doc(f"Minuta gerada pelo Vigia a partir do indício {lead.id}; conferir antes de assinar")
    # refused before drawing, naming the field, rather than midway by normalize_text
    check_entered(proc, pdf.points)
    check_entered(
        {"vessel": info, "authority": lead.authority, "zone": zone.name if zone else None},
        pdf.points,
    )
    pdf.add_page()
    pdf.set_font(FONT, "B", 11)
    pdf.cell(0, 6, "MARINHA DO BRASIL", align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font(FONT, "", 10)
    authority = lead.authority or f"Capitania / Delegacia / Agência: {BLANK}"
    pdf.cell(0, 5.5, authority, align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(2)
    pdf.set_font(FONT, "B", 13)
    number = (proc.get("notice" if kind == "notice" else "auto") or {}).get("number")
    pdf.cell(0, 7, f"{title} Nº {number or BLANK}", align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font(FONT, "I", 8)
    pdf.cell(0, 4, basis, align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    pdf.heading("1. EMBARCAÇÃO")
    pdf.field("Nome:", info.get("name"))
    pdf.field("MMSI / IMO:", f"{mmsi} / {info.get('imo') or BLANK}")
    pdf.field("Indicativo de chamada:", info.get("callsign"))
    pdf.field(
        "Tipo AIS / comprimento:",
        f"{ship_type_pt(info.get('ship_type'))} / {num_pt(info.get('length_m'))} m",
    )
    pdf.field("Bandeira (MID):", info.get("flag_mid"))
    pdf.field("Nº de inscrição:", (proc.get("auto") or {}).get("inscription"))

    pdf.heading("2. RESPONSÁVEL (NORMAM-07, item 0304)")
    parties = proc.get("responsible") or [{}]
    for party in parties:
        pdf.field(
            "Nome / qualidade:", " / ".join(x for x in (party.get("name"), party.get("role")) if x)
        )
        pdf.field("CPF / CNPJ / documento:", party.get("document"))
        # a licence is held by whoever was aboard or conning (RLESTA art. 8: suspension
        # of the Certificado de Habilitação falls only on those embarked and the pilot)
        if party.get("role") in (None, "comandante", "tripulante", "pratico") or party.get(
            "licence"
        ):
            pdf.field("Habilitação (CHA) nº:", party.get("licence"))
        pdf.field("Endereço:", party.get("address"))

    pdf.heading("3. LOCAL, DATA E HORA DO FATO")
    pdf.field("Horários:", zone_pt(lead.started_at, *seat))
    pdf.field("Início:", fact_time_pt(lead.started_at, *seat))
    pdf.field(
        "Fim:", fact_time_pt(lead.ended_at, *seat) if lead.ended_at is not None else "em curso"
    )
    pdf.field(
        "Maior aproximação:",
        f"{_dms(lead.closest_lat, 'N', 'S', 2)} {_dms(lead.closest_lon, 'E', 'W', 3)} "
        f"(WGS-84), {fact_time_pt(lead.closest_t, *seat)}",
    )
    if lead.zone_id:
        pdf.field("Zona:", f"{(zone.name if zone else None) or lead.zone_id} ({lead.zone_id})")

    pdf.heading("4. INFRAÇÃO E DISPOSITIVO INFRINGIDO")
    pdf.para(
        f"{_sentence(_offence(lead, zone))}. Dispositivo: {lead.citation} (regra {lead.rule})."
    )
    article = penalty_article(lead.rule)
    if article is not None:
        pdf.field("Penalidade (base legal):", article.citation)

    pdf.heading("5. RESUMO DAS EVIDÊNCIAS (AIS)")
    sog = "-" if lead.max_sog_kn is None else f"{num_pt(lead.max_sog_kn)} nós"
    pdf.para(
        f"Distância mínima à referência da zona: {lead.min_distance_m:.0f} m. Velocidade máxima: "
        f"{sog}. {len(lead.evidence)} posições AIS registradas do início ao fim do episódio, "
        f"mantidas inalteradas como evidência (NORMAM-07, itens 0302 e 0402). Fonte: "
        f"mensagens AIS recebidas pelo Vigia; relação completa no indício {lead.id}."
    )
    if pdf.get_y() + 95 > pdf.h - 20:
        pdf.add_page()
    top = pdf.get_y() + 2
    shown = draw_evidence_map(pdf, lead, zone, (15, top, 180, 88))
    pdf.set_y(top + 89)
    pdf.set_font(FONT, "I", 7.5)
    pdf.multi_cell(
        0,
        3.6,
        "Mapa: terra (bege; cartas náuticas da DHN onde há, Natural Earth 1:10m fora delas), "
        "trajetória AIS (azul), zona e sua faixa de distância (cinza, tracejada), ponto de "
        "maior aproximação (vermelho) e a distância à referência da zona. Projeção azimutal "
        "equidistante centrada no ponto de maior aproximação.",
        new_x=XPos.LMARGIN,
        new_y=YPos.NEXT,
    )
    if kind == "notice":
        _notice_body(pdf, lead, proc)
    else:
        _auto_body(pdf, lead, proc)
    return bytes(pdf.output()), shown


def _appear_at(lead: Lead, notice: dict[str, Any]) -> tuple[str, str]:
    """Where and when the notified person appears: as entered on the Notice, else the
    register's sourced address and hours of the office, else blank lines for the agent
    (never a guess: a wrong address or hour would defeat the Notice)."""
    office = office_named(lead.authority) if lead.authority else None
    place = notice.get("place") or (office.address if office else None)
    hours = notice.get("hours") or (office.hours if office else None)
    return place or f"{BLANK} (endereço a preencher)", hours or f"{BLANK} (horário a preencher)"


def _notice_body(pdf: _Doc, lead: Lead, proc: dict[str, Any]) -> None:
    notice = proc.get("notice") or {}
    where = lead.authority or "esta Organização Militar"
    place, hours = _appear_at(lead, notice)
    if regime_of(lead.rule, proc) != LESTA:
        auto = proc.get("auto") or {}
        pdf.heading("6. INTIMAÇÃO")
        pdf.para(
            f"Fica V.Sa. INTIMADO(A) a comparecer a {where} até "
            f"{_date_pt(notice.get('appear_by'))} para tomar ciência do Laudo Técnico "
            "Ambiental do Incidente relativo ao Auto de Infração nº "
            f"{auto.get('number') or BLANK}. "
            "Da ciência do Laudo corre o prazo de 20 (vinte) dias para apresentar defesa; não "
            "comparecendo, o prazo terá início ao final do prazo desta intimação (NORMAM-07, "
            "item 0404 b))."
        )
    else:
        pdf.heading("6. NOTIFICAÇÃO")
        _lesta_notice(pdf, where, notice)
    pdf.field("Endereço para comparecimento:", place)
    pdf.field("Horário de atendimento:", hours)
    who = "Notificado(a)" if regime_of(lead.rule, proc) == LESTA else "Intimado(a)"
    pdf.field("Local e data:", f"{BLANK}, {_date_pt(notice.get('date'))}")
    pdf.signature("Agente da Autoridade Marítima (nome, posto/graduação, assinatura)")
    pdf.signature(f"{who} (nome e assinatura) - ciente em ____/____/________")
    pdf.para(f"[   ] {who} recusou-se a assinar; o fato foi tomado a termo.")
    pdf.signature("Testemunha 1 (nome, documento, assinatura)")
    pdf.signature("Testemunha 2 (nome, documento, assinatura)")


def _lesta_notice(pdf: _Doc, where: str, notice: dict[str, Any]) -> None:
    pdf.para(
        f"Fica V.Sa. NOTIFICADO(A) a comparecer a {where} até {_date_pt(notice.get('appear_by'))}, "
        "munido(a) de documento de identificação e dos documentos da embarcação, para "
        "prestação de esclarecimentos e obtenção de orientação sobre o fato acima descrito, "
        "que antecede a eventual lavratura de Auto de Infração (NORMAM-07, item 0306 a) I)."
    )


def _auto_body(pdf: _Doc, lead: Lead, proc: dict[str, Any]) -> None:
    auto = proc.get("auto") or {}
    lesta = regime_of(lead.rule, proc) == LESTA
    term = defence_term(lead.rule, lead.status, proc, seat_of(proc, lead.authority))
    pdf.heading("6. AUTUAÇÃO")
    pdf.para(
        "Constatada a infração acima descrita, lavro o presente AUTO DE INFRAÇÃO, com cópia "
        "para o autuado, para julgamento pela Autoridade Competente. O autuado dispõe de "
        f"{term.sentence}, para apresentar defesa."
    )
    pdf.field(term.start_label, term.start)
    pdf.field("Prazo da defesa:", term.due)
    if term.note:
        pdf.field("Atenção:", term.note)  # the last day may be later than shown
    article = penalty_article(lead.rule)
    pdf.field(
        "Penalidade prevista:",
        f"{article.penalty} - {article.citation}; valor fixado no julgamento"
        if article is not None
        else "nenhuma",
    )
    pdf.field("Local e data:", f"{BLANK}, {_date_pt(auto.get('date'))}")
    pdf.signature("Agente da Autoridade Marítima autuante (nome, posto/graduação, assinatura)")
    signed = auto.get("signature")
    who = auto.get("signed_by") or ""
    pdf.signature(f"Autuado, preposto ou representante legal: {who or '(nome e assinatura)'}")
    item = "0306 a) II" if lesta else "0404 a) II"
    mark = {"refused": "[ X ]", "a_rogo": "[ X ]"}
    pdf.para(
        f"{mark['refused'] if signed == 'refused' else '[   ]'} O autuado recusou-se a "
        f"assinar; o fato foi tomado a termo (item {item})."
        + (f" Registro: {auto['refusal_note']}" if auto.get("refusal_note") else "")
    )
    pdf.para(
        f"{mark['a_rogo'] if signed == 'a_rogo' else '[   ]'} Assinado a rogo por: "
        f"{who if signed == 'a_rogo' and who else BLANK + BLANK}"
    )
    witnesses = [w for w in auto.get("witnesses") or [] if w] + ["", ""]
    for i, name in enumerate(witnesses[:2], 1):
        pdf.signature(f"Testemunha {i}: {name or '(nome, documento, assinatura)'}")
