"""Issue 15 item 4: a zone write closes only the episodes of the zones it changed or
removed, and a lead cites the zone version in force at its first position."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from shapely.geometry import Point

from scripts import aisgen
from tests.alerts.scenario_kit import T0, feature, to_positions
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.registry import VesselRegistry
from vigia.zones.catalogue import load_zones
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import Zone

P66 = (-40.05, -22.37)
MMSI = 710_000_401


def _zones(tmp_path: Path) -> list[Zone]:
    path = tmp_path / "z.geojson"
    feats = [
        feature(Point(*P66), id="plat-p66", kind="platform"),
        feature(Point(-40.20, -22.50), id="plat-other", kind="platform"),
    ]
    path.write_text(json.dumps({"type": "FeatureCollection", "features": feats}))
    return load_zones([path])


def _loiter(t0: float, n: int) -> list[aisgen.Fix]:
    """A small boat drifting 100 m north of P-66 at 1 kn, a fix every 30 s."""
    lon, lat = aisgen.fwd(*P66, 0, 100)
    return [
        aisgen.Fix(t0 + 30 * i, *aisgen.fwd(lon, lat, 90, 15.4 * i), 1.0, 90.0) for i in range(n)
    ]


def _run_with_edit(zones: list[Zone], edited: list[Zone]) -> list[Lead]:
    fixes = to_positions(MMSI, _loiter(T0, 40))
    pipe = LeadPipeline(ZoneIndex(zones), VesselRegistry())
    leads = pipe.process(fixes[:20])
    pipe, held = pipe.rebuild(ZoneIndex(edited))
    leads += held
    leads += pipe.process(fixes[20:])
    leads += pipe.finish()
    return leads


def _by_id(leads: list[Lead]) -> dict[str, Lead]:
    out: dict[str, Lead] = {}
    for lead in leads:  # later snapshots of the same episode replace earlier ones
        out[lead.id] = lead
    return out


def test_an_edit_that_leaves_the_zone_unchanged_does_not_split_its_episode(
    tmp_path: Path,
) -> None:
    zones = _zones(tmp_path)
    pipe = LeadPipeline(ZoneIndex(zones), VesselRegistry())
    unedited = pipe.process(to_positions(MMSI, _loiter(T0, 40))) + pipe.finish()
    assert len(unedited) == 1 and unedited[0].details["positions"] == 32
    for edited in (zones, [zones[0]], list(reversed(zones))):
        leads = _by_id(_run_with_edit(zones, edited))
        assert list(leads.values()) == unedited, edited


def test_an_edit_of_the_zone_itself_closes_its_episode_and_the_next_cites_the_new_version(
    tmp_path: Path,
) -> None:
    zones = _zones(tmp_path)
    moved = dataclasses.replace(zones[0], geometry=Point(P66[0], P66[1] + 0.0001), version=2)
    leads = sorted(
        _by_id(_run_with_edit(zones, [moved, zones[1]])).values(), key=lambda x: x.started_at
    )
    assert [x.zone_version for x in leads] == [1, 2]
    assert leads[0].ended_at == T0 + 30 * 19 and leads[0].details["closed_by"] == "zone-edit"
    assert leads[1].started_at == T0 + 30 * 20


def test_removing_the_zone_closes_its_episode_at_its_last_evidence(tmp_path: Path) -> None:
    zones = _zones(tmp_path)
    leads = list(_by_id(_run_with_edit(zones, [zones[1]])).values())
    assert len(leads) == 1
    assert leads[0].ended_at == T0 + 30 * 19 and leads[0].details["closed_by"] == "zone-edit"
