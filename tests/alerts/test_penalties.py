"""The penalty article each rule's Auto cites (docs/penalty-articles.md): every rule that
can raise a lead has an entry, and the LESTA entries quote RLESTA art. 23 as published."""

from __future__ import annotations

import re
from pathlib import Path

from vigia.alerts.procedure.infractions import LESTA_RULES, POLLUTION_RULES
from vigia.alerts.procedure.penalties import ARTICLES, POLLUTION_STATUTES, RLESTA, penalty_article

RULES_MD = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"
# procedure rules and applicability rules raise no lead of their own
NOT_LEADS = {"BW-APPLY", "BW-EXCEPT"}


#: the lead rules of RULES.md as of this milestone, for a checkout without ../shared
KNOWN = {
    "BATH-SAIL", "BATH-MOTOR", "BATH-APPROACH", "BATH-LAUNCH", "SEC-MILITARY", "SEC-PLANT",
    "SEC-ANCHORAGE", "SEC-CHANNEL", "SEC-PORT", "SEC-PLATFORM", "SEC-NOTICE", "SEC-BATHERS",
    "BW-EXCH-200", "BW-EXCH-50", "BW-RECORD", "SAR-DISTRESS", "ATON-DAMAGE", "PROC-SEAL",
}  # fmt: skip


def _rules_in_rules_md() -> set[str]:
    if not RULES_MD.exists():
        return KNOWN
    text = RULES_MD.read_text(encoding="utf-8")
    found = set(re.findall(r"^\| ((?:BATH|SEC|BW|ATON|SAR)-[A-Z0-9-]+) \|", text, re.M))
    return (found | {"PROC-SEAL"}) - NOT_LEADS


def test_every_rule_that_raises_a_lead_has_an_entry() -> None:
    wanted = _rules_in_rules_md()
    assert wanted >= KNOWN
    assert wanted <= set(ARTICLES), sorted(wanted - set(ARTICLES))


def test_the_incisos_of_art_23() -> None:
    # RLESTA art. 23: II bathers' areas (group D / 60 days), V damage to aids to
    # navigation (group D / 60 days), VIII any other rule (group C / 30 days)
    bath = penalty_article("BATH-MOTOR")
    assert bath is not None and bath.citation.endswith("art. 23, II")
    assert "grupo D" in bath.penalty and "sessenta dias" in bath.penalty
    aton = penalty_article("ATON-DAMAGE")
    assert aton is not None and aton.citation.endswith("art. 23, V")
    platform = penalty_article("SEC-PLATFORM")
    assert platform is not None and platform.citation.endswith("art. 23, VIII")
    assert "grupo C" in platform.penalty and "trinta dias" in platform.penalty


def test_no_article_is_invented() -> None:
    for rule in ("BW-EXCH-200", "BW-RECORD"):
        found = penalty_article(rule)
        assert found is not None and not found.article_known
        assert "art." not in found.citation and "9.966/2000" in found.citation
    seal = penalty_article("PROC-SEAL")
    assert seal is not None and not seal.article_known and "art." not in seal.citation
    assert penalty_article("SAR-DISTRESS") is None


def test_the_article_follows_the_rules_regime() -> None:
    """Lei 9.966 (NORMAM-07 0401) governs the ballast rules and no other: only they cite
    its statutes, every other infraction the RLESTA (0301), so no Auto can print a
    traffic rule's conduct over the pollution statutes or the other way round."""
    assert {r for r, a in ARTICLES.items() if a is not None} == LESTA_RULES | POLLUTION_RULES
    assert {"BW-EXCH-200", "BW-EXCH-50", "BW-RECORD"} == POLLUTION_RULES
    for rule in POLLUTION_RULES:
        assert penalty_article(rule).citation == POLLUTION_STATUTES  # type: ignore[union-attr]
    for rule in LESTA_RULES:
        assert penalty_article(rule).citation.startswith(RLESTA)  # type: ignore[union-attr]
    assert penalty_article("XYZ-NEW") is None  # a rule nobody catalogued is no infraction
