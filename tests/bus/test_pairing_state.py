"""The pairing stage's checkpoint (issue 37): a watch stopped mid-meeting, written and
read back, carries on to the lead an uninterrupted watch gives; a forged blob is refused,
never run."""

from __future__ import annotations

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
    blob = dump(first, 41)
    assert len(first.register) == 1  # the register stays with its owner, not the blob
    back, seq = load(blob, index)
    assert seq == 41 and back.index is index and len(back.register) == 0
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
