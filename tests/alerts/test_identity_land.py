"""``ID-ON-LAND`` (issue 34): the coast margin against an independent geodesic oracle;
river ports and terminals a ship may lie at (not used to build the land) and inland
cities no ship can be at; the runs on both sides of every bound; one lead for a
transponder ashore for hours; the same leads however the fixes arrive; through the
replay pipeline and linked to an interference event that put the ship there."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np
import pytest
import shapely
from pyproj import CRS, Transformer

from tests.support.orders import in_order, late_and_twice
from vigia.alerts.episodes import EpisodeConfig
from vigia.alerts.identity.interference import InterferenceWatch
from vigia.alerts.identity.land import RULE, deep_on_land, inside_coast, land_runs
from vigia.alerts.identity.victims import doubtable
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import Position
from vigia.ingest.registry import VesselRegistry
from vigia.zones.basemap import bundled_land
from vigia.zones.evaluate import ZoneIndex

T0 = 1_767_261_600.0  # 2026-01-01T10:00:00Z
SHIP = 710_000_601
#: the rule's bands (docs/identity.md), written out: not read from the code under test
MARGIN_M = 2_000.0
MIN_FIXES, MIN_SPAN_S, MAX_GAP_S, REPORT_S = 5, 600.0, 3_600.0, 3_600.0
#: inland cities far from navigable water (a ship there is no ship)
BRASILIA = (-47.88, -15.79)
INLAND = {
    "Brasília": BRASILIA,
    "Belo Horizonte": (-43.94, -19.92),
    "Campinas": (-47.06, -22.90),
    "Curitiba": (-49.27, -25.43),
    "Campina Grande": (-35.88, -7.23),
}
#: river and lagoon ports and terminals, none in the World Port Index list the land was
#: built with (town centres, to 0.01 degree, after their Wikipedia articles): ships with
#: AIS lie at each
RIVER_PORTS = {
    "Porto Velho (Madeira)": (-63.91, -8.75),
    "Itaituba (Tapajós)": (-55.98, -4.28),
    "Porto Trombetas (Trombetas)": (-56.39, -1.47),
    "Coari (Solimões)": (-63.14, -4.09),
    "Tabatinga (Solimões)": (-69.94, -4.25),
    "Humaitá (Madeira)": (-63.02, -7.51),
    "Cáceres (Paraguai)": (-57.68, -16.07),
    "Corumbá (Paraguai)": (-57.65, -19.00),
    "Porto Murtinho (Paraguai)": (-57.88, -21.70),
    "Presidente Epitácio (Paraná)": (-52.11, -21.77),
    "Pederneiras (Tietê)": (-48.78, -22.35),
    "São Simão (Paranaíba)": (-50.55, -18.99),
    "Petrolina (São Francisco)": (-40.50, -9.40),
    "Pirapora (São Francisco)": (-44.94, -17.35),
    "Estrela (Taquari)": (-51.96, -29.50),
    "Cachoeira do Sul (Jacuí)": (-52.90, -30.04),
    "Marabá (Tocantins)": (-49.12, -5.37),
    "Imperatriz (Tocantins)": (-47.49, -5.53),
    "Guaíra (Paraná)": (-54.26, -24.08),
    "Óbidos, mid-Amazon at its narrows": (-55.52, -1.93),
    "Pilão Arcado (Sobradinho reservoir)": (-42.50, -10.00),
    "Remanso (Sobradinho reservoir)": (-42.08, -9.62),
    "Santa Helena (Itaipu reservoir)": (-54.33, -24.86),
    "Rosana (Porto Primavera reservoir)": (-53.06, -22.58),
    "Capitólio (Furnas reservoir)": (-46.05, -20.61),
    "Lagoa dos Patos": (-51.20, -31.00),
    "Lagoa Mirim": (-52.80, -32.90),
    "the Vessel at Manaus of the real corpus (-59.92, -3.14)": (-59.92, -3.14),
}


def _inland_m(lon: float, lat: float) -> float:
    """Geodesic distance (m) from a fix on land to Natural Earth's coast (0 at sea)."""
    window = shapely.box(lon - 1, lat - 1, lon + 1, lat + 1)
    land = shapely.intersection(bundled_land().polygons, window)
    if not land.contains(shapely.Point(lon, lat)):
        return 0.0
    coast = shapely.segmentize(shapely.intersection(land.boundary, window), 0.001)
    aeqd = CRS.from_proj4(f"+proj=aeqd +lat_0={lat} +lon_0={lon} +ellps=WGS84 +units=m")
    fwd = Transformer.from_crs(4326, aeqd, always_xy=True)
    proj = shapely.transform(coast, lambda xy: np.column_stack(fwd.transform(*xy.T)))
    return float(shapely.distance(proj, shapely.Point(0, 0)))


