"""One law for every route: what the procedure refuses, no document route drafts.

Every route whose path holds ``/documents/`` is found in the app's own OpenAPI document,
with every value its path parameters may take, so a document route added later is held to
the same law without a change here. Which leads can never become a Notice or an Auto is
read from the rule catalogue (``../shared/RULES.md``): a distress alert is a call for help
(NORMAM-07 0213 c)), and the leads of "Evasion and meetings at sea" are "not an infraction
by themselves"; a rule the catalogue does not know is no infraction either.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Api
from tests.api.test_procedure import make_lead, patch

RULES_MD = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"
#: RULES.md "Beyond the letter": a distress beacon is no infraction (0213 c)); the
#: investigative leads as the catalogue names them (ID-* stands for a family); and a
#: rule nobody catalogued
NOT_INFRACTIONS = ["SAR-DISTRESS", "AIS-GAP", "ID-MMSI", "STS-ENCOUNTER", "LOITER", "XYZ-NEW"]
NOTICE = {"date": "2026-02-02", "appear_by": "2026-02-05"}
AUTO = {"number": "CPRJ-1/2026", "date": "2026-02-06", "signature": "signed"}


def _investigative_rules() -> set[str]:
    """The codes of RULES.md's investigative section ("not an infraction by themselves")."""
    if not RULES_MD.exists():
        return set()
    text = RULES_MD.read_text(encoding="utf-8")
    section = text.split("(investigative leads)", 1)[1].split("\n## ", 1)[0]
    return {c.replace("*", "MMSI") for c in re.findall(r"^\| ([A-Z]+-[A-Z*]+) \|", section, re.M)}


def document_urls(api: Api, lead_id: str) -> list[str]:
    """Every GET route under ``/documents/`` for ``lead_id``, each path parameter given
    every value its schema allows."""
    urls = []
    for path, item in api.client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        if "/documents/" not in path or "get" not in item:
            continue
        choices = []
        for p in item["get"].get("parameters", []):
            if p["in"] != "path":
                continue
            if p["name"] == "lead_id":
                choices.append([(p["name"], lead_id)])
                continue
            values = p["schema"].get("enum")
            assert values, f"{path}: {p['name']} lists no values to try"
            choices.append([(p["name"], str(v)) for v in values])
        for combo in itertools.product(*choices):
            url = path
            for name, value in combo:
                url = url.replace("{" + name + "}", value)
            urls.append(url)
    return urls


def _problem(r: Any) -> tuple[int, str, Any, Any]:
    body = r.json()
    allowed = body.get("allowed")
    return r.status_code, body["type"], allowed and tuple(allowed), body.get("field")


def test_the_catalogue_has_no_investigative_rule_left_untested() -> None:
    # the catalogue's own list, when the checkout has it, is inside the one tested here
    assert _investigative_rules() <= set(NOT_INFRACTIONS)


def test_no_document_route_drafts_for_a_lead_that_is_no_infraction(api: Api) -> None:
    urls = document_urls(api, "L-X")
    assert {"/leads/L-X/documents/notice.pdf", "/leads/L-X/documents/auto.pdf"} <= set(urls)
    h = api.h("inspector")
    for rule in NOT_INFRACTIONS:
        lead_id = f"L-{rule}"
        api.repo.upsert_leads([make_lead(lead_id, rule=rule)])
        patch(api, lead_id, {"status": "triaged"})
        # what the transitions answer: a conflict, only a dismissal left
        refused = {
            _problem(api.client.patch(f"/leads/{lead_id}", json=body, headers=h))
            for body in (
                {"status": "notified", "notice": NOTICE},
                {"status": "infraction", "auto": AUTO},
            )
        }
        assert refused == {(409, "urn:vigia:problem:procedure-conflict", ("dismissed",), None)}
        for url in document_urls(api, lead_id):
            r = api.client.get(url, headers=h)
            assert _problem(r) in refused, (rule, url, r.text[:200])
            assert rule in r.json()["detail"]
        # nothing the refusals left behind: the lead is still only triaged
        body = api.client.get(f"/leads/{lead_id}", headers=api.h("viewer")).json()
        assert body["status"] == "triaged" and body["allowed_moves"] == ["dismissed"]


