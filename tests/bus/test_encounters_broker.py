"""Meetings at sea in broker mode (issue 37): two ships drifting together 3 h, 30 km off
the coast, on partitions held by different evaluation workers, raise one STS-ENCOUNTER
naming both, as `vigia replay`'s pipeline does; ships passing at 12 kn and a supply
vessel at its platform raise none. The pairing stage (`vigia pair`, a real process on a
private JetStream, a real PostGIS) is killed with SIGKILL after the first half, the
second half and a rerun of everything are published, and a new stage finishes: the
store holds the replay's leads, field for field, none twice."""

from __future__ import annotations

import asyncio
import math
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nats
import pytest

from scripts import aisgen
from scripts import encounter_scenarios as es
from tests.support.bus_rig import (
    WorkerProc,
    batches,
    publish,
    reference_leads,
    wait_drained,
    worker_env,
)
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import RawLine, Record
from vigia.service.db.protocol import EVERY_AUTHORITY, LeadQuery
from vigia.service.db.store import open_repository
from vigia.service.runtime.bus.codec import Subjects, partition_of
from vigia.service.settings import BusSettings

pytestmark = [pytest.mark.postgis, pytest.mark.slow]
RULES = ("STS-ENCOUNTER", "LOITER")


class PairProc:
    """`vigia pair` as a child process."""

    def __init__(self, env: dict[str, str], name: str, log_dir: Path) -> None:
        self.log = log_dir / f"{name}.log"
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "vigia.service.cli", "pair", "--port", "0",
                 "--name", name, "--log-level", "warning"],
                env=env, stdout=subprocess.DEVNULL, stderr=log,
            )  # fmt: skip
        end = time.monotonic() + 90
        while f"vigia pair {name}:" not in self.log.read_text(errors="replace"):
            assert self.proc.poll() is None, self.log.read_text(errors="replace")[-3000:]
            assert time.monotonic() < end, "the pairing stage never announced itself"
            time.sleep(0.1)


async def _pair_backlog(bus: BusSettings) -> int:
    names = Subjects(bus.prefix)
    nc = await nats.connect(bus.url)
    try:
        # the stage's consumer is named for its claim of the state (pairing.py)
        infos = await nc.jetstream().consumers_info(names.stream)
        mine = [c for c in infos if (c.name or "").startswith(f"{bus.prefix}-pair-e")]
        assert len(mine) == 1, [c.name for c in infos]
        return int(mine[0].num_pending or 0) + int(mine[0].num_ack_pending or 0)
    finally:
        await nc.close()