def test_the_coast_margin_on_both_sides_by_a_geodesic_oracle() -> None:
    # a transect north from the sea off Santos into the Serra do Mar, every 25 m
    lats = np.arange(-24.10, -23.80, 0.000225)
    lons = np.full_like(lats, -46.45)
    got = inside_coast(lons, lats, MARGIN_M)
    truth = np.array([_inland_m(x, y) for x, y in zip(lons, lats, strict=True)])
    # clear of the bound by 5% (the projection's scale, the buffer's arcs), both sides
    assert got[truth > MARGIN_M * 1.05].all() and (truth > MARGIN_M * 1.05).any()
    assert (
        not got[truth < MARGIN_M * 0.95].any() and ((truth > 0) & (truth < MARGIN_M * 0.95)).any()
    )


def test_the_land_no_ship_can_be_on_lies_inside_the_coast_margin() -> None:
    # every point of a 0.05 degree grid over Brazil deep on land is 2 km inside the coast
    lon, lat = (a.ravel() for a in np.meshgrid(np.arange(-74, -34, 0.05), np.arange(-34, 6, 0.05)))
    deep = deep_on_land(lon, lat)
    assert deep.sum() > 100_000  # most of a continent: the check has points to fail on
    assert inside_coast(lon[deep], lat[deep], MARGIN_M).all()


def test_river_ports_and_lagoons_are_not_deep_on_land() -> None:
    lon, lat = np.array(list(RIVER_PORTS.values())).T
    got = dict(zip(RIVER_PORTS, deep_on_land(lon, lat).tolist(), strict=True))
    assert not any(got.values()), [k for k, v in got.items() if v]
    # all of them are more than 2 km inside Natural Earth's land, which has no rivers
    assert inside_coast(lon, lat, MARGIN_M).sum() >= 23


def test_inland_cities_and_the_sea_are_told_apart() -> None:
    lon, lat = np.array(list(INLAND.values())).T
    assert deep_on_land(lon, lat).all()
    sea = {"Santos, a quay": (-46.30, -23.96), "Guanabara Bay": (-43.16, -22.85),
           "Copacabana sand": (-43.1795, -22.9711), "off Campos": (-40.0, -22.5),
           "the Atlantic off Africa (outside the window)": (5.0, -5.0)}  # fmt: skip
    lon, lat = np.array(list(sea.values())).T
    assert not deep_on_land(lon, lat).any()


def ashore(n: int, dt: float = 60.0, at: tuple[float, float] = BRASILIA,
           mmsi: int = SHIP, t0: float = T0) -> list[Position]:  # fmt: skip
    """``n`` fixes ``dt`` s apart, a few metres around ``at``."""
    return [
        Position(mmsi, t0 + dt * i, 1, at[0] + 1e-5 * (i % 3), at[1], 0.1, 0.0, 5, 0)
        for i in range(n)
    ]


def watch(recs: list[Position]) -> list[Lead]:
    return [x for x in in_order(InterferenceWatch(7_200.0), recs) if x.rule == RULE]


def test_a_transponder_at_brasilia_for_15_minutes_is_one_lead() -> None:
    recs = ashore(16)  # 0..900 s
    (lead,) = watch(recs)
    assert (lead.mmsi, lead.started_at, lead.ended_at) == (SHIP, T0, T0 + 900.0)
    assert (lead.closest_lon, lead.closest_lat) == BRASILIA
    assert lead.details["fixes"] == 16 and lead.details["span_s"] == 900.0
    assert lead.details["beyond_bands_m"] > 1_000.0  # well inside, not on an edge
    assert [p.t for p in lead.evidence] == [r.t for r in recs]
    assert lead.citation and lead.to_json()["rule"] == RULE


@pytest.mark.parametrize(
    ("n", "dt", "leads"),
    [
        (5, 150.0, 1),  # 5 fixes over 600 s: the bound itself
        (4, 200.0, 0),  # 4 fixes over 600 s
        (5, 149.75, 0),  # 5 fixes over 599 s
        (6, 120.0, 1),
    ],
)
def test_five_fixes_over_ten_minutes(n: int, dt: float, leads: int) -> None:
    assert len(watch(ashore(n, dt))) == leads


@pytest.mark.parametrize(("gap", "leads"), [(3_600.0, 1), (3_601.0, 0)])
def test_a_gap_over_an_hour_ends_the_run(gap: float, leads: int) -> None:
    # 3 fixes, a gap, 3 fixes: one run of 6 over the gap only when the gap is <= 1 h
    recs = ashore(3) + ashore(3, t0=T0 + 120.0 + gap)
    assert len(watch(recs)) == leads


