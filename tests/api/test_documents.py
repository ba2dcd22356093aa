"""The drafted Notice to Appear and Auto de Infração: real PDFs, rendered to images and
text with Debian's poppler-utils (pdftoppm, pdftotext) and checked there."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.api.conftest import Api
from tests.api.test_procedure import make_lead, patch
from vigia.alerts.lead import EvidencePoint

pytestmark = pytest.mark.usefixtures("poppler")


def _crossing_lead() -> object:
    base = make_lead("L-DOC")
    # 80 fixes at 8 kn passing 370 m north of P-66 (-40.05, -22.37)
    ev = [
        EvidencePoint(base.started_at + 10 * k, -40.075 + 0.0006 * k, -22.3667, 8.0, 90.0, 0)
        for k in range(80)
    ]
    return dataclasses.replace(base, evidence=ev, min_distance_m=370.0, closest_lat=-22.3667)


def _render(pdf: bytes, tmp: Path, name: str) -> tuple[str, np.ndarray]:
    path = tmp / f"{name}.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    text = " ".join(text.split())  # -layout wraps and pads: compare the words
    subprocess.run(
        ["pdftoppm", "-r", "60", "-f", "1", "-l", "1", "-png", str(path), str(tmp / name)],
        check=True,
    )
    page = next(tmp.glob(f"{name}-*1.png"))
    return text, np.asarray(Image.open(page).convert("RGB")).astype(int)


def _count(img: np.ndarray, rgb: tuple[int, int, int], tol: int = 40) -> int:
    return int((np.abs(img - np.array(rgb)).sum(axis=2) < tol).sum())


def test_both_drafts_from_a_triaged_lead(api: Api, tmp_path: Path) -> None:
    api.repo.upsert_leads([_crossing_lead()])  # type: ignore[list-item]
    url = "/leads/L-DOC/documents/{}.pdf"
    r = api.client.get(url.format("notice"), headers=api.h("inspector"))
    assert r.status_code == 409 and r.json()["allowed"] == ["triaged"]  # still new
    party = {"role": "comandante", "name": "João da Silva"}
    patch(api, "L-DOC", {"status": "triaged", "responsible": [party]})
    assert api.client.get(url.format("auto"), headers=api.h("viewer")).status_code == 403
    pages = {}
    for kind in ("notice", "auto"):
        r = api.client.get(url.format(kind), headers=api.h("inspector"))
        assert r.status_code == 200 and r.headers["content-type"] == "application/pdf"
        assert r.content.startswith(b"%PDF-")
        pages[kind] = _render(r.content, tmp_path, kind)

    notice, img = pages["notice"]
    for text in (
        "NOTIFICAÇÃO PARA COMPARECIMENTO",
        "Anexo 3-A",
        "MARIA DO MAR",
        "710000001",
        "João da Silva",
        "NORMAM-07/DPC 0212 f)",
        "Distância mínima à referência da zona: 370 m",
        "Testemunha 1",
        "recusou-se a assinar",
        "Capitania dos Portos do Rio de Janeiro",
    ):
        assert text in notice, text
    # the map: the track in blue, the closest point in red, a scale bar in black
    assert _count(img, (0, 70, 160)) > 100  # antialiased at 60 dpi: about 130-150
    assert _count(img, (200, 0, 0)) > 15
    auto, auto_img = pages["auto"]
    for text in (
        "AUTO DE INFRAÇÃO",
        "Anexo 3-B",
        "15 (quinze) dias úteis",
        "Assinado a rogo",
        "Testemunha 2",
        "1 km",
    ):
        assert text in auto, text
    assert _count(auto_img, (0, 70, 160)) > 100
    # the blanks a person completes stay blank: no signature name is invented
    assert "____" in auto and "Agente da Autoridade Marítima autuante" in auto


def test_the_auto_prints_what_the_inspector_entered_and_the_penalty_article(
    api: Api, tmp_path: Path
) -> None:
    api.repo.upsert_leads([_crossing_lead()])  # type: ignore[list-item]
    party = {"role": "comandante", "name": "João da Silva", "document": "123.456.789-09",
             "licence": "CHA-RJ 0123456"}  # fmt: skip
    patch(api, "L-DOC", {"status": "triaged", "responsible": [party], "seat_state": "RJ"})
    notice = {"date": "2026-02-02", "appear_by": "2026-02-05"}
    patch(api, "L-DOC", {"status": "notified", "notice": notice})
    auto = {"number": "CPRJ-9/2026", "date": "2026-02-06", "signature": "refused",
            "inscription": "381-012345-6", "witnesses": ["Ana Souza", "Pedro Lima"],
            "refusal_note": "recusou-se diante das testemunhas"}  # fmt: skip
    patch(api, "L-DOC", {"status": "infraction", "auto": auto})
    r = api.client.get("/leads/L-DOC/documents/auto.pdf", headers=api.h("inspector"))
    assert r.status_code == 200
    text, _ = _render(r.content, tmp_path, "auto-filled")
    for want in (
        "381-012345-6",  # inscription
        "CHA-RJ 0123456",  # the conductor's licence
        "Ana Souza",
        "Pedro Lima",
        "[ X ] O autuado recusou-se",
        "recusou-se diante das testemunhas",
        # a platform's safety zone (0212 f)) falls under RLESTA art. 23, VIII (jusbrasil
        # text of Decreto 2.596/1998, docs/penalty-articles.md)
        "Decreto nº 2.596/1998), art. 23, VIII",
        "multa do grupo C",
        # LESTA: 15 working days from Fri 6 Feb 2026, Carnaval 16-18 Feb closed: 3 Mar
        "03/03/2026",
    ):
        assert want in text, want
    assert "[ X ] Assinado a rogo" not in text


LAND_BUFF = (236, 226, 198)


def _copacabana_lead() -> object:
    """A motorboat 120 m off Copacabana (as in the embedded demo), along the beach."""
    base = make_lead("L-COPA", rule="BATH-MOTOR")
    ev = [
        EvidencePoint(base.started_at + 10 * (k + 6), -43.172773 - 0.000804 * k,
                      -22.967523 - 0.00042 * k, 18.0, 240.6, 0)
        for k in range(-6, 7)
    ]  # fmt: skip
    return dataclasses.replace(
        base, evidence=ev, zone_id="beach-copacabana", zone_kind="bather_beach",
        citation="NORMAM-03/DPC 0211 b) 2)", min_distance_m=120.0,
        closest_lon=-43.172773, closest_lat=-22.967523,
    )  # fmt: skip


def test_the_evidence_map_fills_the_land(api: Api, tmp_path: Path) -> None:
    """Off Copacabana the shore side is drawn as land (chart buff); 80 km out at P-66
    there is no land to draw, so none is."""
    api.repo.upsert_leads([_copacabana_lead(), _crossing_lead()])  # type: ignore[list-item]
    counts = {}
    for lead_id in ("L-COPA", "L-DOC"):
        patch(api, lead_id, {"status": "triaged"})
        r = api.client.get(f"/leads/{lead_id}/documents/notice.pdf", headers=api.h("inspector"))
        assert r.status_code == 200
        text, img = _render(r.content, tmp_path, lead_id)
        assert "terra (bege" in text
        counts[lead_id] = _count(img, LAND_BUFF, tol=12)
    assert counts["L-COPA"] > 2000, counts  # a good part of a 180 x 88 mm map at 60 dpi
    assert counts["L-DOC"] == 0, counts
