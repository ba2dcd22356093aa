"""Issue 34 in broker mode: an evaluation worker judges with the register of state
vessels from the store, read when it takes a partition and again every minute (an edit
through the API reaches it so), and a partition's checkpoint does not carry the register
(it lives in the store, like the zones), so a register with dates never makes a state
unloadable."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import pytest

from vigia.alerts.identity.state_register import StateVessel, StateVessels
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.registry import VesselRegistry
from vigia.service.db.store import open_repository
from vigia.service.runtime import state_vessels
from vigia.service.runtime.bus import state as bus_state
from vigia.service.runtime.bus.worker import EvalWorker
from vigia.service.settings import BusSettings
from vigia.zones.catalogue import bundled_zones_dir, load_zones
from vigia.zones.evaluate import ZoneIndex

NAVY, POLICE = 710_000_351, 710_000_552
T = 1_780_000_000.0
SINCE = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_checkpoint_leaves_the_register_to_the_store() -> None:
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    pipeline = LeadPipeline(index, VesselRegistry())
    pipeline.state_vessels = StateVessels([StateVessel(NAVY, "NPA", "navy", "src", SINCE)])
    blob = bus_state.dump(bus_state.PartitionState(pipeline, 7))
    back = bus_state.load(blob, lambda key: index)
    assert back.seq == 7
    assert isinstance(back.pipeline.state_vessels, StateVessels)
    assert len(back.pipeline.state_vessels) == 0  # the worker hands the store's one over


def test_the_poll_reads_the_store_at_most_every_interval(store_url: str) -> None:
    repo = open_repository(store_url)
    repo.migrate()
    now = [0.0]
    poll = state_vessels.Poll(repo, every_s=60.0, clock=lambda: now[0])
    index = ZoneIndex(load_zones([bundled_zones_dir()]))
    pipes = [LeadPipeline(index, VesselRegistry()) for _ in range(2)]
    try:
        repo.add_state_vessels([StateVessel(NAVY, "NPA", "navy", "src", SINCE)])
        assert asyncio.run(poll.refresh(pipes, now=True))
        assert all(p.state_vessels.entry(NAVY, T) is not None for p in pipes)
        repo.add_state_vessels([StateVessel(POLICE, "LANCHA", "police", "doc")])
        now[0] = 59.0
        assert not asyncio.run(poll.refresh(pipes))  # within the minute: not read
        assert pipes[0].state_vessels.entry(POLICE, T) is None
        now[0] = 61.0
        assert asyncio.run(poll.refresh(pipes))
        assert all(p.state_vessels.entry(POLICE, T) is not None for p in pipes)
        now[0] = 130.0
        assert not asyncio.run(poll.refresh(pipes))  # read, unchanged
    finally:
        repo.close()


async def _until(check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not callable(check) or not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.1)


@pytest.mark.slow
def test_a_worker_hands_the_register_to_the_partitions_it_takes(
    store_url: str, bus: BusSettings
) -> None:
    repo = open_repository(store_url)
    repo.migrate()
    repo.seed_zones(load_zones([bundled_zones_dir()]))
    repo.add_state_vessels([StateVessel(NAVY, "NPA", "navy", "src", SINCE)])

    def held(mmsi: int) -> bool:
        return bool(worker._held) and all(
            h.state.pipeline.state_vessels.entry(mmsi, T) is not None for h in worker._held.values()
        )

    async def scenario() -> None:
        task = asyncio.create_task(worker.run())
        try:
            await asyncio.wait_for(worker.started.wait(), 60)
            await _until(lambda: sorted(worker._held) == [0, 1])
            assert held(NAVY) and not held(POLICE)
            await asyncio.to_thread(
                repo.add_state_vessels, [StateVessel(POLICE, "LANCHA", "police", "doc")]
            )
            await _until(lambda: held(POLICE))  # the next read after the interval
        finally:
            worker.stop()
            await asyncio.wait_for(task, 60)

    worker = EvalWorker(repo, bus, "sv-worker", only=[0, 1])
    worker._state_vessels = state_vessels.Poll(repo, every_s=0.5)  # a minute in service
    try:
        asyncio.run(scenario())
    finally:
        repo.close()
