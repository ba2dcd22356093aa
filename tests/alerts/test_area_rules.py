"""Area rules on test-defined zones placed at real spots off Rio (channel, special area,
launching area, power plant, jurisdiction) and allow-lists."""

from __future__ import annotations

from pathlib import Path

from shapely.geometry import Point

from tests.alerts.scenario_kit import (
    T0,
    aisgen,
    feature,
    geodesic_truth,
    index_from,
    run_pipeline,
    square,
    to_positions,
)
from tests.alerts.scenario_kit import static as static_rec
from vigia.alerts.episodes import EpisodeConfig
from vigia.ingest.records import iso_utc

# a spot south of the Guanabara bar (the charted anchorage's reference point)
LON, LAT = -43.1438064, -23.0372121
# P-52, a charted Campos basin platform (ofsplf_platforms.csv)
P52 = (-39.735712, -21.906566)


def _channel(tmp_path: Path, **extra: object) -> object:
    poly = square(LON, LAT, 300.0)
    return index_from(
        [
            feature(
                poly,
                id="test-channel",
                kind="access_channel",
                allowed={"ship_types": [70, 80]},
                **extra,
            )
        ],
        tmp_path,
    )


def _transit(mmsi: int, sog: float = 8.0) -> list:
    start = aisgen.fwd(LON, LAT, 180, 1500)
    return to_positions(mmsi, aisgen.run(*start, course=0, sog_kn=sog, t0=T0, dt_s=10, n=60))


def test_channel_traffic_by_a_category_not_allowed_is_a_lead(tmp_path: Path) -> None:
    index = _channel(tmp_path)
    leads = run_pipeline(index, [static_rec(710000101, 37), *_transit(710000101)])
    assert [(lead.rule, lead.citation) for lead in leads] == [
        ("SEC-CHANNEL", "NORMAM-07/DPC 0212 d)")
    ]
    assert leads[0].min_distance_m == 0.0
    assert leads[0].zone_id == "test-channel"


def test_allowed_ship_transits_a_channel_without_lead(tmp_path: Path) -> None:
    index = _channel(tmp_path)
    assert run_pipeline(index, [static_rec(710000102, 70), *_transit(710000102)]) == []


def test_anchoring_in_a_channel_is_a_lead_even_for_allowed_ships(tmp_path: Path) -> None:
    index = _channel(tmp_path)
    # at anchor by status: a lead from the first fix
    anchored = to_positions(710000103, aisgen.hold(LON, LAT, t0=T0, dt_s=60, n=15))
    # stopped without the status: a lead once stopped for the anchoring dwell (5 min)
    drifting = to_positions(710000104, aisgen.hold(LON, LAT, t0=T0, dt_s=60, n=15, nav_status=0))
    # stopped 3 minutes (waiting for a pilot), then on its way: no lead
    brief = to_positions(710000105, aisgen.hold(LON, LAT, t0=T0, dt_s=60, n=4, nav_status=0))
    brief += to_positions(
        710000105, aisgen.run(LON, LAT, course=0, sog_kn=8, t0=T0 + 240, dt_s=10, n=40)
    )
    recs = [static_rec(m, 70) for m in (710000103, 710000104, 710000105)]
    leads = run_pipeline(index, [*recs, *anchored, *drifting, *brief])
    by_mmsi = {lead.mmsi: lead for lead in leads}
    assert sorted(by_mmsi) == [710000103, 710000104]
    assert by_mmsi[710000103].rule == "SEC-CHANNEL"
    assert by_mmsi[710000103].started_at == T0
    assert by_mmsi[710000104].started_at == T0 + 300