def test_a_fix_off_the_land_ends_the_run() -> None:
    recs = [*ashore(4), Position(SHIP, T0 + 240.0, 1, -40.0, -22.5, 0.0, 0.0, 5, 0)]
    recs += ashore(4, t0=T0 + 300.0)
    assert watch(recs) == []  # two runs of 4


def test_hours_ashore_are_one_lead_given_the_hour_it_qualifies() -> None:
    recs = ashore(6 * 60)  # six hours, a fix a minute
    w = InterferenceWatch(7_200.0)
    w.feed(recs[:121])  # two hours in
    early = [x for x in w.expire(T0 + 7_200.0 + 3_700.0) if x.rule == RULE]
    w.feed(recs[121:])
    late = [x for x in w.expire(recs[-1].t, final=True) if x.rule == RULE]
    assert len(early) == 1 and late == []
    assert early[0].ended_at == T0 + REPORT_S  # given out when the run reached an hour
    assert early[0].details["fixes"] == 61


def test_the_oracle_of_runs_and_the_watch_agree() -> None:
    # a ship ashore and at sea by turns, gaps of any length: the watch's leads are the
    # runs the plain oracle finds in the sorted fixes
    rng = random.Random(7)
    for _ in range(30):
        t, recs, deep = T0, [], []
        for _ in range(60):
            t += rng.choice([30.0, 60.0, 150.0, 900.0, 3_600.0, 3_700.0])
            on = rng.random() < 0.8
            at = BRASILIA if on else (-40.0, -22.5)
            recs.append(Position(SHIP, t, 1, at[0], at[1], 0.0, 0.0, 5, 0))
            deep.append(on)
        times = [r.t for r in recs]
        want = []
        for i, j in land_runs(times, deep):
            # a run past an hour is given out at its first fix an hour in
            k = next((k for k in range(i, j + 1) if times[k] - times[i] >= REPORT_S
                      and k - i + 1 >= MIN_FIXES), j)  # fmt: skip
            want.append((times[i], times[k]))
        assert [(x.started_at, x.ended_at) for x in watch(recs)] == want


def _signature(leads: list[Lead]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(x) for x in sorted(leads, key=lambda x: (x.started_at, x.mmsi))]


def test_the_same_leads_however_the_fixes_arrive() -> None:
    recs = ashore(20) + ashore(4, mmsi=SHIP + 1) + ashore(90, dt=60.0, mmsi=SHIP + 2,
                                                          at=INLAND["Curitiba"])  # fmt: skip
    want = _signature(watch(recs))
    assert [x["mmsi"] for x in want] == [SHIP, SHIP + 2]
    rng = random.Random(34)
    for _ in range(40):
        # each fix late by up to 30 min, in batches of any size, some twice
        out = late_and_twice(InterferenceWatch(7_200.0), recs, rng, twice=30)
        assert _signature([x for x in out if x.rule == RULE]) == want


def test_through_the_replay_pipeline_and_its_checkpoint() -> None:
    import pickle

    pipe = LeadPipeline(ZoneIndex([]), VesselRegistry(), EpisodeConfig())
    recs = ashore(20)
    out = pipe.process(recs[:8]) + pipe.expire(pipe.stream_time)
    pipe = pickle.loads(pickle.dumps(pipe))  # a worker restarted from its checkpoint
    out += pipe.process(recs[8:]) + pipe.expire(pipe.stream_time) + pipe.finish()
    assert [x.rule for x in out] == [RULE]


def test_an_interference_event_marks_the_land_lead_it_explains() -> None:
    assert doubtable(RULE) and not doubtable("ID-CIRCLE") and doubtable("SEC-MILITARY")


def test_only_a_sustained_run_is_a_candidate() -> None:
    t = [0.0, 150.0, 300.0, 450.0, 600.0, 750.0]
    assert land_runs(t, [True] * 5 + [False]) == [(0, 4)]  # 5 fixes over 600 s
    assert land_runs(t, [True] * 4 + [False, True]) == []  # 4 fixes: short
    t2 = [0.0, 150.0, 300.0, 450.0, 599.0]
    assert land_runs(t2, [True] * 5) == []  # 5 fixes over 599 s < MIN_SPAN_S
    assert land_runs([0.0], [True]) == []  # one fix is a glitch
    assert land_runs([0.0, 150.0, 300.0, 450.0, 4_051.0], [True] * 5) == []  # a gap > 1 h
