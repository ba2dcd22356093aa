"""The one mapping from S-57 object classes and attributes to Vigia's zone kinds
(docs/zones-import.md reproduces it as a table).

Codes are those of IHO S-57 Edition 3.1, Appendix A (object classes and attribute
values; GDAL ships the same lists as ``s57objectclasses.csv`` and
``s57expectedinput.csv``). Each rule turns one charted feature into the properties of
one zone, or says why the feature is not a zone. What a rule decides beyond the chart
(who may be inside without a lead) is a configuration default an operator edits per
zone; its reason is written beside it. Ids and properties follow the bundled catalogue
(scripts/build_zones.py): ``<prefix>-<cell>-<FIDN>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vigia.zones.import_types import ChartFeature
from vigia.zones.model import ZoneKind

#: Service craft that work beside merchant ships in ports, channels and anchorages:
#: towing 31-32, pilot 50, search and rescue 51, tug 52, port tender 53, law
#: enforcement 55 (AIS ship types, ITU-R M.1371 table 53).
SERVICE_TYPES = (31, 32, 50, 51, 52, 53, 55)
#: A tanker anchorage (CATACH 3) lets in tankers (80-89) and their service craft: the
#: bundled catalogue's default (data/README.md, "Anchorages").
TANKER_TYPES = sorted({*SERVICE_TYPES, *range(80, 90)})
#: Merchant ships (cargo 70-79, tankers 80-89) and their service craft: who belongs in
#: an unrestricted anchorage (0212 c) names merchant-ship anchorages).
MERCHANT_TYPES = sorted({*SERVICE_TYPES, *range(70, 90)})
#: Who belongs in a port's channels and facilities: merchant ships, passenger ships
#: (60-69, ferries use the same channels), dredgers (33, which keep the channels) and
#: the service craft.
PORT_TYPES = sorted({*MERCHANT_TYPES, *range(60, 70), 33})
#: A fishing harbour (CATHAF 4) also lets in fishing vessels (30).
FISHING_PORT_TYPES = sorted({*PORT_TYPES, 30})

#: CATACH (category of anchorage) -> (words for the name, ship types allowed). 6
#: (sea-plane), 7 (small craft) and 8 (small craft mooring) are not merchant-ship
#: anchorages and are not mapped.
CATACH: dict[str, tuple[str, list[int]]] = {
    "1": ("Unrestricted anchorage", MERCHANT_TYPES),
    "2": ("Deep water anchorage", MERCHANT_TYPES),
    "3": ("Tanker anchorage", TANKER_TYPES),
    "4": ("Explosives anchorage", MERCHANT_TYPES),
    "5": ("Quarantine anchorage", MERCHANT_TYPES),
    "9": ("Anchorage for periods up to 24 hours", MERCHANT_TYPES),
}
#: CATREA (category of restricted area) 9, military area: a military installation's
#: footprint (0212 a)); 1, offshore safety zone: the platform inside is a zone of its own.
CATREA_MILITARY = "9"
CATREA_OFFSHORE_SAFETY = "1"
#: RESTRN (restriction) 7 entry prohibited, 8 entry restricted.
RESTRN_ENTRY = {"7", "8"}
#: CATHAF (category of harbour facility): 5 yacht harbour/marina is where leisure craft
#: belong, not a 0212 e) facility; 6 naval base is a military installation (0212 a)).
CATHAF_MARINA = "5"
CATHAF_NAVAL_BASE = "6"
CATHAF_FISHING = "4"
#: Producing agencies (AGEN, IHO S-62) whose abbreviation names a zone's source.
PRODUCERS = {40: "DHN", 550: "NOAA"}
#: What a special area from a chart says until an operator sets its dates.
PLACEHOLDER_NOTICE = (
    "NOT CONFIGURED: set valid_from/valid_to from the Aviso aos Navegantes in force; "
    "the chart gives no dates"
)
_AREA = frozenset({"Polygon", "MultiPolygon"})
_POINT_OR_AREA = frozenset({"Point", *_AREA})


@dataclass(frozen=True, slots=True)
class Mapped:
    """The zone a feature becomes: its kind, id prefix and the properties beyond
    ``id``, ``kind`` and ``source``."""

    kind: ZoneKind
    prefix: str
    props: dict[str, Any]


#: A rule: the feature and its cell's issue date (ISO date, or None) -> a zone, or the
#: reason it is none.
Rule = Callable[[ChartFeature, str | None], Mapped | str]


def _codes(attrs: dict[str, Any], key: str) -> list[str]:
    """A list attribute's codes as strings (GDAL gives lists; a lone value is one)."""
    raw = attrs.get(key)
    if raw is None:
        return []
    values = raw if isinstance(raw, list | tuple) else [raw]
    return [str(v).strip() for v in values if str(v).strip()]


