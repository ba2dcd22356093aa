"""The regime follows the rule: Lei 9.966/2000 and NORMAM-20 for the ballast rules they
govern, the LESTA (NORMAM-07 chapter 3, RLESTA) for the others; and each drafted Auto's
conduct, legal basis and defence term come from that one regime.

Expected texts are the sources' own words: RLESTA art. 23, VIII (group C fine or up to
thirty days' suspension) for a platform's safety zone, as docs/penalty-articles.md quotes
the Jusbrasil text of Decreto 2.596/1998; NORMAM-07 0306 b) I (15 working days) and 0404
b) (20 consecutive days from knowledge of the Laudo). Due dates worked by hand below.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tests.api.conftest import Api
from tests.api.test_document_law import _pdf_text
from tests.api.test_procedure import make_lead, patch
from vigia.alerts.procedure.documents import draft
from vigia.alerts.procedure.workflow import regime_of

pdftotext = pytest.mark.usefixtures("poppler")


def test_the_pollution_regime_only_for_the_rules_it_governs(api: Api) -> None:
    api.repo.upsert_leads(
        [make_lead("L-PLAT"), make_lead("L-BW", rule="BW-EXCH-200", mmsi=636000001)]
    )
    # a platform's safety zone (0212 f)) is no pollution case: Lei 9.966 does not govern it
    r = patch(api, "L-PLAT", {"status": "triaged", "regime": "pollution"}, 422)
    assert (r["type"], r["field"]) == ("urn:vigia:problem:procedure-data", "regime")
    assert "BW-EXCH-200" in r["detail"]  # names the rules the pollution regime governs
    r = patch(api, "L-BW", {"status": "triaged", "regime": "lesta"}, 422)
    assert r["field"] == "regime"
    # nothing was written by the refusals; asking for the rule's own regime is accepted
    for lead_id, regime in (("L-PLAT", "lesta"), ("L-BW", "pollution")):
        body = api.client.get(f"/leads/{lead_id}", headers=api.h("viewer")).json()
        assert body["status"] == "new" and body["history"] == []
        b = patch(api, lead_id, {"status": "triaged", "regime": regime})
        assert (b["regime"], b["procedure"]["regime"]) == (regime, regime)


@pdftotext
def test_each_auto_speaks_of_one_regime(api: Api, tmp_path: Path) -> None:
    ballast = dataclasses.replace(
        make_lead("L-BW", rule="BW-EXCH-200", mmsi=636000001), citation="NORMAM-20/DPC 2.3.1 a)"
    )
    api.repo.upsert_leads([make_lead("L-PLAT"), ballast])
    # LESTA: Notice, then the Auto of Fri 6 Feb 2026 known that day, seat RJ: 15 working
    # days, Carnival Mon 16 and Tue 17 closed, Ash Wednesday counts: 9-13 Feb (5), 18-20
    # (8), 23-27 (13), Mon 2 Mar (14), Tue 3 Mar (15)
    patch(api, "L-PLAT", {"status": "triaged", "seat_state": "RJ"})
    patch(api, "L-PLAT", {"status": "notified", "notice": {"date": "2026-02-02",
                                                           "appear_by": "2026-02-05"}})  # fmt: skip
    auto = {"number": "CPRJ-3/2026", "date": "2026-02-06", "signature": "signed"}
    patch(api, "L-PLAT", {"status": "infraction", "auto": auto})
    # pollution: the Auto first (0404 a) I), the Laudo known Thu 19 Feb 2026: 20
    # consecutive days, February having 28, end Wed 11 Mar, a working day in Santos
    patch(api, "L-BW", {"status": "triaged", "seat_state": "SP", "seat_municipality": "Santos"})
    auto = {"number": "CPSP-8/2026", "date": "2026-02-10", "signature": "signed"}
    patch(api, "L-BW", {"status": "infraction", "auto": auto, "report_known_date": "2026-02-19"})
    texts = {}
    for lead_id in ("L-PLAT", "L-BW"):
        r = api.client.get(f"/leads/{lead_id}/documents/auto.pdf", headers=api.h("inspector"))
        assert r.status_code == 200, r.text[:200]
        texts[lead_id] = _pdf_text(r.content, tmp_path)
    # what each Auto must say, and what belongs to the other regime only
    expected = {
        "L-PLAT": (
            (
                "zona de segurança de plataforma",  # conduct: the 0212 f) area
                "Dispositivo: NORMAM-07/DPC 0212 f)",
                "Penalidade (base legal): RLESTA (Decreto nº 2.596/1998), art. 23, VIII",
                "multa do grupo C ou suspensão do Certificado de Habilitação até trinta dias",
                "15 (quinze) dias úteis",
                "até 03/03/2026 (NORMAM-07/DPC 0306 b) I)",
                "item 0306 a) - Anexo 3-B",
            ),
            ("9.966", "4.136", "Laudo", "vinte", "0404", "água de lastro"),
        ),
        "L-BW": (
            (
                "água de lastro",  # conduct: ballast management under NORMAM-20
                "Dispositivo: NORMAM-20/DPC 2.3.1 a)",
                "Penalidade (base legal): Lei nº 9.966/2000 e Decreto nº 4.136/2002",
                "artigo: ________",  # no public source gives it: left for the inspector
                "20 (vinte) dias, contados da ciência do Laudo Técnico Ambiental",
                "até 11/03/2026",
                "item 0404 a) - Anexo 3-B; Lei 9.966/2000",
            ),
            ("RLESTA", "2.596", "0212", "dias úteis", "0306", "plataforma"),
        ),
    }
    for lead_id, (wanted, foreign) in expected.items():
        assert [w for w in wanted if w not in texts[lead_id]] == [], lead_id
        assert [f for f in foreign if f in texts[lead_id]] == [], lead_id


@pdftotext
def test_a_stored_regime_the_rule_does_not_allow_is_not_obeyed(tmp_path: Path) -> None:
    """A lead put under the pollution regime before the rule was enforced is read, counted
    and drafted under its rule's regime: its conduct is a 0212 area, so LESTA."""
    old = dataclasses.replace(
        make_lead("L-OLD"),
        status="infraction",
        procedure={
            "regime": "pollution",
            "auto": {"number": "CPRJ-4/2026", "date": "2026-02-06", "known_date": "2026-02-06"},
        },
    )
    assert regime_of(old.rule, old.procedure) == "lesta"
    text = _pdf_text(draft("auto", old, None)[0], tmp_path)
    assert "art. 23, VIII" in text and "15 (quinze) dias úteis" in text
    assert "9.966" not in text


