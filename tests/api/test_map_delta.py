"""The map's vessel layer as deltas, compressed (issue 39): a page refreshing every 5 s
gets the vessels that moved since its last answer, not the whole layer, and every answer
of some size travels gzipped; the event stream is never buffered by the compression."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from sqlalchemy import text

from tests.api.conftest import Api
from vigia.ingest.records import Position

T0 = 1_780_000_000.0  # 2026-05-28T20:26:40Z


def _fix(mmsi: int, t: float, lon: float = -43.15, lat: float = -22.95) -> Position:
    return Position(mmsi=mmsi, t=t, msg_type=1, lon=lon, lat=lat, sog=8.0, cog=90.0)


def _vessels(api: Api, **params: str) -> dict[str, Any]:
    r = api.client.get("/map/vessels", params=params, headers=api.h("viewer"))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _changed(api: Api, at: float, mmsis: list[int] | None = None) -> None:
    """Set when the rows last changed (the writer stamps its clock; a test needs exact
    instants to try the bound on both sides)."""
    where = "" if mmsis is None else f" WHERE mmsi IN ({','.join(map(str, mmsis))})"
    with api.repo.engine.begin() as c:  # type: ignore[attr-defined]
        c.execute(text(f"UPDATE vessel_latest SET changed_at = :at{where}"), {"at": at})


def _mmsis(doc: dict[str, Any]) -> list[int]:
    return [int(r[0]) for r in doc["vessels"]]


def test_a_delta_holds_the_vessels_whose_position_changed_since(api: Api) -> None:
    fleet = [710_000_001 + k for k in range(300)]
    before = time.time()
    api.repo.add_positions([_fix(m, T0 + k) for k, m in enumerate(fleet)])
    after = time.time()
    whole = _vessels(api)
    assert _mmsis(whole) == fleet
    # the cursor is the writer's clock at the change, 5 s back (a batch stamped earlier
    # may commit after a read), never a fix's time
    cursor = datetime.fromisoformat(whole["next_since"].replace("Z", "+00:00")).timestamp()
    assert before - 5 - 0.001 <= cursor <= after - 5
    # exact instants from here on: everyone changed at T1
    t1 = 1_790_000_000.0  # 2026-09-21T14:13:20Z
    _changed(api, t1)
    assert _vessels(api)["next_since"] == "2026-09-21T14:13:15Z"  # T1 - 5 s, by hand
    # at the bound: changed at `since` is in; a millisecond after it, out
    assert len(_vessels(api, since="2026-09-21T14:13:20Z")["vessels"]) == 300
    assert _vessels(api, since="2026-09-21T14:13:20.001Z")["vessels"] == []
    # an empty delta keeps the cursor it was given
    empty = _vessels(api, since="2026-09-21T14:13:30Z")
    assert empty["vessels"] == [] and empty["next_since"] == "2026-09-21T14:13:30Z"
    # two vessels move on, one with a fix OLDER than the fleet's newest (heard late, by
    # satellite): both are in the next delta, because their rows changed
    late, ahead = fleet[9], fleet[150]
    api.repo.add_positions([_fix(late, T0 + 100, lon=-43.1), _fix(ahead, T0 + 400, lon=-43.2)])
    delta = _vessels(api, since="2026-09-21T14:13:30Z")
    assert _mmsis(delta) == [late, ahead]
    assert [r[1] for r in delta["vessels"]] == [-43.1, -43.2]
    # a fix older than the vessel's own latest changes nothing, so it is in no delta
    _changed(api, t1)
    api.repo.add_positions([_fix(late, T0 + 50, lon=-40.0)])
    assert _vessels(api, since="2026-09-21T14:13:30Z")["vessels"] == []
    # Unix seconds are accepted as well; a since that is no time is a 422, not a 500
    assert len(_vessels(api, since=str(t1))["vessels"]) == 300
    bad = api.client.get("/map/vessels?since=yesterday", headers=api.h("viewer"))
    assert bad.status_code == 422


def test_the_whole_layer_travels_gzipped_and_small_answers_plain(api: Api) -> None:
    api.repo.add_positions(
        [_fix(710_100_000 + k, T0 + k, lon=-43.0 - k / 1e4) for k in range(2000)]
    )
    zipped = api.client.get("/map/vessels", headers={**api.h("viewer"), "Accept-Encoding": "gzip"})
    plain = api.client.get(
        "/map/vessels", headers={**api.h("viewer"), "Accept-Encoding": "identity"}
    )
    assert zipped.headers.get("content-encoding") == "gzip"
    assert "accept-encoding" in zipped.headers.get("vary", "").lower()
    assert "content-encoding" not in plain.headers
    assert zipped.json()["vessels"] == plain.json()["vessels"]
    assert len(plain.json()["vessels"]) == 2000
    # the bytes on the wire: gzip's own ratio on this layer, measured here, is over 4
    on_wire, whole = int(zipped.headers["content-length"]), int(plain.headers["content-length"])
    assert whole == len(plain.content) and on_wire * 4 < whole, (on_wire, whole)
    # a tiny answer is never compressed (gzip would make it larger)
    me = api.client.get("/me", headers={**api.h("viewer"), "Accept-Encoding": "gzip"})
    assert me.status_code == 200 and "content-encoding" not in me.headers