def _text(attrs: dict[str, Any], key: str) -> str | None:
    raw = attrs.get(key)
    return " ".join(str(raw).split()) if raw not in (None, "") else None


def _s57_date(raw: Any) -> str | None:
    """An S-57 date (CCYYMMDD) as an ISO date, or None when absent or partial."""
    text = str(raw or "").strip()
    if not re.fullmatch(r"\d{8}", text):
        return None
    return f"{text[:4]}-{text[4:6]}-{text[6:]}"


def platform(f: ChartFeature, _date: str | None) -> Mapped | str:
    """OFSPLF: an offshore platform, 500 m around it (0212 f))."""
    props: dict[str, Any] = {}
    name = _text(f.attrs, "OBJNAM")
    if name:
        props["name"] = name
    return Mapped(ZoneKind.PLATFORM, "platform", props)


def anchorage(f: ChartFeature, _date: str | None) -> Mapped | str:
    """ACHARE by CATACH: a merchant-ship anchorage (0212 c))."""
    cats = _codes(f.attrs, "CATACH")
    known = [c for c in cats if c in CATACH]
    if not known:
        return f"CATACH {','.join(cats) or 'absent'} is not a merchant-ship anchorage (0212 c))"
    words = CATACH[known[0]][0]
    label = f"{words} (charted, CATACH {','.join(cats)})"
    name = _text(f.attrs, "OBJNAM")
    allowed = sorted({t for c in known for t in CATACH[c][1]})
    return Mapped(
        ZoneKind.ANCHORAGE,
        "anchorage",
        {"name": f"{name} ({label})" if name else label, "allowed": {"ship_types": allowed}},
    )


def restricted(f: ChartFeature, _date: str | None) -> Mapped | str:
    """RESARE by CATREA and RESTRN: only a military area closes water under 0212."""
    cats = _codes(f.attrs, "CATREA")
    restrn = _codes(f.attrs, "RESTRN")
    if CATREA_MILITARY in cats:
        name = _text(f.attrs, "OBJNAM") or "Military area (charted restricted area)"
        return Mapped(ZoneKind.MILITARY, "military", {"name": name})
    if CATREA_OFFSHORE_SAFETY in cats:
        return "offshore safety zone: its platforms are zones of their own (OFSPLF, 0212 f))"
    if RESTRN_ENTRY & set(restrn):
        return (
            f"entry prohibited or restricted (RESTRN {','.join(restrn)}, CATREA "
            f"{','.join(cats) or 'absent'}): no NORMAM-07 0212 kind and no rule code to cite"
        )
    return (
        f"restricts no traffic (RESTRN {','.join(restrn) or 'absent'}, CATREA "
        f"{','.join(cats) or 'absent'}): not a 0212 closure"
    )


