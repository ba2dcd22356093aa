"""ID-MID-FLAG against every administration (issue 34): the MID of an MMSI against the
series of the ITU Table of Allocation of International Call Sign Series (RR Appendix 42)
that its call sign lies in. Expected values are the ITU table's own rows (quoted in each
comment as the ITU writes them), both ends of a range and the series just outside it;
then the bundled data is checked against itself and against mid.csv."""

from __future__ import annotations

import csv
import re
from collections import Counter

from vigia.alerts.identity.mid import (
    MID_FILE,
    PARENT,
    family,
    flag_conflict,
    holders,
    series,
    table,
)

LR, PA, HK, BM = 636_000_001, 351_000_001, 477_000_001, 310_000_001


def agree(mmsi: int, *callsigns: str) -> None:
    for cs in callsigns:
        assert flag_conflict(mmsi, cs) is None, (mmsi, cs)


def conflict(mmsi: int, *callsigns: str) -> None:
    for cs in callsigns:
        assert flag_conflict(mmsi, cs) is not None, (mmsi, cs)


def test_liberia_by_its_series_and_the_neighbours_of_each() -> None:
    # Liberia (Republic of): A8A - A8Z, D5A - D5Z, ELA - ELZ, 5LA - 5LZ, 5MA - 5MZ, 6ZA - 6ZZ
    agree(LR, "A8AB5", "A8ZZ", "D5AA1", "D5ZZ", "ELAA", "ELZZ", "5LAA", "5MZZ", "6ZAA", "6ZZZ")
    # a whole series takes any third character, a digit too (as Brazil's PP1234 always did)
    agree(LR, "A81234", "EL2AB")
    # just outside: A7 Qatar, A9 Bahrain, D4 Cabo Verde, D6 Comoros, EK Armenia,
    # EM Ukraine, 5K Colombia (5JA - 5KZ), 5N Nigeria (5NA - 5OZ), 6Y Jamaica
    conflict(LR, "A7ZZ", "A9AA", "D4ZZ", "D6AA", "EKZZ", "EMAA", "5KZZ", "5NAA", "6YZZ")
    # Panama (Republic of): 3EA - 3EZ, 3FA - 3FZ, H3A - H3Z, H8A - H8Z, H9A - H9Z,
    # HOA - HOZ, HPA - HPZ
    conflict(LR, "3EAA", "3FZZ", "H3AB", "H8AA", "H9ZZ", "HOAA", "HPZZ")
    assert flag_conflict(LR, "3EAB5") == "MID 636 (LR) but call sign 3EAB5 is in a series of PA"


def test_panama_by_its_series_and_the_neighbours_of_each() -> None:
    agree(PA, "3EAA", "3FZZ", "H3AB", "H8AA", "H9ZZ", "HOAA", "HPZZ")
    agree(370_000_001, "3E1234")  # another of Panama's MIDs
    # 3DN - 3DZ Fiji, 3GA - 3GZ Chile, H2 Cyprus, H4 Solomon Islands, H6 - H7 Nicaragua,
    # HN Iraq, HQ - HR Honduras
    conflict(PA, "3DZZ", "3GAA", "H2ZZ", "H4AA", "H7ZZ", "HNZZ", "HQAA")


