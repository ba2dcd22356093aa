"""A name in a script no bundled font draws: the document route refuses the draft with a
problem naming the character and the field, never a PDF with the character dropped; a
Chinese name and an emoji print (issue 32)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.api.conftest import Api
from tests.api.test_procedure import make_lead, patch
from tests.support.pg import require


def test_the_route_names_the_character_it_cannot_print(api: Api, tmp_path: Path) -> None:
    api.repo.upsert_leads([make_lead("L-DEV"), make_lead("L-ZH")])
    party = {"role": "comandante", "name": "राम Sharma"}
    patch(api, "L-DEV", {"status": "triaged", "responsible": [party]})
    r = api.client.get("/leads/L-DEV/documents/auto.pdf", headers=api.h("inspector"))
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert body["type"] == "urn:vigia:problem:unprintable-text"
    assert "U+0930 DEVANAGARI LETTER RA" in body["detail"]
    assert body["field"] == "responsible[0].name"

    party = {"role": "proprietario", "name": "王小明 🚢"}
    patch(api, "L-ZH", {"status": "triaged", "responsible": [party]})
    r = api.client.get("/leads/L-ZH/documents/notice.pdf", headers=api.h("inspector"))
    assert r.status_code == 200
    require("pdftotext", "the notice's text is read back from the PDF")
    path = tmp_path / "n.pdf"
    path.write_bytes(r.content)
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout
    assert "王小明 🚢" in text