def practice_area(f: ChartFeature, date: str | None) -> Mapped | str:
    """MIPARE: a special area (0212 g)), in force only for its Notice to Mariners. The
    chart's own DATSTA/DATEND, when both are given, are its window; otherwise a
    zero-length window at the cell's issue date keeps it loaded but never in force."""
    start, end = _s57_date(f.attrs.get("DATSTA")), _s57_date(f.attrs.get("DATEND"))
    label = _text(f.attrs, "NOBJNM") or _text(f.attrs, "OBJNAM") or "sem nome"
    props: dict[str, Any] = {"name": f"Área de exercícios militares ({label}, {f.cell})"}
    if start and end:
        props |= {"valid_from": f"{start}T00:00:00+00:00", "valid_to": f"{end}T23:59:59+00:00"}
    elif date is None:
        return "no chart date for the placeholder window (give the cell's edition date)"
    else:
        props |= {
            "valid_from": f"{date}T00:00:00+00:00",
            "valid_to": f"{date}T00:00:00+00:00",
            "notice": PLACEHOLDER_NOTICE,
            "validity_placeholder": True,
        }
    inform = _text(f.attrs, "INFORM")
    if inform:
        props["chart_inform"] = inform
    return Mapped(ZoneKind.SPECIAL_AREA, "special", props)


def channel(f: ChartFeature, _date: str | None) -> Mapped | str:
    """FAIRWY, DRGARE: a port access channel (0212 d)); anchoring in it is prohibited
    to everyone (the kind's default)."""
    what = "Fairway" if f.object_class == "FAIRWY" else "Dredged area"
    name = _text(f.attrs, "OBJNAM")
    return Mapped(
        ZoneKind.ACCESS_CHANNEL,
        "channel",
        {"name": name or f"{what} (charted)", "allowed": {"ship_types": PORT_TYPES}},
    )


def port(f: ChartFeature, _date: str | None) -> Mapped | str:
    """HRBARE, BERTHS, HRBFAC: a port facility (0212 e)); a naval base is military."""
    cats = _codes(f.attrs, "CATHAF")
    name = _text(f.attrs, "OBJNAM")
    if CATHAF_NAVAL_BASE in cats:
        return Mapped(ZoneKind.MILITARY, "military", {"name": name or "Naval base (charted)"})
    if CATHAF_MARINA in cats:
        return "yacht harbour/marina (CATHAF 5): leisure craft belong there, not 0212 e)"
    types = FISHING_PORT_TYPES if CATHAF_FISHING in cats else PORT_TYPES
    words = {"HRBARE": "Harbour area", "BERTHS": "Berth", "HRBFAC": "Harbour facility"}
    return Mapped(
        ZoneKind.PORT_FACILITY,
        "port",
        {"name": name or f"{words[f.object_class]} (charted)", "allowed": {"ship_types": types}},
    )


@dataclass(frozen=True, slots=True)
class ClassRule:
    """How one object class becomes zones: the geometries that can, and the rule."""

    geometries: frozenset[str]
    rule: Rule


#: THE mapping: S-57 object class -> rule. COALNE is read too, but only as the lines
#: register rows cut beach baselines from (zones/register_import.py): not every charted
#: coast is a beach with bathers.
CLASSES: dict[str, ClassRule] = {
    "OFSPLF": ClassRule(_POINT_OR_AREA, platform),
    "ACHARE": ClassRule(_AREA, anchorage),
    "RESARE": ClassRule(_AREA, restricted),
    "MIPARE": ClassRule(_AREA, practice_area),
    "FAIRWY": ClassRule(_AREA, channel),
    "DRGARE": ClassRule(_AREA, channel),
    "HRBARE": ClassRule(_AREA, port),
    "BERTHS": ClassRule(_AREA, port),
    "HRBFAC": ClassRule(_AREA, port),
}
COASTLINE = "COALNE"
#: every class an import of a whole cell reads
READ_CLASSES = (*CLASSES, COASTLINE)


def producer(agency: Any) -> str:
    """The producing agency's abbreviation (DHN for Brazil's Navy), or its code."""
    try:
        code = int(agency)
    except (TypeError, ValueError):
        return "ENC producer unknown"
    return PRODUCERS.get(code, f"agency {code}")