CANDIDATES = [
    {"mmsi": 710000002, "name": "MARIA DO MAR", "ship_type": 70, "closest_m": 40.0},
    {"mmsi": 710000003, "name": "ESTRELA", "ship_type": 30, "closest_m": 180.0},
]


def _aton_lead() -> Any:
    """A channel buoy off Santos reported off position; two vessels passed close by."""
    base = make_lead("L-ATON", rule="ATON-DAMAGE", mmsi=992710001)
    return dataclasses.replace(
        base,
        zone_id=None,
        zone_kind=None,
        citation="NORMAM-07/DPC 0207",
        vessel={"name": "BOIA 3 CANAL SANTOS"},
        details={"trigger": "off_position", "candidates": CANDIDATES},
    )


def _pdf_text(pdf: bytes, tmp: Path) -> str:
    path = tmp / "doc.pdf"
    path.write_bytes(pdf)
    out = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    return " ".join(out.split())


@pytest.mark.usefixtures("poppler")
def test_an_aid_damage_lead_is_drafted_only_against_the_vessel_named(
    api: Api, tmp_path: Path
) -> None:
    """RLESTA art. 23, V punishes whoever damages a nautical sign; the lead names the sign
    (its MMSI is the aid's), so no Notice or Auto exists until the inspector names the
    vessel among the candidates (NORMAM-07 0302 b): established by later inquiry)."""
    api.repo.upsert_leads([_aton_lead()])
    h = api.h("inspector")
    patch(api, "L-ATON", {"status": "triaged", "seat_state": "SP"})
    moved = api.client.patch(
        "/leads/L-ATON", json={"status": "notified", "notice": NOTICE}, headers=h
    )
    assert _problem(moved) == (422, "urn:vigia:problem:procedure-data", None, "vessel_mmsi")
    urls = document_urls(api, "L-ATON")
    for url in urls:
        assert _problem(api.client.get(url, headers=h)) == _problem(moved), url
    # the aid itself is no candidate; a vessel that never passed is none either
    for wrong in (992710001, 710000009):
        r = patch(api, "L-ATON", {"vessel_mmsi": wrong}, 422)
        assert r["field"] == "vessel_mmsi" and "710000002" in r["detail"]
    b = patch(api, "L-ATON", {"vessel_mmsi": 710000002})
    assert b["procedure"]["vessel"] == {"mmsi": 710000002, "name": "MARIA DO MAR", "ship_type": 70}
    for url in urls:
        r = api.client.get(url, headers=h)
        assert r.status_code == 200, (url, r.text[:200])
        text = _pdf_text(r.content, tmp_path)
        assert "MARIA DO MAR" in text and "MMSI / IMO: 710000002" in text, url
        assert "MMSI / IMO: 992710001" not in text and "(None)" not in text
        # the conduct is the damage to the sign (0207), its penalty RLESTA art. 23, V
        assert "BOIA 3 CANAL SANTOS" in text and "NORMAM-07/DPC 0207" in text
        if url.endswith("auto.pdf"):
            assert "Decreto nº 2.596/1998), art. 23, V " in text
    patch(api, "L-ATON", {"status": "notified", "notice": NOTICE})
    # the Auto names whom the Notice named: the choice is fixed from the Notice on
    r = patch(api, "L-ATON", {"vessel_mmsi": 710000003}, 422)
    assert r["field"] == "vessel_mmsi"
    other = {**AUTO, "vessel_mmsi": 710000003}
    r = patch(api, "L-ATON", {"status": "infraction", "auto": other}, 422)
    assert r["field"] == "auto.vessel_mmsi"
    b = patch(api, "L-ATON", {"status": "infraction", "auto": AUTO})
    assert b["procedure"]["auto"]["vessel"]["mmsi"] == 710000002
