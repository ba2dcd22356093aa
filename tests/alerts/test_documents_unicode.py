"""Any entered text prints or is refused by name: a draft from arbitrary Unicode either
succeeds or refuses the one character no bundled font draws, never drops it (issue 32),
and bidi controls cannot reorder the document (issue 21)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.test_procedure import make_lead
from vigia.alerts.procedure.documents import draft
from vigia.alerts.procedure.glyphs import UnprintableTextError, clean_text

BASE = make_lead("L-UNI")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.text(max_size=60),
    authority=st.text(max_size=60),
    kind=st.sampled_from(["notice", "auto"]),
)
def test_any_text_drafts(name: str, authority: str, kind: str) -> None:
    lead = replace(
        BASE,
        vessel={**BASE.vessel, "name": name},
        authority=authority or None,
        procedure={"regime": "lesta", "responsible": [{"role": "comandante", "name": name}]},
    )
    try:
        pdf, _ = draft(kind, lead, None)
    except UnprintableTextError as exc:
        # refused: the character it names was entered, and the field it came from
        assert exc.field in ("vessel.name", "authority", "responsible[0].name")
        code = str(exc).split("U+", 1)[1].split(" ", 1)[0]
        assert chr(int(code, 16)) in name + authority
        return
    assert pdf.startswith(b"%PDF")


def test_names_outside_latin1_and_bidi_overrides() -> None:
    # before the Unicode font, a single character outside Latin-1 made every draft fail
    lead = replace(BASE, vessel={**BASE.vessel, "name": "Łódź Ωμέγα 海 \u202eevil"})
    pdf, _ = draft("auto", lead, None)
    assert pdf.startswith(b"%PDF")
    assert clean_text("a\u202eb\u2066c\x00d\ne") == "a\ufffdb\ufffdc\ufffdd\ne"
    assert clean_text("São João, Ç ß 海") == "São João, Ç ß 海"


def test_words_and_decimal_comma() -> None:
    from vigia.alerts.procedure.documents import num_pt, ship_type_pt

    # ITU-R M.1371-5 Table 53: 30 fishing, 36 sailing, 52 tug, 70-79 cargo, 80-89 tanker
    assert ship_type_pt(30) == "pesca (30)" and ship_type_pt(36) == "veleiro (36)"
    assert ship_type_pt(52) == "rebocador (52)" and ship_type_pt(79) == "navio de carga (79)"
    assert ship_type_pt(84) == "navio-tanque (84)" and ship_type_pt(None) == "-"
    assert ship_type_pt(0) == "-" and ship_type_pt(100) == "-"
    assert num_pt(18.0) == "18,0" and num_pt(7.25, 2) == "7,25" and num_pt(None) == "-"


def test_pollution_notice_speaks_of_the_intimacao_and_the_laudo() -> None:
    import subprocess
    import tempfile
    from pathlib import Path

    lead = replace(
        make_lead("L-BWN", rule="BW-EXCH-200"),
        procedure={"regime": "pollution", "auto": {"number": "CPSP-1/2026", "date": "2026-01-26"}},
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "n.pdf"
        path.write_bytes(draft("notice", lead, None)[0])
        text = subprocess.run(
            ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
        ).stdout
    flat = " ".join(text.split())
    assert "INTIMAÇÃO PARA COMPARECIMENTO" in flat and "Laudo Técnico Ambiental" in flat
    assert "CPSP-1/2026" in flat and "0404 b)" in flat
    assert "antecede a eventual lavratura" not in flat  # the LESTA wording
    assert "Intimado(a) (nome e assinatura)" in flat and "Notificado(a)" not in flat
