"""ATON-DAMAGE from real NMEA: a channel buoy off Santos reports itself off position
(type 21), or falls silent, and the lead names the vessels that passed close to it in
the hour before, nearest first, and none that stayed away."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyais.encode import encode_dict

from tests.alerts.scenario_kit import T0, aisgen, run_pipeline
from vigia.alerts.aton import AtonConfig, AtonWatch
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import AidToNavigation, RawLine, Record, iso_utc
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex

BUOY = (-46.3040, -23.9850)  # a lateral buoy on the Santos access channel
BUOY_MMSI = 997_101_234


def aton_lines(t: float, off: bool, lon: float = BUOY[0], lat: float = BUOY[1]) -> list[str]:
    data = {
        "type": 21, "mmsi": BUOY_MMSI, "aid_type": 14, "name": "BOIA 7 SANTOS",
        "lon": lon, "lat": lat, "off_position": off, "virtual_aid": False,
        "second": int(t) % 60,
    }  # fmt: skip
    return [aisgen.tag(s, t) for s in encode_dict(data, talker_id="AI", sentence_type="VDM")]


def decode(lines: list[str]) -> list[Record]:
    ing = Ingestor(VesselRegistry())
    # read back a day later, as an archive is: the messages keep their own times
    return list(ing.feed_many(RawLine(x, T0 + 86_400, "test") for x in lines))


def passing(mmsi: int, t0: float, offset_m: float) -> list[str]:
    """A ship steaming north along the channel, ``offset_m`` east of the buoy."""
    lon, lat = aisgen.fwd(*BUOY, 90.0, offset_m)
    lon, lat = aisgen.fwd(lon, lat, 180.0, 1_500.0)
    out: list[str] = []
    for k in range(30):  # 3 km at 10 kn, a fix every 10 s
        plon, plat = aisgen.fwd(lon, lat, 0.0, k * 100.0)
        out += aisgen.position_lines(mmsi, aisgen.Fix(t0 + k * 10.0, plon, plat, 10.0, 0.0))
    return out


def aton_leads(leads: list[Lead]) -> list[Lead]:
    return [x for x in leads if x.rule == "ATON-DAMAGE"]


def test_off_position_lists_the_ships_that_passed_close_nearest_first() -> None:
    lines = aton_lines(T0, off=False) + aton_lines(T0 + 180, off=False)
    lines += passing(710_000_101, T0 + 600, 120.0)  # grazes it
    lines += passing(710_000_102, T0 + 900, 380.0)  # inside the 500 m radius
    lines += passing(710_000_103, T0 + 900, 2_000.0)  # stays well clear
    lines += passing(710_000_104, T0 - 4_000, 50.0)  # too long before
    drifted = aisgen.fwd(*BUOY, 200.0, 800.0)
    lines += aton_lines(T0 + 2_400, off=True, lon=drifted[0], lat=drifted[1])
    lines += aton_lines(T0 + 2_580, off=True, lon=drifted[0], lat=drifted[1])  # one lead only
    records = sorted(decode(lines), key=lambda r: r.t)
    assert any(isinstance(r, AidToNavigation) and r.off_position for r in records)
    leads = aton_leads(run_pipeline(ZoneIndex([]), records))
    assert len(leads) == 1
    lead = leads[0]
    assert lead.citation == "NORMAM-07/DPC 0207" and lead.mmsi == BUOY_MMSI
    assert lead.details["trigger"] == "off_position"
    cands = lead.details["candidates"]
    assert [c["mmsi"] for c in cands] == [710_000_101, 710_000_102]
    assert abs(cands[0]["closest_m"] - 120.0) < 5 and abs(cands[1]["closest_m"] - 380.0) < 5
    # measured from where the buoy stood, not from where it drifted to
    assert (lead.closest_lon, lead.closest_lat) == BUOY
    assert lead.vessel["name"] == "BOIA 7 SANTOS"


def test_a_buoy_that_falls_silent_raises_once_and_rearms_when_back() -> None:
    lines = aton_lines(T0, off=False) + aton_lines(T0 + 180, off=False)
    lines += passing(710_000_201, T0 + 300, 200.0)
    lines += passing(710_000_202, T0 + 3_000, 30.0)  # keeps the stream clock moving
    records = sorted(decode(lines), key=lambda r: r.t)
    pipe = LeadPipeline(ZoneIndex([]), VesselRegistry(), aton=AtonConfig(silent_s=1_800.0))
    leads: list[Lead] = []
    for r in records:
        leads += pipe.process([r])
        leads += pipe.expire(pipe.stream_time)
    # within the lateness bound a report could still come and end the silence
    assert aton_leads(leads) == []
    leads += pipe.finish()
    silent = aton_leads(leads)
    assert len(silent) == 1 and silent[0].details["trigger"] == "silent"
    assert [c["mmsi"] for c in silent[0].details["candidates"]] == [710_000_201]
    assert silent[0].started_at == T0 + 180 + 1_800.0


def test_virtual_aids_and_buoys_never_heard_on_station_are_watched_safely() -> None:
    watch = AtonWatch(AtonConfig(radius_m=300.0))
    virtual = AidToNavigation(BUOY_MMSI, T0, 21, *BUOY, off_position=True, virtual=True)
    assert watch.feed([virtual], []) == [] and not watch.watching
    lost = AidToNavigation(BUOY_MMSI, T0, 21, None, None, off_position=True)
    assert watch.feed([lost], []) == []
    # first heard already off position: raised once, candidates measured from its report
    off = AidToNavigation(BUOY_MMSI, T0, 21, *BUOY, off_position=True)
    assert len(watch.feed([off, off], [])) == 1


SECOND = 997_101_235  # a second buoy 3 km up the channel


def _two_buoys() -> list[Record]:
    """Buoy 7 reports every 3 min for an hour, then nothing for 2 h (it sank); buoy 8
    reports every 3 min, silent 40 min from the hour, then reports itself off position.
    Ships pass both all the while on the same receiver."""
    up = aisgen.fwd(*BUOY, 0.0, 3_000.0)
    lines: list[str] = []
    for k in range(21):  # buoy 7: T0 .. T0 + 3600
        lines += aton_lines(T0 + 180 * k, off=False)
    data = {"type": 21, "mmsi": SECOND, "aid_type": 14, "name": "BOIA 8 SANTOS",
            "virtual_aid": False}  # fmt: skip
    for t, off in [*((T0 + 180 * k, False) for k in range(21)), (T0 + 6_000, True)]:
        where = aisgen.fwd(*up, 90.0, 900.0) if off else up
        body = {**data, "lon": where[0], "lat": where[1], "off_position": off,
                "second": int(t) % 60}  # fmt: skip
        lines += [aisgen.tag(s, t) for s in encode_dict(body, talker_id="AI", sentence_type="VDM")]
    for k in range(40):  # a ship every 5 min for 3 h 20 min, 100 m off buoy 7
        lines += passing(710_000_300 + k, T0 + 300 * k, 100.0)
    return sorted(decode(lines), key=lambda r: r.t)


def _aton_json(leads: list[Lead]) -> list[dict[str, object]]:
    return sorted((x.to_json() for x in aton_leads(leads)), key=lambda j: str(j["id"]))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(1, 400), min_size=1, max_size=30),
       st.lists(st.floats(0.0, 36_000.0), min_size=1, max_size=30))  # fmt: skip
def test_the_same_leads_whatever_the_batching_and_the_wall_clock_ticks(
    sizes: list[int], walls: list[float]
) -> None:
    """Issue 38: a live worker's idle tick runs the clock at wall time; the same input
    gave 165 leads on one store and 192 on the other. A silence is judged on the stream's
    own time now: batches of any size, each followed by a tick up to 10 h ahead of the
    stream, raise exactly what one record at a time does."""
    records = _two_buoys()
    want = _aton_json(run_pipeline(ZoneIndex([]), records, batch=1))
    # by hand: buoy 7 silent from T0 + 3600 (raised at + 1800 s); buoy 8 heard again off
    # position at T0 + 6000 (its silence explained by the drift: one lead, off position)
    assert sorted((j["mmsi"], j["details"]["trigger"], j["started_at"]) for j in want) == [
        (BUOY_MMSI, "silent", iso_utc(T0 + 5_400)),
        (SECOND, "off_position", iso_utc(T0 + 6_000)),
    ]
    pipe = LeadPipeline(ZoneIndex([]), VesselRegistry())
    got: list[Lead] = []
    i = k = 0
    while i < len(records):
        n = sizes[k % len(sizes)]
        got += pipe.process(records[i : i + n])
        got += pipe.expire(max(pipe.stream_time, pipe.stream_time + walls[k % len(walls)]))
        i, k = i + n, k + 1
    got += pipe.finish()
    assert _aton_json(got) == want


def test_a_receiver_that_goes_down_silences_no_buoy() -> None:
    """The receiver hears nothing at all for 2 h (buoys and ships alike), then comes
    back: an outage, counted, not a lead."""
    records = [r for r in _two_buoys() if not T0 + 3_700 < r.t < T0 + 11_000]
    records = [r for r in records if r.mmsi != SECOND]
    pipe = LeadPipeline(ZoneIndex([]), VesselRegistry())
    leads = run_pipeline(ZoneIndex([]), records)
    assert aton_leads(leads) == []
    for i in range(0, len(records), 50):
        pipe.process(records[i : i + 50])
        pipe.expire(pipe.stream_time)
    pipe.finish()
    assert pipe.counters["aton_silent_outage"] == 1