def test_territories_under_their_parents_series() -> None:
    # China (People's Republic of) - Hong Kong: VRA - VRZ; China's own B and 3H - 3U
    agree(HK, "VRAA", "VRZZ", "VR1234", "BQAB", "3HAA")
    agree(412_000_001, "VRAB")  # China's MID with Hong Kong's series: one family
    # VQ and VS, either side of VR, are the United Kingdom's: Hong Kong's no longer
    conflict(HK, "VQZZ", "VSAA")
    # The ITU gives VR to Hong Kong, not to the United Kingdom: Bermuda (a UK
    # territory, MID 310) with a VR call sign is a contradiction; with the UK's ZB - ZJ
    # (Bermuda's ZC) it is not
    conflict(BM, "VRAB3")
    conflict(232_000_001, "VRAB3")
    agree(BM, "ZCEF6", "ZBAA", "ZJZZ", "VPAA", "VQZZ", "GAAA", "MZZZ", "2AAA")
    conflict(BM, "ZAZZ", "ZKAA")  # ZA Albania, ZK - ZM New Zealand
    agree(319_000_001, "ZGAB1")  # Cayman Islands
    agree(236_000_001, "ZDAB")  # Gibraltar
    agree(740_000_001, "VPAB")  # Falkland Islands
    # Denmark: OUA - OZZ, XPA - XPZ, 5PA - 5QZ; the Faroes (231), Greenland (331)
    agree(231_000_001, "OW2033", "OZAA", "XPAB", "5PAA")
    agree(331_000_001, "XPAB", "OUAA")
    conflict(231_000_001, "OTZZ", "XQAA")  # OT Belgium, XQ Chile
    # Netherlands (Kingdom of the) - Aruba: P4; - Curaçao, Bonaire..., Sint Maarten: PJ
    agree(306_000_001, "PJAB", "PAAA", "P4AB")
    agree(307_000_001, "P4AB", "PJZZ", "PIZZ")
    agree(244_000_001, "PJAB", "P4AB")
    conflict(232_000_001, "PJAB")
    conflict(306_000_001, "PKAA", "P3ZZ")  # PK Indonesia, P3 Cyprus
    # France: FAA - FZZ; its overseas MIDs (546 French Polynesia, 540 New Caledonia,
    # 635 Kerguelen, 660 Reunion, 745 Guiana)
    agree(546_000_001, "FOAB")
    agree(540_000_001, "FJAB")
    agree(635_000_001, "FAAA")
    agree(660_000_001, "FZZZ")
    agree(745_000_001, "TOAB")
    # the United States: K, N, W, AAA - ALZ; Puerto Rico (358), US Virgin Islands (379)
    agree(358_000_001, "WXYZ", "KAAA", "ALZZ")
    agree(379_000_001, "NAAA")
    conflict(358_000_001, "AMAA")  # AMA - AOZ Spain
    # China (People's Republic of) - Macao: XXA - XXZ
    agree(453_000_001, "XXAB", "BAAA")
    # the ITU lists no series for Taiwan (MID 416): its ships use China's B
    agree(416_000_001, "BLHA", "BVAB")
    # Norway: LAA - LNZ, JWA - JXZ (Svalbard), 3YA - 3YZ
    agree(257_000_001, "JWAB", "JXZZ", "LAAA", "LNZZ", "3YAB")
    conflict(257_000_001, "JVZZ", "JYAA", "LOAA")  # JV Mongolia, JY Jordan, LO Argentina
    # New Zealand - Cook Islands: E5; - Niue: E6
    agree(518_000_001, "E5AB", "ZKAB")
    agree(542_000_001, "E6AB")
    # Liechtenstein holds no series of its own; Switzerland's HB serve it
    agree(252_000_001, "HBAB")


def test_half_series() -> None:
    # 3DA - 3DM Eswatini (Kingdom of), 3DN - 3DZ Fiji (Republic of)
    fiji, eswatini = 520_000_001, 669_000_001
    agree(fiji, "3DNA", "3DZZ")
    conflict(fiji, "3DMZ", "3DAA")
    agree(eswatini, "3DAA", "3DMZ")
    conflict(eswatini, "3DNA")
    # a digit third: the table cannot say which half, so neither MID is contradicted
    agree(fiji, "3D2AB")
    agree(eswatini, "3D2AB")
    # SSA - SSM Egypt (Arab Republic of), SSN - SSZ Sudan (Republic of the)
    egypt, sudan = 622_000_001, 662_000_001
    agree(egypt, "SSAA", "SSMZ", "SUAB", "6AAA")
    conflict(egypt, "SSNA", "STAA")
    agree(sudan, "SSNA", "SSZZ", "STAB", "6TAA")
    conflict(sudan, "SSMZ", "SUAA")
    assert holders("3D2") == frozenset() and holders("SS1") == frozenset()
    assert holders("3DM") == {"SZ"} and holders("3DN") == {"FJ"}


