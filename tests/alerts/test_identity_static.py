"""Static data that changes under one MMSI, the IMO check digit and the MID against the
call sign (issue 34): hand values from the published rules, each bound on both sides,
and the leads the same however the records arrive."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scripts.satfeed import deliver
from tests.alerts.scenario_kit import T0, aisgen, to_positions
from tests.support.orders import shuffled_across_vessels
from vigia.alerts.identity.mid import country, flag_conflict, mid_of
from vigia.alerts.identity.static import FLAG_RULE, STATIC_RULE, imo_valid
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Record, StaticData
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex

INDEX = ZoneIndex([])  # no zone: only the identity rules can speak
SEA = (-38.0, -30.0)  # open South Atlantic


# -- the published rules, by hand ------------------------------------------------------


def test_imo_check_digit_by_the_imo_rule() -> None:
    # 9074729: 9*7 + 0*6 + 7*5 + 4*4 + 7*3 + 2*2 = 139, check digit 9
    assert imo_valid(9074729)
    assert not imo_valid(9074728) and not imo_valid(9074720)
    # the smallest seven-digit number: 1*7 = 7; a six-digit and an eight-digit one fail
    assert imo_valid(1000007) and not imo_valid(1000000)
    assert not imo_valid(999_999) and not imo_valid(10_000_007)
    # 9999999: 9*(7+6+5+4+3+2) = 243, check digit 3, so 9999993 passes and 9999999 fails
    assert imo_valid(9999993) and not imo_valid(9999999)


def test_mid_of_each_m585_form() -> None:
    assert mid_of(710_123_456) == 710  # ship
    assert mid_of(7_101_234) == 710  # 00MIDxxxx coast station
    assert mid_of(111_710_123) == 710  # SAR aircraft
    assert mid_of(987_101_234) == 710 and mid_of(997_101_234) == 710  # craft, AtoN
    assert mid_of(871_012_345) == 710  # handheld
    assert mid_of(970_123_456) is None  # AIS-SART: a manufacturer's number follows


def test_mid_table_names_the_administration_or_none() -> None:
    assert country(710_000_001) == (710, "BR")
    assert country(701_000_001) == (701, "AR")
    assert country(775_000_001) == (775, "VE")
    assert country(222_000_001) == (222, None)  # allocated to no one
    assert country(700_000_001) == (700, None)


def test_call_sign_series_bounds_for_brazil() -> None:
    br = 710_000_001
    # PP..PY and ZV..ZZ are Brazil's (RR Appendix 42): both ends of each series
    for cs in ("PPXQ", "PP1234", "PY2ABC", "ZVAB", "ZZ12"):
        assert flag_conflict(br, cs) is None, cs
    # just outside: PO (Indonesia), PZ (Suriname), ZU (South Africa)
    for cs in ("PO1234", "PZ1234", "ZU1234", "9V2487"):
        assert flag_conflict(br, cs) is not None, cs
    # a Brazilian call sign under Singapore's MID, and one under a MID of no one
    assert flag_conflict(563_000_001, "PPXQ") is not None
    assert flag_conflict(222_000_001, "PPXQ") is None  # no flag to contradict


def test_values_not_shaped_like_a_call_sign_are_not_judged() -> None:
    br = 710_000_001
    for cs in ("0", "MARIA", "4410123456", "E C C M", "AB", "ABCDEFGH", None, ""):
        assert flag_conflict(br, cs) is None, cs
    # four letters is a ship's call sign shape; five without a digit is a name
    assert flag_conflict(br, "ABCD") is not None and flag_conflict(br, "ABCDE") is None
    assert flag_conflict(br, "@@PPXQ") is None  # AIS padding dropped


# -- leads in the pipeline --------------------------------------------------------------


def _sd(
    mmsi: int, t: float, name: str, cs: str | None = None, imo: int | None = None
) -> StaticData:
    return StaticData(mmsi, t, 5, name=name, callsign=cs, imo=imo, ship_type=70, length_m=90.0)


def _fixes(mmsi: int, hours: float = 3.0, lon: float = SEA[0]) -> list[Record]:
    n = int(hours * 60)
    return list(
        to_positions(mmsi, aisgen.run(lon, SEA[1], course=0, sog_kn=10, t0=T0, dt_s=60, n=n))
    )


def run(records: Sequence[Record], sizes: Sequence[int] = (500,)) -> dict[str, dict[str, Any]]:
    pipe = LeadPipeline(INDEX, VesselRegistry())
    out: dict[str, dict[str, Any]] = {}
    i = k = 0
    while i < len(records):
        n = sizes[k % len(sizes)]
        for lead in pipe.process(records[i : i + n]) + pipe.expire(pipe.stream_time):
            assert lead.id not in out, "a lead given out twice"
            out[lead.id] = lead.to_json()
        i, k = i + n, k + 1
    for lead in pipe.finish():
        out[lead.id] = lead.to_json()
    return out


def _leads(records: list[Record]) -> list[dict[str, Any]]:
    return sorted(run(sorted(records, key=lambda r: r.t)).values(), key=lambda x: x["rule"])


A, B, C, D, E = 710_000_401, 710_000_402, 710_000_403, 710_000_404, 563_000_405


def test_two_identities_taking_turns_are_a_lead() -> None:
    recs = [
        *_fixes(A),
        _sd(A, T0 + 600, "ALFA", "PPAA", 9074729),
        _sd(A, T0 + 1200, "BRAVO", "PPBB", 9074729),
        _sd(A, T0 + 1800, "ALFA", "PPAA", 9074729),
    ]
    (lead,) = _leads(recs)
    assert lead["rule"] == STATIC_RULE and lead["mmsi"] == A
    # the second report changed name and call sign at once; the third came back
    assert [e["why"] for e in lead["details"]["events"]] == [
        ["name and call sign changed in one report"],
        [
            "name and call sign changed in one report",
            "returned to an identity it had within the day",
        ],
    ]
    # placed at the latest fix before the first event (a fix a minute)
    assert lead["evidence"][0]["t"] == "2026-01-01T10:20:00Z"
    assert lead["details"]["mid_country"] == "BR"


def test_one_rename_is_history_not_a_lead() -> None:
    recs = [*_fixes(B), _sd(B, T0 + 600, "ALFA", "PPAA"), _sd(B, T0 + 1200, "ALFA II", "PPAA")]
    assert _leads(recs) == []


def test_an_imo_between_two_valid_numbers_is_a_lead_a_bad_check_digit_is_not() -> None:
    recs = [
        *_fixes(C),
        _sd(C, T0 + 600, "X", "PPCC", 9074729),
        _sd(C, T0 + 900, "X", "PPCC", 1000007),
    ]
    (lead,) = _leads(recs)
    assert lead["details"]["events"][0]["changes"] == {"imo": {"from": 9074729, "to": 1000007}}
    # the same change to a number that fails its check digit: history only
    recs = [
        *_fixes(C),
        _sd(C, T0 + 600, "X", "PPCC", 9074729),
        _sd(C, T0 + 900, "X", "PPCC", 1000008),
    ]
    assert _leads(recs) == []


def test_a_returning_identity_after_the_day_is_no_lead() -> None:
    # PPAA last heard at T0 + 600, then PPAB every 30 min (static data never silent
    # past the forget time): back at a day after PPAA's last hearing is a return, 1 s
    # later it is not
    late = T0 + 600 + 86_400 + 1
    ab = [_sd(A, t, "ALFA", "PPAB") for t in range(int(T0) + 1_200, int(late), 1_800)]
    recs: list[Record] = [*_fixes(A, hours=26), _sd(A, T0 + 600, "ALFA", "PPAA"), *ab]
    assert _leads([*recs, _sd(A, late, "ALFA", "PPAA")]) == []
    assert [x["rule"] for x in _leads([*recs, _sd(A, late - 1, "ALFA", "PPAA")])] == [STATIC_RULE]


def test_identities_before_a_static_silence_past_the_forget_time_are_dropped() -> None:
    forget = LeadPipeline(INDEX, VesselRegistry()).config.forget_after_s
    first = [*_fixes(A), _sd(A, T0 + 600, "ALFA", "PPAA"), _sd(A, T0 + 660, "ALFA", "PPAB")]
    # the next report exactly the forget time after the last: still remembered
    assert len(_leads([*first, _sd(A, T0 + 660 + forget, "ALFA", "PPAA")])) == 1
    assert _leads([*first, _sd(A, T0 + 661 + forget, "ALFA", "PPAA")]) == []


def test_mid_and_call_sign_of_different_flags_is_a_lead() -> None:
    recs = [*_fixes(D), _sd(D, T0 + 600, "DELTA", "9V2487"), *_fixes(E, lon=SEA[0] + 1)]
    recs += [_sd(E, T0 + 600, "ECHO", "PPEE")]
    leads = _leads(recs)
    assert [(x["rule"], x["mmsi"]) for x in leads] == [(FLAG_RULE, D), (FLAG_RULE, E)]
    assert "9V2487" in leads[0]["details"]["events"][0]["why"][0]


def test_a_lead_waits_for_the_quiet_after_its_run() -> None:
    pipe = LeadPipeline(INDEX, VesselRegistry())
    fixes = _fixes(D)
    got = pipe.process([*fixes[:10], _sd(D, T0 + 300, "DELTA", "9V2487"), *fixes[10:]])
    bound = pipe.config.lateness_s
    # the bound must pass the event by the 30 min quiet: at it, nothing; a second on, the lead
    short = T0 + 300 + 1_800.0 + bound
    assert got == [] and pipe.expire(short) == []
    assert [x.rule for x in pipe.expire(short + 1.0)] == [FLAG_RULE]


# -- the same leads however the records arrive -------------------------------------------


def _capture() -> list[Record]:
    recs: list[Record] = []
    for k, m in enumerate((A, B, C, D, E)):
        recs += _fixes(m, lon=SEA[0] + 0.5 * k)
    recs += [
        _sd(A, T0 + 600, "ALFA", "PPAA"), _sd(A, T0 + 1200, "BRAVO", "PPBB"),
        _sd(A, T0 + 1800, "ALFA", "PPAA"), _sd(A, T0 + 7200, "BRAVO", "PPBB"),
        _sd(B, T0 + 600, "ALFA", "PPAA"), _sd(B, T0 + 1200, "ALFA II", "PPAA"),
        _sd(C, T0 + 600, "X", "PPCC", 9074729), _sd(C, T0 + 900, "X", "PPCC", 1000007),
        _sd(D, T0 + 600, "DELTA", "9V2487"), _sd(E, T0 + 3600, "ECHO", "PPEE"),
    ]  # fmt: skip
    return sorted(recs, key=lambda r: r.t)


CAPTURE = _capture()
SORTED = run(CAPTURE)


def test_the_capture_raises_each_kind() -> None:
    assert sorted((x["rule"], x["mmsi"]) for x in SORTED.values()) == [
        (FLAG_RULE, E), (FLAG_RULE, D), (STATIC_RULE, A), (STATIC_RULE, A), (STATIC_RULE, C),
    ]  # fmt: skip


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.lists(st.integers(1, 400), min_size=1, max_size=3))
def test_any_order_late_batches_and_duplicates_give_the_same_identity_leads(
    seed: int, sizes: list[int]
) -> None:
    shuffled = shuffled_across_vessels(CAPTURE, seed, key=lambda r: r.mmsi)
    assert run(shuffled, sizes) == SORTED
    # a satellite-like feed: per-vessel batches 0-90 min late, a few percent twice
    fed = deliver(CAPTURE, key=lambda r: r.mmsi, time=lambda r: r.t, seed=seed)
    assert len(fed) > len(CAPTURE)
    assert run(fed, sizes) == SORTED
    twice = [dataclasses.replace(r) for r in CAPTURE] + list(CAPTURE)
    assert run(sorted(twice, key=lambda r: r.t), sizes) == SORTED
