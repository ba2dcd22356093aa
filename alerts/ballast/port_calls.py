"""The port calls around a ballast declaration (issue 33): the last port visit the ship
left before its first declared exchange (where its ballast came from) and the first one
it entered after its last (where it arrived to discharge), from the port visits found
on its AIS by Global Fishing Watch's rule (alerts/ports, docs/gaps.md "Port visits").

Context for the inspector, not a verdict: a ship whose stored track has no visit there
(an outage, a port outside the bundled zones) gets nulls, said as such."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vigia.alerts.ports.visits import PortVisit

BASIS = "port visits found on the stored AIS (entry 3 km, exit 4 km; docs/gaps.md)"


def port_calls(visits: Sequence[PortVisit], first_start: float, last_end: float) -> dict[str, Any]:
    """The visit left last at or before ``first_start`` and the one entered first at or
    after ``last_end`` (ties by id, so the answer does not depend on the store's order)."""
    before = [v for v in visits if v.departure_t <= first_start]
    after = [v for v in visits if v.arrival_t >= last_end]
    last = max(before, key=lambda v: (v.departure_t, v.id), default=None)
    arrival = min(after, key=lambda v: (v.arrival_t, v.id), default=None)
    return {
        "last_port_before_exchange": None if last is None else last.to_json(),
        "arrival_port": None if arrival is None else arrival.to_json(),
        "basis": BASIS,
    }
