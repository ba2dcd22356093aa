"""Runs of slots: two vessels adjacent, or one vessel drifting, slot after slot."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from vigia.alerts.encounters.tracks import Fix


class Sample(NamedTuple):
    """One vessel at one slot: interpolated position and speed, and its nearest real fix."""

    k: int
    lon: float
    lat: float
    sog: float
    fix: Fix


@dataclass(slots=True)
class PairRun:
    """Two vessels (``a`` < ``b``) within reach, both slow, from slot ``start`` to ``last``."""

    a: int
    b: int
    start: int
    last: int
    sa: list[Sample] = field(default_factory=list)
    sb: list[Sample] = field(default_factory=list)
    dist: list[float] = field(default_factory=list)

    def add(self, x: Sample, y: Sample, d: float) -> None:
        self.last = x.k
        self.sa.append(x)
        self.sb.append(y)
        self.dist.append(d)

    def duration_s(self, slot_s: float) -> float:
        return (self.last - self.start) * slot_s

    def centre(self) -> tuple[float, float]:
        n = 2 * len(self.sa)
        lon = sum(s.lon for s in self.sa) + sum(s.lon for s in self.sb)
        lat = sum(s.lat for s in self.sa) + sum(s.lat for s in self.sb)
        return lon / n, lat / n


@dataclass(slots=True)
class DriftRun:
    """One vessel slow from slot ``start`` to ``last``."""

    mmsi: int
    start: int
    last: int
    samples: list[Sample] = field(default_factory=list)

    def add(self, x: Sample) -> None:
        self.last = x.k
        self.samples.append(x)

    def duration_s(self, slot_s: float) -> float:
        return (self.last - self.start) * slot_s

    def centre(self) -> tuple[float, float]:
        n = len(self.samples)
        return sum(s.lon for s in self.samples) / n, sum(s.lat for s in self.samples) / n


class Silence(NamedTuple):
    """A vessel's last slot before it went silent (no position at the next slot)."""

    k: int
    mmsi: int
    lon: float
    lat: float
