"""AIS silences in a ballast audit: can a declared exchange be verified across them?

A declared exchange is judged on the fixes AIS gives of it. A silence during it hides
where the ship went: if, in the time it lasted, the ship could have reached water that
does not meet the rule and come back, the fixes around it prove nothing and the exchange
cannot be verified (issue 33). Whether it could is worked out as the going-dark rule
works out its reachable area (alerts/gaps/shape.py): half the silence out at the reach
speed, half back, against the margin the ends have over the line (their distance to
land less the rule's 200 nm, or 50 nm for an exchange under b)). Offshore, where only
satellites hear ships, silences of an hour or two are routine; with a margin of tens of
miles they change nothing, which is why the margin and not the length decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from vigia.alerts.ballast.screening import AssessedTrack
from vigia.ingest.records import iso_utc

#: the least silence looked at: the going-dark rule's least gap (alerts/gaps/detect.py)
MIN_SILENCE_S = 900.0
#: the speed a silent ship is assumed able to make, unless it was seen faster
REACH_KN = 12.0


@dataclass(frozen=True, slots=True)
class Silence:
    """One silence overlapping an exchange, with what it allows."""

    start: float
    end: float
    start_nm: float  # distance to land at the last fix before it
    end_nm: float  # and at the first fix after
    reach_nm: float  # how far out and back the ship could go in it
    margin_nm: float  # the nearer end's distance beyond the line
    could_hide: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "start": iso_utc(self.start),
            "end": iso_utc(self.end),
            "duration_s": round(self.end - self.start, 1),
            "distance_to_land_nm": [round(self.start_nm, 2), round(self.end_nm, 2)],
            "reach_nm": round(self.reach_nm, 2),
            "margin_nm": round(self.margin_nm, 2),
            "could_leave_the_water": self.could_hide,
        }


def silences_during(
    at: AssessedTrack, t0: float, t1: float, line_nm: float, min_s: float = MIN_SILENCE_S
) -> list[Silence]:
    """Silences of at least ``min_s`` between consecutive fixes that overlap (t0, t1),
    judged against the ``line_nm`` line (200 nm, or 50 nm under b))."""
    if len(at.t) < 2:
        return []
    dt = np.diff(at.t)
    idx = np.flatnonzero((dt >= min_s) & (at.t[:-1] < t1) & (at.t[1:] > t0))
    out = []
    for i in idx.tolist():
        sogs = [at.positions[i].sog, at.positions[i + 1].sog]
        kn = max([REACH_KN, *(s for s in sogs if s is not None)])
        reach = kn * float(dt[i]) / 3600.0 / 2.0
        a, b = float(at.distance_nm[i]), float(at.distance_nm[i + 1])
        margin = min(a, b) - line_nm
        out.append(Silence(float(at.t[i]), float(at.t[i + 1]), a, b, reach, margin, reach > margin))
    return out