def _wait_pair(bus: BusSettings, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if asyncio.run(_pair_backlog(bus)) == 0:
                return
        except Exception:
            pass
        time.sleep(0.5)
    raise TimeoutError("the pairing stage did not drain the stream")


def _records() -> list[Record]:
    scs = es.build(1, seed=5, kinds=("meeting", "passing", "supply"))
    # a ship steaming far away for 8 h moves the stream clock past the meetings, so
    # they settle (closed) in both modes
    far = aisgen.run(-38.0, -20.0, course=90.0, sog_kn=10.0, t0=es.T0, dt_s=60.0, n=480)
    clock = [(f.t, aisgen.fast_type1(710_379_999, f.t, f.lon, f.lat, f.sog, f.cog)) for f in far]
    ing = Ingestor()
    out: list[Record] = []
    for line in aisgen.merge(*(sc.lines for sc in scs), clock):
        out += ing.feed(RawLine(line, 4_000_000_000.0, "bus"))
    return out + ing.flush()


def test_a_meeting_across_workers_is_one_lead_as_in_replay(
    tmp_path: Path, bus: BusSettings, migrated_pg_url: str
) -> None:
    recs = _records()
    a, b = 710_370_000, 710_370_001  # the meeting's two ships
    assert partition_of(a, bus.partitions) % 2 != partition_of(b, bus.partitions) % 2
    chunks = batches(recs, 300)
    want = {k: v.to_json() for k, v in reference_leads(chunks).items() if v.rule in RULES}
    assert [(v["rule"], v["mmsi"], v["details"]["partner_mmsi"]) for v in want.values()] == [
        ("STS-ENCOUNTER", a, b)
    ]
    assert all(v["ended_at"] is not None for v in want.values())

    got = {x.id: x.to_json() for x in _through_the_broker(tmp_path, bus, migrated_pg_url, chunks)
           if x.rule in RULES}  # fmt: skip
    assert got == want
    lead = next(iter(got.values()))
    assert [x["mmsi"] for x in lead["details"]["vessels"]] == [a, b]


def _through_the_broker(
    tmp_path: Path, bus: BusSettings, url: str, chunks: list[list[Record]]
) -> list[Any]:
    """Two evaluation workers and a pairing stage on ``chunks``: the first half, the
    stage killed with SIGKILL, the second half and a rerun of everything, a new stage to
    the end; the leads stored."""
    env = worker_env(url, bus)
    half = len(chunks) // 2
    asyncio.run(publish(bus, chunks[:half]))
    even = WorkerProc(env, "w-even", tmp_path, ["--partitions", "0,2,4,6"])
    odd = WorkerProc(env, "w-odd", tmp_path, ["--partitions", "1,3,5,7"])
    pair = PairProc(env, "pair-1", tmp_path)
    try:
        _wait_pair(bus)
        pair.proc.send_signal(signal.SIGKILL)
        pair.proc.wait(10)
        asyncio.run(publish(bus, chunks[half:]))
        asyncio.run(publish(bus, chunks))  # an operator's rerun of the whole capture
        pair = PairProc(env, "pair-2", tmp_path)
        _wait_pair(bus)
        wait_drained(bus, 120)
        pair.proc.send_signal(signal.SIGTERM)
        assert pair.proc.wait(60) == 0
    finally:
        if pair.proc.poll() is None:
            pair.proc.kill()
        even.stop()
        odd.stop()
    repo = open_repository(url)
    try:
        stored, _ = repo.list_leads(LeadQuery(), 10_000, scope=EVERY_AUTHORITY)
    finally:
        repo.close()
    return list(stored)


def _identity_records() -> list[Record]:
    """Three ships spoofed to one spot 200 km away within a minute (each back on its
    track after 3 minutes), a fourth drawing 3.5 laps of an 800 m circle, a fifth
    reporting from Brasília for 20 minutes, and a ship far away for 8 h moving the
    stream clock on, as type 1 sentences through the decoder."""
    lines: list[tuple[float, str]] = []
    spot = (-38.0, -25.0)
    for k in range(3):
        m, t_jump = 710_380_000 + k, es.T0 + 3_600.0 + 20.0 * k
        track = aisgen.run(-41.0 + 0.3 * k, -23.0, course=90.0, sog_kn=10.0, t0=es.T0,
                           dt_s=60.0, n=120)  # fmt: skip
        for f in track:
            lon, lat = (
                (spot[0] + 0.001 * k, spot[1]) if t_jump <= f.t < t_jump + 180 else (f.lon, f.lat)
            )
            lines.append((f.t, aisgen.fast_type1(m, f.t, lon, lat, f.sog, f.cog)))
    for i in range(212):  # 6 degrees round the circle every 10 s
        a = math.radians(6.0 * i)
        lon = -40.0 + 800.0 * math.sin(a) / (111_320.0 * math.cos(math.radians(-23.5)))
        lat = -23.5 + 800.0 * math.cos(a) / 111_320.0
        t = es.T0 + 1_800.0 + 10.0 * i
        lines.append((t, aisgen.fast_type1(710_380_009, t, lon, lat, 9.0, 0.0)))
    for i in range(21):  # a fix a minute, 1,000 km inland
        t = es.T0 + 2_400.0 + 60.0 * i
        lines.append((t, aisgen.fast_type1(710_380_008, t, -47.88, -15.79, 0.0, 0.0)))
    far = aisgen.run(-38.0, -20.0, course=90.0, sog_kn=10.0, t0=es.T0, dt_s=60.0, n=480)
    lines += [(f.t, aisgen.fast_type1(710_389_999, f.t, f.lon, f.lat, f.sog, f.cog)) for f in far]
    ing = Ingestor()
    out: list[Record] = []
    for _, line in sorted(lines):
        out += ing.feed(RawLine(line, 4_000_000_000.0, "bus"))
    return out + ing.flush()


def test_interference_and_circles_across_workers_as_in_replay(
    tmp_path: Path, bus: BusSettings, migrated_pg_url: str
) -> None:
    """Issue 34's cross-vessel identity leads ride in the pairing stage: the three
    spoofed ships sit on partitions of both workers, and the stage's lead names them
    all, as replay's does; the circle and the ship on land too; no ship of the event
    gets a lead of its own."""
    mine = ("ID-INTERFERENCE", "ID-CIRCLE", "ID-MMSI-SHARED", "ID-ON-LAND")
    ships = [710_380_000, 710_380_001, 710_380_002]
    assert len({partition_of(m, bus.partitions) % 2 for m in ships}) == 2
    chunks = batches(_identity_records(), 200)
    want = {k: v.to_json() for k, v in reference_leads(chunks).items() if v.rule in mine}
    assert sorted(v["rule"] for v in want.values()) == [
        "ID-CIRCLE",
        "ID-INTERFERENCE",
        "ID-ON-LAND",
    ]
    got = {x.id: x.to_json() for x in _through_the_broker(tmp_path, bus, migrated_pg_url, chunks)
           if x.rule in mine}  # fmt: skip
    assert got == want
    (event,) = [v for v in got.values() if v["rule"] == "ID-INTERFERENCE"]
    assert sorted({x["mmsi"] for x in event["details"]["vessels"]}) == ships
