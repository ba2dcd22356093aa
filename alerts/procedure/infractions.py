"""Which leads can become a Notice and an Auto de Infração, and under which regime.

The rule catalogue (``../shared/RULES.md``) raises two kinds of lead: infractions, whose
evidence may found a Notice and an Auto, and leads that are no infraction (a call for
help; the investigative leads that point at conduct without being an infraction by
themselves). Every document and every move of the procedure asks this one table, so no
route can draft what the state machine refuses (docs/procedure-terms.md, "Which leads
become an Auto"). Pure data: no HTTP, no SQL.
"""

from __future__ import annotations

from typing import Any

from vigia.alerts.procedure.errors import ProcedureConflictError, ProcedureDataError

LESTA, POLLUTION = "lesta", "pollution"
REGIMES = (LESTA, POLLUTION)

#: infractions under Lei 9.966/2000 and its regulation (NORMAM-07 0401): the ballast rules
#: of NORMAM-20 chapter 2, whose Autos follow 0404-0405. No other rule of the catalogue is
#: about pollution: the 0211-0212 areas, 0207 and 0310 are traffic rules.
POLLUTION_RULES = frozenset({"BW-EXCH-200", "BW-EXCH-50", "BW-RECORD"})
#: infractions of the traffic rules (NORMAM-07 0301: "a inobservância de qualquer preceito
#: ... de normas complementares emitidas pela Autoridade Marítima", penalties in RLESTA)
LESTA_RULES = frozenset(
    {
        "BATH-SAIL",
        "BATH-MOTOR",
        "BATH-APPROACH",
        "BATH-LAUNCH",
        "SEC-BATHERS",
        "SEC-MILITARY",
        "SEC-PLANT",
        "SEC-ANCHORAGE",
        "SEC-CHANNEL",
        "SEC-PORT",
        "SEC-PLATFORM",
        "SEC-NOTICE",
        # 0310: a sealed vessel must stay out of traffic; moving it breaks that precept
        "PROC-SEAL",
        # 0207 and RLESTA art. 23, V: damage to a nautical sign
        "ATON-DAMAGE",
    }
)
#: rules whose lead names a station, not a vessel: the lead's MMSI is the aid's, so the
#: offender is the vessel the inspector names among the candidates (0302 b): established
#: by later inquiry), and until then there is no one to notify
CHOSEN_VESSEL_RULES = frozenset({"ATON-DAMAGE"})
#: leads that are no infraction, and why (RULES.md); any rule not catalogued is none either
NOT_INFRACTIONS = {
    "SAR-DISTRESS": "a distress alert is a call for help (NORMAM-07 0213 c))",
    "AIS-GAP": "an investigative lead, not an infraction by itself (RULES.md)",
    "ID-": "an investigative lead, not an infraction by itself (RULES.md)",
    # a meeting is not a transfer: what Lei 9.966/2000 punishes (a discharge, an oil
    # transfer without the notice MARPOL Annex I reg. 42 requires) is established by
    # inspection or the ships' records, and the Auto names that, not the meeting
    "STS-ENCOUNTER": "an investigative lead, not an infraction by itself: a meeting at sea "
    "is no transfer; an Auto under Lei 9.966/2000 names the transfer or discharge an "
    "inspection establishes (RULES.md; docs/encounters.md)",
    "LOITER": "an investigative lead, not an infraction by itself (RULES.md)",
}


def is_infraction(rule: str) -> bool:
    """Whether a lead of ``rule`` may ever become a Notice and an Auto de Infração."""
    return rule in LESTA_RULES or rule in POLLUTION_RULES


def why_no_infraction(rule: str) -> str:
    """Why a lead of ``rule`` is no infraction, in words an inspector can check."""
    for code, why in NOT_INFRACTIONS.items():
        if rule == code or (code.endswith("-") and rule.startswith(code)):
            return why
    return "the rule catalogue does not list it as an infraction"


#: leads that are no infraction but point at conduct Lei 9.966/2000 governs (a transfer of
#: oil at sea): their follow-up, if an inspection finds one, is a pollution procedure
POLLUTION_LEADS = frozenset({"STS-ENCOUNTER"})


def rule_regime(rule: str) -> str:
    """The regime a rule's procedure follows: pollution for the rules Lei 9.966 governs
    and the leads that point at such conduct, LESTA for every other (a lead that is no
    infraction never reaches a step where the regime counts anything)."""
    return POLLUTION if rule in POLLUTION_RULES or rule in POLLUTION_LEADS else LESTA


def refuse_no_infraction(rule: str, allowed: tuple[str, ...]) -> None:
    """Refuse the Notice or the Auto of a lead that is no infraction (HTTP 409, with the
    moves the lead has instead)."""
    if not is_infraction(rule):
        raise ProcedureConflictError(
            f"a {rule} lead is no infraction: {why_no_infraction(rule)}; it never becomes a "
            f"Notice or an Auto de Infração; allowed moves: {', '.join(allowed) or 'none'}",
            allowed,
        )


def require_offender(rule: str, procedure: dict[str, Any]) -> None:
    """Refuse the Notice or the Auto of a lead whose offender is not named yet (422)."""
    if rule in CHOSEN_VESSEL_RULES and not (procedure.get("vessel") or {}).get("mmsi"):
        raise ProcedureDataError(
            f"a {rule} lead names an aid to navigation, not who damaged it: name the vessel "
            "among the lead's candidates (vessel_mmsi) before a Notice or an Auto names it",
            "vessel_mmsi",
        )


def name_vessel(
    proc: dict[str, Any],
    rule: str,
    status: str,
    to: str | None,
    data: dict[str, Any],
    candidates: tuple[dict[str, Any], ...],
) -> None:
    """ATON-DAMAGE: record the vessel the inspector holds responsible, one of the lead's
    candidates, never the aid whose MMSI the lead carries. Named before the Notice
    (``vessel_mmsi``), or with the Auto (``auto.vessel_mmsi``) of a lead notified before
    this was asked; fixed once a Notice or Auto named it, so both name the same vessel."""
    asked = [(data.get("vessel_mmsi"), "vessel_mmsi")]
    if to == "infraction":
        asked.append(((data.get("auto") or {}).get("vessel_mmsi"), "auto.vessel_mmsi"))
    for mmsi, where in asked:
        if mmsi is None:
            continue
        if rule not in CHOSEN_VESSEL_RULES:
            raise ProcedureDataError(f"{where}: a {rule} lead's vessel is its own", where)
        named = (proc.get("vessel") or {}).get("mmsi")
        if named not in (None, mmsi) and status not in ("new", "triaged"):
            raise ProcedureDataError(
                f"{where}: the Notice named {named}; the vessel is fixed once a document named it",
                where,
            )
        found = [c for c in candidates if c.get("mmsi") == mmsi]
        if not found:
            known = ", ".join(str(c.get("mmsi")) for c in candidates) or "none"
            raise ProcedureDataError(
                f"{where}: an {rule} lead names the vessel chosen among its candidates "
                f"(one of: {known}), never the aid to navigation",
                where,
            )
        proc["vessel"] = {k: found[0].get(k) for k in ("mmsi", "name", "ship_type")}
