"""Historical CSV import: Danish Maritime Authority and NOAA MarineCadastre exports."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from vigia.ingest.counters import IngestCounters
from vigia.ingest.csv_import import read_csv
from vigia.ingest.errors import InputFormatError
from vigia.ingest.records import BaseStation, Position, StaticData


def ts(*args: int) -> float:
    return datetime(*args, tzinfo=UTC).timestamp()  # type: ignore[misc]


def test_dma_export(fixtures: Path) -> None:
    counters = IngestCounters()
    recs = list(read_csv(fixtures / "ingest_dma_sample.csv", counters=counters))
    positions = [r for r in recs if isinstance(r, Position)]
    statics = [r for r in recs if isinstance(r, StaticData)]
    bases = [r for r in recs if isinstance(r, BaseStation)]

    first = positions[0]
    assert (first.mmsi, first.msg_type, first.t) == (219000429, 1, ts(2024, 3, 1, 0, 0, 0))
    assert (first.lat, first.lon, first.sog, first.cog, first.heading) == (
        55.478893,
        11.20147,
        12.3,
        214.6,
        215,
    )
    assert first.nav_status == 0  # "Under way using engine"
    assert first.source == "dma"

    benedikte = statics[0]
    assert (benedikte.name, benedikte.callsign, benedikte.imo) == (
        "PRINSESSE BENEDIKTE",
        "OXGZ2",
        9354399,
    )
    assert (benedikte.ship_type, benedikte.length_m, benedikte.beam_m) == (60, 142.0, 24.0)
    assert benedikte.destination == "ROEDBY"

    freja = next(p for p in positions if p.mmsi == 219023747)
    assert (freja.msg_type, freja.nav_status, freja.cog, freja.heading) == (18, None, None, None)
    freja_static = next(s for s in statics if s.mmsi == 219023747)
    assert (freja_static.msg_type, freja_static.ship_type, freja_static.imo) == (24, 37, None)

    assert [(b.mmsi, b.lat) for b in bases] == [(2190068, 55.716667)]

    # "not available" values in the export become None, like NMEA
    nordic = next(p for p in positions if p.mmsi == 636019825)
    assert (nordic.lat, nordic.lon, nordic.sog, nordic.cog, nordic.heading) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert nordic.nav_status == 1
    nordic_static = next(s for s in statics if s.mmsi == 636019825)
    assert (nordic_static.name, nordic_static.ship_type) == ("NORDIC, STAR", 80)

    # the repeated, unchanged static data of 219000429 is emitted once
    assert [s.mmsi for s in statics].count(219000429) == 1
    moored = [p for p in positions if p.mmsi == 219000429 and p.nav_status == 5]
    assert len(moored) == 1  # the row with COG "twelve" is skipped

    # 9 data rows: bad time, bad MMSI, bad COG are counted and skipped
    assert counters.lines == 9
    assert counters.bad_row == 3
    assert counters.records == len(recs)


def test_noaa_export(fixtures: Path) -> None:
    counters = IngestCounters()
    recs = list(read_csv(fixtures / "ingest_noaa_sample.csv", counters=counters))
    positions = [r for r in recs if isinstance(r, Position)]
    statics = [r for r in recs if isinstance(r, StaticData)]
    bud = positions[0]
    assert (bud.mmsi, bud.t, bud.lat, bud.lon) == (
        367669550,
        ts(2023, 1, 1, 0, 0, 6),
        29.94284,
        -90.05632,
    )
    assert (bud.sog, bud.cog, bud.heading, bud.nav_status) == (0.0, None, None, 0)
    assert positions[1].cog == 212.3 and positions[1].heading == 203
    bud_static = statics[0]
    assert (bud_static.name, bud_static.imo, bud_static.callsign, bud_static.ship_type) == (
        "CAPT BUD",
        9214121,
        "WDH8431",
        31,
    )
    assert (bud_static.length_m, bud_static.beam_m) == (26.0, 9.0)
    assert [s.mmsi for s in statics].count(367669550) == 1
    fox = next(p for p in positions if p.mmsi == 338202913)
    assert (fox.msg_type, fox.nav_status) == (18, None)
    columbia = next(s for s in statics if s.mmsi == 366998410)
    assert columbia.imo is None  # IMO0000000 = none
    assert counters.lines == 6
    assert counters.bad_row == 2


def test_header_of_neither_format_is_refused(fixtures: Path) -> None:
    with pytest.raises(InputFormatError) as exc:
        read_csv(fixtures / "ingest_not_ais.csv")
    msg = str(exc.value)
    assert "timestamp" in msg and "basedatetime" in msg and "mmsi" in msg


def test_columns_match_case_insensitively(tmp_path: Path) -> None:
    p = tmp_path / "upper.csv"
    p.write_text(
        "mmsi,BASEDATETIME,Lat,Lon,sog,cog,HEADING\n"
        "710000001,2024-05-01T12:00:00,-22.95,-43.16,3.5,90.0,91\n"
    )
    (rec,) = [r for r in read_csv(p) if isinstance(r, Position)]
    assert (rec.mmsi, rec.lat, rec.lon, rec.sog, rec.heading) == (
        710000001,
        -22.95,
        -43.16,
        3.5,
        91,
    )


def test_noaa_2015_2017_status_written_out(tmp_path: Path) -> None:
    """MarineCadastre 2015-2017 exports spell the status; 2018 on give its number."""
    csv = tmp_path / "AIS_2016_01_01.csv"
    csv.write_text(
        "MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,IMO,CallSign,VesselType,"
        "Status,Length,Width,Draft,Cargo\n"
        "367000001,2016-01-01T00:00:00,29.9,-90.0,0.0,0.0,511.0,A,,,31,moored,20,8,3,\n"
        "367000002,2016-01-01T00:00:01,29.9,-90.1,9.5,90.0,90.0,B,,,70,"
        "under way using engine,120,20,6,\n"
        "367000003,2016-01-01T00:00:02,29.9,-90.2,0.0,0.0,511.0,C,,,70,at anchor,,,,\n"
        "367000004,2016-01-01T00:00:03,29.9,-90.3,0.0,0.0,511.0,D,,,70,3,,,,\n"
    )
    counters = IngestCounters()
    recs = [r for r in read_csv(csv, counters=counters) if isinstance(r, Position)]
    assert [r.nav_status for r in recs] == [5, 0, 1, 3]
    assert counters.bad_row == 0