PENALTY_DOC = Path(__file__).resolve().parents[2] / "docs" / "penalty-articles.md"
#: the zone kind each area rule is raised in (RULES.md: 0211 the beaches, 0212 a) to h))
KIND = {"BATH-LAUNCH": "launch_area", "SEC-MILITARY": "military", "SEC-PLANT": "power_plant",
        "SEC-ANCHORAGE": "anchorage", "SEC-CHANNEL": "access_channel", "SEC-PORT": "port_facility",
        "SEC-PLATFORM": "platform", "SEC-NOTICE": "special_area"}  # fmt: skip


def _sourced_table() -> dict[str, str]:
    """rule -> the legal basis its Auto cites, read off docs/penalty-articles.md (which
    quotes RLESTA art. 23 as published); rules whose Auto it forbids are left out."""
    section = PENALTY_DOC.read_text(encoding="utf-8").split("## The table", 1)[1]
    table = section.strip().split("\n\n", 1)[0]
    out = {}
    for row in re.findall(r"^\| ([A-Z][^|]*) \| ([^|]*) \|", table, re.M):
        rules, cited = row
        if cited.startswith("none"):
            continue
        inciso = re.match(r"RLESTA art\. 23, ([IVX]+)", cited)
        basis = (
            f"RLESTA (Decreto nº 2.596/1998), art. 23, {inciso.group(1)} "
            if inciso
            else "Lei nº 9.966/2000 e Decreto nº 4.136/2002"
            if "9.966" in cited
            else "RLESTA (Decreto nº 2.596/1998)"
        )
        for rule in re.findall(r"\b[A-Z]+-[A-Z0-9-]*[A-Z0-9]\b", rules):
            out[rule] = basis
    return out


@pdftotext
def test_every_infraction_rules_auto_agrees_with_itself(tmp_path: Path) -> None:
    table = _sourced_table()
    assert {"SEC-PLATFORM", "BW-EXCH-50", "PROC-SEAL", "ATON-DAMAGE"} <= set(table)
    assert "SAR-DISTRESS" not in table
    for rule, basis in sorted(table.items()):
        lead = make_lead(f"L-{rule}", rule=rule)
        kind = KIND.get(rule, "bather_beach" if "BATH" in rule else None)
        zone = f"zone-{rule.lower()}" if kind else None
        lead = dataclasses.replace(lead, zone_id=zone, zone_kind=kind, status="infraction")
        auto = {"number": "A-1/2026", "date": "2026-02-06", "known_date": "2026-02-06"}
        if rule == "ATON-DAMAGE":
            lead = dataclasses.replace(lead, vessel={"name": "BOIA 3"}, mmsi=992710001)
            auto["vessel"] = {"mmsi": 710000002, "name": "MARIA DO MAR", "ship_type": 70}
        lead = dataclasses.replace(lead, procedure={"auto": auto, "vessel": auto.get("vessel")})
        text = _pdf_text(draft("auto", lead, None)[0], tmp_path)
        conduct = text.split("4. INFRAÇÃO E DISPOSITIVO INFRINGIDO", 1)[1].split("Dispositivo:")[0]
        assert "None" not in conduct and "zona (" not in conduct, (rule, conduct)
        if kind:
            assert f"({zone})" in conduct, (rule, conduct)
        assert f"Penalidade (base legal): {basis}" in text + " ", rule
        pollution = "9.966" in basis
        assert ("20 (vinte) dias" in text) is pollution, rule
        assert ("15 (quinze) dias úteis" in text) is not pollution, rule
        assert ("RLESTA" in text) is not pollution, rule
