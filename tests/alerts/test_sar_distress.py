"""SAR-DISTRESS: AIS-SART, MOB and EPIRB-AIS beacons raise an immediate lead."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.alerts.scenario_kit import (
    T0,
    aisgen,
    feature,
    find_zone,
    index_from,
    run_pipeline,
    square,
    to_positions,
)
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import Position, RawLine, Record
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex

LON, LAT = -43.15, -22.99  # off Copacabana


@pytest.fixture
def index(bundled: ZoneIndex) -> ZoneIndex:
    return bundled


def beacon_records(mmsi: int, t0: float, n: int, nav_status: int = 14) -> list[Record]:
    """A drifting beacon's reports, every minute, through real NMEA and the real decoder."""
    ing = Ingestor()
    out: list[Record] = []
    for i in range(n):
        fix = aisgen.Fix(t0 + 60 * i, LON + 0.0001 * i, LAT, 0.8, 90.0, nav_status)
        for line in aisgen.position_lines(mmsi, fix):
            out += ing.feed(RawLine(line, fix.t, "test"))
    return out


def distress(leads: list[Lead]) -> list[Lead]:
    return [lead for lead in leads if lead.rule == "SAR-DISTRESS"]


@pytest.mark.parametrize(
    ("mmsi", "device"), [(970_123_456, "sart"), (972_123_456, "mob"), (974_123_456, "epirb")]
)
def test_beacon_opens_at_once_closes_after_silence_and_reactivates(
    index: ZoneIndex, mmsi: int, device: str
) -> None:
    pipe = LeadPipeline(index, VesselRegistry())
    first, *rest = beacon_records(mmsi, T0, 10)
    assert pipe.process([first]) == []
    (lead,) = pipe.open_leads()  # open after the very first position
    assert lead.rule == "SAR-DISTRESS" and lead.ended_at is None
    assert lead.citation == "NORMAM-07/DPC 0213 c)"
    assert lead.zone_id is None and lead.zone_kind is None and lead.min_distance_m == 0.0
    assert lead.details["device"] == device
    assert lead.raw_sentences == list(first.raw)  # the real sentence, tag block and all
    assert pipe.process(rest) == []
    assert pipe.expire(T0 + 9 * 60 + pipe.config.hold_s - 1) == []
    (closed,) = pipe.expire(T0 + 9 * 60 + pipe.config.hold_s + 1)
    assert closed.id == lead.id and closed.ended_at == T0 + 9 * 60
    assert len(closed.evidence) == 10
    assert (closed.closest_lon, closed.closest_lat) == pytest.approx((LON + 0.0009, LAT))
    assert pipe.open_leads() == []
    # two hours later the beacon is switched on again: a second, separate lead
    pipe.process(beacon_records(mmsi, T0 + 7200, 3))
    (again,) = pipe.open_leads()
    assert again.id != lead.id and again.started_at == T0 + 7200


def test_reactivation_without_expire_closes_the_first_lead(index: ZoneIndex) -> None:
    recs = beacon_records(970_000_001, T0, 3) + beacon_records(970_000_001, T0 + 7200, 3)
    leads = distress(run_pipeline(index, recs, batch=100))
    assert [lead.ended_at for lead in leads] == [T0 + 120, None]


def test_sart_in_test_mode_raises_nothing(index: ZoneIndex) -> None:
    pipe = LeadPipeline(index, VesselRegistry())
    pipe.process(beacon_records(970_123_456, T0, 5, nav_status=15))
    assert pipe.open_leads() == [] and pipe.finish() == []
    assert pipe.counters["distress_test"] == 5


def test_beacon_without_position_is_counted_not_raised(index: ZoneIndex) -> None:
    pipe = LeadPipeline(index, VesselRegistry())
    pipe.process([Position(970_123_456, T0, 1, None, None, nav_status=14)])
    assert pipe.open_leads() == []
    assert pipe.counters["distress_no_fix"] == 1