def test_what_is_never_judged() -> None:
    # series of international organisations: United Nations 4U, ICAO 4Y, WMO C7
    agree(LR, "4UAB", "4YAB", "C7AB")
    # no series: Q, a digit 0 or 1 first, J1 (no J1A - J1Z in the table)
    agree(LR, "Q1AB", "0AB1", "1ABC", "J130B")
    # a MID allocated to no one (222): no flag to contradict
    agree(222_000_001, "3EAB5")
    # values shaped like no call sign
    agree(LR, "MARIA", "0", "AB", "ABCDEFGH")
    # words for "none" and one letter repeated, four letters like a call sign (NO, NU:
    # United States; TE: Costa Rica; ZZ: Brazil): a Brazilian or a Liberian ship that
    # typed them says nothing of its flag
    for cs in ("NONE", "NULL", "UNKN", "TEST", "XXXX", "ZZZZ", "AAAA"):
        agree(LR, cs)
        agree(710_000_001, cs)
    # a real four-letter call sign still is judged
    conflict(LR, "NOAB")


def test_brazil_wording_kept() -> None:
    br = 710_000_001
    assert flag_conflict(br, "3EAB5") == (
        "MID 710 (Brazil) but call sign 3EAB5 is in no Brazilian series (PP-PY, ZV-ZZ)"
    )
    # as before: MID 710 with a call sign in no series at all is judged too
    conflict(br, "Q1AB", "4UAB", "3D2AB")
    assert (
        flag_conflict(LR, "PPXQ") == "call sign PPXQ is in a Brazilian series but MID 636 is LR's"
    )
    # Brazil (Federative Republic of): PPA - PYZ, ZVA - ZZZ; PO Indonesia, PZ Suriname,
    # ZU South Africa
    agree(br, "PPAA", "PYZZ", "ZVAA", "ZZZZ")
    conflict(br, "POZZ", "PZAA", "ZUZZ")


# -- the bundled data ----------------------------------------------------------------------


def test_series_rows_are_well_formed_and_do_not_overlap() -> None:
    rows = series()
    assert len(rows) > 300
    for s in rows:
        assert re.fullmatch(r"[A-Z0-9]{3}", s.lo) and re.fullmatch(r"[A-Z0-9]{3}", s.hi), s
        assert s.lo[0] == s.hi[0] and s.lo <= s.hi, s
    # every three-character prefix lies in at most one range, PJ excepted (the ITU lists
    # it for Bonaire..., Curaçao and Sint Maarten): no series nests in another, so no
    # match needs to be the more specific; an export that nests one fails here first
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for a in alphabet:
        for b in alphabet:
            for c in "AMNZ2":
                hits = [s for s in rows if s.holds(a + b + c)]
                assert len(hits) <= 1 or {s.iso2 for s in hits} == {"BQ", "CW", "SX"}, hits


def test_codes_match_mid_csv_and_every_mid_is_covered() -> None:
    mids = {iso for iso, _ in table().values()}
    codes = {s.iso2 for s in series()}
    # every holder's code is one mid.csv uses, a part of one (BQ, SX: the Netherlands
    # Caribbean, CW in mid.csv), or empty (an international organisation)
    assert codes - mids <= {"", "BQ", "SX"}
    assert {"BQ", "SX"} <= PARENT.keys()
    # every administration of mid.csv holds a series or belongs to one that does
    held = {family(c) for c in codes if c}
    assert {iso for iso in mids if family(iso) not in held} == set()
    # each territory's parent holds series itself (no chains to nowhere)
    assert set(PARENT.values()) <= codes


def test_parent_table_agrees_with_mid_csv_names() -> None:
    # mid.csv names a territory "Bermuda (United Kingdom)": where the bracket is the name
    # of another row, PARENT must send the territory's code to that row's code
    with MID_FILE.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    by_name = {r["name"]: r["iso2"] for r in rows}
    checked = Counter[str]()
    for r in rows:
        m = re.search(r"\(([^()]+)\)$", r["name"])
        parent = by_name.get(m[1]) if m else None
        if parent is not None and parent != r["iso2"]:
            assert PARENT.get(r["iso2"]) == parent, r
            checked[parent] += 1
    assert {"GB", "DK", "FR", "US", "AU", "NZ", "CN", "NL"} <= checked.keys()
