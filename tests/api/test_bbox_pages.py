"""Spatial pages read along the newest order (issue 39): a box's page is the newest
``PROBE`` leads' matches when that fills it, else the box's own index. Whichever way a
page is read, walking a box's pages by ``next`` gives exactly the leads whose closest
point lies in the box (edges included), newest first, each once: the oracle is a plain
filter and sort of the seeded leads in Python."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.api.conftest import Api
from tests.storage.builders import T0, lead
from vigia.service.db import lead_pages

pytestmark = pytest.mark.postgis

DENSE = (-41.0, -23.0, -40.0, -22.0)  # most leads
SPARSE = (-38.0, -13.0, -37.5, -12.5)  # three old leads only
EMPTY = (-30.0, -5.0, -29.0, -4.0)


def _seed(api: Api) -> list[tuple[str, float, float, float]]:
    rng = random.Random(5)
    rows = []
    for i in range(240):
        if i in (3, 4, 5):  # the oldest starts: found only past the probe
            lon, lat = -37.75, -12.75
        elif i % 10 == 0:
            lon, lat = rng.uniform(-48, -44), rng.uniform(-28, -25)  # outside every box
        elif i % 10 == 1:
            lon, lat = -41.0, rng.uniform(-23.0, -22.0)  # on the box's west edge
        else:
            lon, lat = rng.uniform(-41, -40), rng.uniform(-23, -22)
        # starts in pairs: ties broken by id
        rows.append((f"L-{i:03d}", T0 + (i // 2) * 60.0, lon, lat))
    api.repo.upsert_leads(
        [lead(i, started_at=t, closest_lon=x, closest_lat=y) for i, t, x, y in rows]
    )
    return rows


def _oracle(rows: list[tuple[str, float, float, float]], box: tuple[float, ...]) -> list[str]:
    inside = [r for r in rows if box[0] <= r[2] <= box[2] and box[1] <= r[3] <= box[3]]
    return [r[0] for r in sorted(inside, key=lambda r: (-r[1], r[0]))]


def _walk(api: Api, box: tuple[float, ...], limit: int) -> list[str]:
    url: str | None = "/collections/leads/items?bbox={}&limit={}".format(
        ",".join(map(str, box)), limit
    )
    out: list[str] = []
    while url is not None:
        r = api.client.get(url, headers=api.h("viewer"))
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        out += [f["id"] for f in body["features"]]
        nxt = [x["href"] for x in body["links"] if x["rel"] == "next"]
        url = nxt[0] if nxt else None
        assert len(out) <= 240
    return out


@pytest.mark.parametrize("probe", [10, 2_000])
def test_every_box_pages_to_its_leads_newest_first(
    api: Api, monkeypatch: pytest.MonkeyPatch, probe: int
) -> None:
    # probe 10 with pages of 7 (probe = 20 x 8 rows = 160): dense pages fill from the
    # probe, the sparse box falls back to its index, the empty one too; 2,000: every
    # page is answered by the probe, filled or exhausted
    monkeypatch.setattr(lead_pages, "PROBE", probe)
    rows = _seed(api)
    for box in (DENSE, SPARSE, EMPTY):
        want = _oracle(rows, box)
        assert _walk(api, box, 7) == want, box
    assert len(_oracle(rows, SPARSE)) == 3 and len(_oracle(rows, DENSE)) > 180
    assert _oracle(rows, EMPTY) == []