def test_special_area_is_judged_at_message_time(tmp_path: Path) -> None:
    poly = square(LON, LAT, 1000.0)
    index = index_from(
        [
            feature(
                poly,
                id="test-notice",
                kind="special_area",
                valid_from=iso_utc(T0 + 3600),
                valid_to=iso_utc(T0 + 7200),
                notice="Aviso-Radio de teste",
            )
        ],
        tmp_path,
    )
    before = to_positions(710000201, aisgen.hold(LON, LAT, t0=T0, dt_s=60, n=30, nav_status=0))
    during = to_positions(
        710000202, aisgen.hold(LON, LAT, t0=T0 + 3600 + 600, dt_s=60, n=30, nav_status=0)
    )
    # inside from 1 h 50 to 2 h 20: only the part before the notice ends counts
    across = to_positions(
        710000203, aisgen.hold(LON, LAT, t0=T0 + 6600, dt_s=60, n=31, nav_status=0)
    )
    leads = run_pipeline(index, [*before, *during, *across])
    by_mmsi = {lead.mmsi: lead for lead in leads}
    assert sorted(by_mmsi) == [710000202, 710000203]
    assert by_mmsi[710000202].rule == "SEC-NOTICE"
    assert by_mmsi[710000202].citation == "NORMAM-07/DPC 0212 g)"
    assert by_mmsi[710000203].started_at == T0 + 6600
    assert by_mmsi[710000203].evidence[-1].t <= T0 + 7200


def test_launch_area_dwell_beyond_the_limit(tmp_path: Path) -> None:
    index = index_from(
        [feature(square(LON, LAT, 150), id="test-launch", kind="launch_area", max_dwell_min=15)],
        tmp_path,
    )
    long_stay = to_positions(710000301, aisgen.hold(LON, LAT, t0=T0, dt_s=60, n=21))
    short_stay = to_positions(710000302, aisgen.hold(LON, LAT, t0=T0, dt_s=60, n=11))
    leads = run_pipeline(index, [*long_stay, *short_stay])
    assert [(lead.mmsi, lead.rule) for lead in leads] == [(710000301, "BATH-LAUNCH")]
    assert leads[0].started_at > T0 + 15 * 60
    assert leads[0].citation == "NORMAM-07/DPC 0211 e)"


def test_power_plant_area(tmp_path: Path) -> None:
    index = index_from(
        [feature(square(LON, LAT, 400), id="test-plant", kind="power_plant")], tmp_path
    )
    leads = run_pipeline(index, _transit(710000401))
    assert [(lead.rule, lead.citation) for lead in leads] == [
        ("SEC-PLANT", "NORMAM-07/DPC 0212 b)")
    ]


def test_platform_allow_list_and_authority(tmp_path: Path) -> None:
    index = index_from(
        [
            feature(Point(*P52), id="test-p52", kind="platform", allowed={"mmsi": [710000501]}),
            feature(
                square(*P52, 5000),
                id="test-jurisdiction",
                kind="jurisdiction",
                authority="Capitania dos Portos de Macaé",
            ),
        ],
        tmp_path,
    )
    cpa = aisgen.fwd(*P52, 45, 250)
    start = aisgen.fwd(*cpa, 315, 1000)
    supply = to_positions(710000501, aisgen.run(*start, course=135, sog_kn=6, t0=T0, dt_s=10, n=70))
    intruder = to_positions(
        710000502, aisgen.run(*start, course=135, sog_kn=6, t0=T0, dt_s=10, n=70)
    )
    leads = run_pipeline(index, [*supply, *intruder])
    assert [(lead.mmsi, lead.rule) for lead in leads] == [(710000502, "SEC-PLATFORM")]
    lead = leads[0]
    assert lead.authority == "Capitania dos Portos de Macaé"
    truth = min(geodesic_truth(Point(*P52), p.lon, p.lat) for p in intruder)  # type: ignore[arg-type]
    assert abs(truth - 250) < 5
    assert abs(lead.min_distance_m - truth) < 2.0


def test_long_episode_evidence_is_thinned_and_ids_are_stable(tmp_path: Path) -> None:
    index = _channel(tmp_path)
    # a pleasure craft lying stopped in the channel for 5.5 hours, a fix every 10 s
    recs = to_positions(710000601, aisgen.hold(LON, LAT, t0=T0, dt_s=10, n=2000, nav_status=0))
    cfg = EpisodeConfig(max_evidence=200)
    first = run_pipeline(index, recs, config=cfg)
    again = run_pipeline(index, recs, config=cfg, batch=500)
    assert len(first) == 1
    lead = first[0]
    assert 100 <= len(lead.evidence) <= 200
    ts = [e.t for e in lead.evidence]
    assert ts == sorted(ts)
    assert ts[0] == recs[0].t
    assert ts[-1] == recs[-1].t
    assert lead.started_at == recs[0].t and lead.ended_at is None
    assert [x.to_json() for x in first] == [x.to_json() for x in again]
