"""Broker-mode fixtures: a private JetStream server per test and bus settings for it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.support.bus_rig import NATS_BIN, PrivateNats
from tests.support.pg import unavailable
from vigia.service.settings import BusSettings


@pytest.fixture
def private_nats() -> Iterator[PrivateNats]:
    """``nats-server -js`` of this test alone (restartable; never the shared server)."""
    if NATS_BIN is None:
        unavailable("nats-server is not installed (broker mode)")
    server = PrivateNats()
    server.start()
    try:
        yield server
    finally:
        server.destroy()


@pytest.fixture
def bus(private_nats: PrivateNats) -> BusSettings:
    """Bus settings on the private server: 8 partitions, fast lease expiry for tests."""
    return BusSettings(
        url=private_nats.url,
        prefix=f"t{uuid.uuid4().hex[:8]}",
        partitions=8,
        lease_ttl_s=3.0,
        checkpoint_s=0.5,
    )