def test_thinned_evidence_and_authority(tmp_path: Path) -> None:
    rio = "Capitania dos Portos do Rio de Janeiro"
    idx = index_from(
        [feature(square(LON, LAT, 5000), id="test-rio", kind="jurisdiction", authority=rio)],
        tmp_path,
    )
    mob = [
        Position(972_000_007, T0 + 10 * i, 18, LON, LAT + 1e-5 * i, 0.5, 0.0, raw=(f"s{i}",))
        for i in range(500)
    ]
    (lead,) = distress(run_pipeline(idx, mob))
    assert lead.details == {"device": "mob", "positions": 500} and lead.authority == rio
    assert len(lead.evidence) <= LeadPipeline(idx, VesselRegistry()).config.max_evidence
    assert lead.evidence[0].t == T0 and lead.evidence[-1].t == T0 + 4990
    assert lead.raw_sentences == ["s0", "s499"]  # the activation and the latest fix


def test_ordinary_vessels_unaffected(index: ZoneIndex) -> None:
    _, fort = find_zone(index, "military", "duque-de-caxias")
    c = fort.geometry.representative_point()
    start = aisgen.fwd(c.x, c.y, 270, 1500)
    fixes = [
        aisgen.Fix(T0 + 10 * i, *aisgen.fwd(*start, 90, 30 * i), 6.0, 90.0) for i in range(100)
    ]
    ship = to_positions(710_000_001, fixes)
    sart = to_positions(970_000_009, [aisgen.Fix(f.t, c.x, c.y, 0.0, 0.0, 14) for f in fixes])
    alone = run_pipeline(index, ship)
    assert "SEC-MILITARY" in [x.rule for x in alone]
    mixed = run_pipeline(index, [*ship, *sart])
    assert [x.mmsi for x in distress(mixed)] == [970_000_009]
    assert [x.to_json() for x in mixed if x.rule != "SAR-DISTRESS"] == [x.to_json() for x in alone]


@pytest.mark.postgis
def test_worker_stores_the_open_distress_lead_and_the_api_serves_it(
    store_url: str, tmp_path: Path
) -> None:
    from tests.api.conftest import make_settings, start
    from vigia.service.settings import IngestSettings

    nmea = tmp_path / "sart.nmea"
    fixes = [aisgen.Fix(T0 + 60 * i, LON, LAT, 0.5, 0.0, 14) for i in range(3)]
    nmea.write_text("".join(s + "\n" for f in fixes for s in aisgen.position_lines(970_123_456, f)))
    settings = make_settings(store_url, tmp_path)
    settings.ingest = IngestSettings(worker=True, files=[str(nmea)], flush_interval_s=0.2)
    for api in start(settings):
        assert api.client.app.state.worker.wait_idle(60)  # type: ignore[attr-defined]
        r = api.client.get("/leads?rule=SAR-DISTRESS", headers=api.h("viewer"))
        assert r.status_code == 200
        (lead,) = r.json()["leads"]
        assert lead["mmsi"] == 970_123_456 and lead["ended_at"] is None
        assert lead["zone_id"] is None and lead["details"]["device"] == "sart"
        assert lead["citation"] == "NORMAM-07/DPC 0213 c)"


def test_a_zone_edit_does_not_split_a_distress_alarm(index: ZoneIndex) -> None:
    """Rebuilding the pipeline on edited zones keeps the beacon's one open lead."""
    recs = beacon_records(972_000_777, T0, 6)
    pipe = LeadPipeline(index, VesselRegistry())
    pipe.process(recs[:3])
    (before,) = distress(pipe.open_leads())
    edited = ZoneIndex(index.zones[1:])  # any edit: one zone fewer
    pipe, held = pipe.rebuild(edited)
    assert distress(held) == []  # not handed back to be closed as "zone-edit"
    pipe.process(recs[3:])
    (after,) = distress(pipe.open_leads())
    assert after.id == before.id and after.started_at == T0
    assert len(after.evidence) == 6 and after.ended_at is None
    assert pipe.counters["distress_positions"] == 3  # the new pipeline counts from zero
