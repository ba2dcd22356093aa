"""The pairing stage's checkpoint (issue 37): a watch stopped mid-meeting, written and
read back, carries on to the lead an uninterrupted watch gives; a forged blob is refused,
never run."""

from __future__ import annotations

import io
import os
import pickle
import struct
import zlib

import pytest

from scripts import encounter_scenarios as es
from vigia.alerts.authorised import Authorisation, AuthorisedRegister
from vigia.alerts.encounters.watch import EncounterWatch
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import RawLine, Record
from vigia.service.runtime.bus import state as bus_state
from vigia.service.runtime.bus.pairing import dump, load
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex


def _records() -> list[Record]:
    ing = Ingestor()
    out: list[Record] = []
    for line in es.lines(es.build(1, seed=9, kinds=("meeting", "dark"))):
        out += ing.feed(RawLine(line, 4_000_000_000.0, "state"))
    return sorted(out + ing.flush(), key=lambda r: r.t)


def test_a_watch_written_mid_meeting_carries_on_to_the_same_leads() -> None:
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    recs = _records()
    half = len(recs) // 2

    def feed(w: EncounterWatch, part: list[Record]) -> list[str]:
        out = []
        for i in range(0, len(part), 250):
            w.feed(part[i : i + 250])
            out += [x.to_json()["id"] for x in w.expire(w.stream_time)]
            w.open_leads()
        return out

    whole = EncounterWatch(index)
    want = feed(whole, recs) + [x.id for x in whole.expire(0.0, final=True)]
    assert len(want) == 2
    first = EncounterWatch(index)
    first.register = AuthorisedRegister([Authorisation(mmsi=1, zone_id="x")])
    got = feed(first, recs[:half])
    owed = first.open_leads()
    assert owed  # mid-meeting: the commit owes the store the open meeting
    blob = dump(first, 41, owed)
    assert len(first.register) == 1  # the register stays with its owner, not the blob
    back, seq, outbox = load(blob, index)
    assert seq == 41 and back.index is index and len(back.register) == 0
    assert [x.to_json() for x in outbox] == [x.to_json() for x in owed]
    got += feed(back, recs[half:]) + [x.id for x in back.expire(0.0, final=True)]
    assert got == want


def test_a_forged_state_is_refused_not_run() -> None:
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    evil = pickle.dumps(os.system)
    header = b'{"seq": 1}'
    blob = b"VGP1" + struct.pack(">I", len(header)) + header + zlib.compress(evil)
    with pytest.raises(bus_state.StateError):
        load(blob, index)
    with pytest.raises(bus_state.StateError):
        load(b"not a state", index)
    # a well-formed blob whose outbox is not leads is refused too, not half-loaded
    buf = io.BytesIO()
    bus_state._Pickler(buf, index).dump((EncounterWatch(index), ["a string, not a lead"]))
    bad = b"VGP2" + struct.pack(">I", len(header)) + header + zlib.compress(buf.getvalue())
    with pytest.raises(bus_state.StateError, match="outbox"):
        load(bad, index)


def test_a_state_written_before_the_outbox_still_loads() -> None:
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    buf = io.BytesIO()
    bus_state._Pickler(buf, index).dump(EncounterWatch(index))
    header = b'{"seq": 7}'
    old = b"VGP1" + struct.pack(">I", len(header)) + header + zlib.compress(buf.getvalue())
    watch, seq, outbox = load(old, index)
    assert isinstance(watch, EncounterWatch) and seq == 7 and outbox == []
