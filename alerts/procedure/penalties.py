"""The article that sets the penalty for each rule, as the Auto cites it.

Only what a public source gives is cited (docs/penalty-articles.md lists them): the
text of RLESTA (Decreto 2.596/1998) art. 23, "Infrações às normas de tráfego", and
art. 10 on repeat offences. For the pollution regime (Lei 9.966/2000, Decreto
4.136/2002) no public source consulted gives the article per conduct, so the Auto names
the statutes and leaves the article for the inspector to enter; it never invents one.
The choice of inciso is the inspector's (RLESTA art. 7 §1º leaves the amount and the
suspension to the authority); this table is the default a draft starts from. The
pollution statutes are cited for the ballast rules only: they are the rules Lei 9.966
governs (``infractions.POLLUTION_RULES``), and a test holds the two tables together.
"""

from __future__ import annotations

from dataclasses import dataclass

RLESTA = "RLESTA (Decreto nº 2.596/1998)"
POLLUTION_STATUTES = "Lei nº 9.966/2000 e Decreto nº 4.136/2002"


@dataclass(frozen=True, slots=True)
class PenaltyArticle:
    """Where the penalty of a rule's infraction is set."""

    citation: str  # e.g. "RLESTA (Decreto nº 2.596/1998), art. 23, II"
    penalty: str  # the penalty the article sets, in its words
    article_known: bool  # False: the statutes only; the inspector enters the article

    def to_json(self) -> dict[str, object]:
        return {
            "citation": self.citation,
            "penalty": self.penalty,
            "article_known": self.article_known,
        }


_BATHERS = PenaltyArticle(
    f"{RLESTA}, art. 23, II",
    "multa do grupo D ou suspensão do Certificado de Habilitação até sessenta dias "
    "(trafegar em área reservada a banhistas ou exclusiva para determinado tipo de "
    "embarcação)",
    True,
)
_OTHER_RULE = PenaltyArticle(
    f"{RLESTA}, art. 23, VIII",
    "multa do grupo C ou suspensão do Certificado de Habilitação até trinta dias "
    "(descumprir qualquer outra regra prevista, não especificada nos incisos anteriores); "
    "se a área foi fixada pelo representante local da Autoridade Marítima, art. 23, VI "
    "(multa do grupo D ou suspensão até sessenta dias)",
    True,
)
_ATON = PenaltyArticle(
    f"{RLESTA}, art. 23, V",
    "multa do grupo D ou suspensão do Certificado de Habilitação até sessenta dias "
    "(causar danos a sinais náuticos)",
    True,
)
_LESTA_UNKNOWN = PenaltyArticle(
    RLESTA,
    "a penalidade e o artigo do RLESTA são indicados pela autoridade (artigo: ________)",
    False,
)
_POLLUTION = PenaltyArticle(
    POLLUTION_STATUTES,
    "a penalidade e o artigo do Decreto nº 4.136/2002 são indicados pela autoridade "
    "(artigo: ________)",
    False,
)

#: rule -> the article its Auto cites; a rule missing here is a defect (a test checks
#: every rule the pipeline raises and every rule in RULES.md has an entry or none)
ARTICLES: dict[str, PenaltyArticle | None] = {
    "BATH-SAIL": _BATHERS,
    "BATH-MOTOR": _BATHERS,
    "BATH-APPROACH": _BATHERS,
    "BATH-LAUNCH": _BATHERS,
    "SEC-BATHERS": _BATHERS,
    "SEC-MILITARY": _OTHER_RULE,
    "SEC-PLANT": _OTHER_RULE,
    "SEC-ANCHORAGE": _OTHER_RULE,
    "SEC-CHANNEL": _OTHER_RULE,
    "SEC-PORT": _OTHER_RULE,
    "SEC-PLATFORM": _OTHER_RULE,
    "SEC-NOTICE": _OTHER_RULE,
    "ATON-DAMAGE": _ATON,
    "BW-EXCH-200": _POLLUTION,
    "BW-EXCH-50": _POLLUTION,
    "BW-RECORD": _POLLUTION,
    # moving a sealed vessel (0310): no public source consulted names its article
    "PROC-SEAL": _LESTA_UNKNOWN,
    # a distress beacon is a call for help, never an infraction (0213 c))
    "SAR-DISTRESS": None,
}


def penalty_article(rule: str) -> PenaltyArticle | None:
    """The article the Auto of ``rule`` cites; None for a rule that is no infraction.

    The rule alone decides: its regime is the rule's (``infractions.rule_regime``), so a
    ballast rule always cites the pollution statutes and a traffic rule the RLESTA, and
    an Auto's conduct and legal basis never disagree."""
    return ARTICLES.get(rule)


#: RLESTA art. 10: a repeat offence is the same infraction again within twelve months
#: or less; the penalty is multiplied by two, three and so on
LESTA_REPEAT_MONTHS = 12
LESTA_REPEAT_BASIS = f"{RLESTA}, art. 10"
