"""PostGIS specifics: daily partitions on demand, GiST indexes, and that queries use them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pytest
from sqlalchemy import text

from tests.storage.builders import pos
from tests.storage.conftest import migrated
from vigia.service.db import positions as pos_sql
from vigia.service.db.repository import SqlRepository


@pytest.fixture
def pg_repo(fresh_pg_url: str) -> Iterator[SqlRepository]:
    """A migrated PostGIS repository."""
    yield from migrated(fresh_pg_url)


def _t(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, 12, tzinfo=UTC).timestamp()


def test_positions_go_to_daily_partitions_made_on_demand(pg_repo: SqlRepository) -> None:
    """Two UTC days of positions make two partitions (a day leaving the hot window is
    dropped whole); an absurd time lands in DEFAULT."""
    ship = 710_000_001  # an MMSI the store keeps
    batch = [pos(ship, _t(2025, 11, 30), -43.0, -23.0), pos(ship, _t(2025, 12, 1), -43.0, -23.0)]
    batch.append(pos(ship + 1, _t(1970, 1, 2), -43.0, -23.0))
    assert pg_repo.add_positions(batch) == 3
    with pg_repo.engine.connect() as conn:
        parts = conn.execute(
            text(
                "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i "
                "JOIN pg_class c ON c.oid = i.inhrelid "
                "WHERE i.inhparent = 'positions'::regclass ORDER BY 1"
            )
        ).all()
        names = [p[0] for p in parts]
        assert names == ["positions_d20251130", "positions_d20251201", "positions_default"]
        bounds = dict(parts)
        day = _t(2025, 11, 30) - 12 * 3600  # 2025-11-30T00:00Z
        assert (
            bounds["positions_d20251130"]
            == f"FOR VALUES FROM ('{day:.0f}') TO ('{day + 86400:.0f}')"
        )
        assert "DEFAULT" in bounds["positions_default"]
        counts = {n: conn.execute(text(f"SELECT count(*) FROM ONLY {n}")).scalar() for n in names}
        strategy = conn.execute(
            text(
                "SELECT partstrat FROM pg_partitioned_table WHERE partrelid = 'positions'::regclass"
            )
        ).scalar()
    assert counts == {"positions_default": 1, "positions_d20251130": 1, "positions_d20251201": 1}
    assert strategy == "r"  # RANGE


def test_spatial_indexes_exist_and_bbox_queries_use_them(pg_repo: SqlRepository) -> None:
    """GiST on every geometry; the latest-in-bbox and track queries use their indexes."""
    rng = np.random.default_rng(7)
    n = 20_000
    lons = rng.uniform(-53.0, -34.0, n)
    lats = rng.uniform(-33.0, 4.0, n)
    t0 = _t(2025, 11, 20)
    batch = [pos(200_000_000 + i, t0 + i, float(lons[i]), float(lats[i])) for i in range(n)]
    assert pg_repo.add_positions(batch) == n
    with pg_repo.engine.connect() as conn:
        gist = {
            r[0]: r[1]
            for r in conn.execute(
                text(
                    "SELECT tablename, indexname FROM pg_indexes WHERE indexdef LIKE '%USING gist%'"
                )
            )
        }
        for table in ("positions", "vessel_latest", "zone_versions", "leads"):
            assert table in gist, f"no GiST index on {table}"
        pk = conn.execute(
            text("SELECT indexdef FROM pg_indexes WHERE indexname = 'pk_positions'")
        ).scalar()
        assert pk is not None and "btree (mmsi, t)" in pk
        conn.execute(text("ANALYZE vessel_latest"))
        conn.execute(text("ANALYZE positions"))
        sql = pos_sql.latest_sql(True, True)
        params = {
            "min_lon": -43.3,
            "min_lat": -23.1,
            "max_lon": -43.0,
            "max_lat": -22.8,
            "limit": 100,
            "offset": 0,
        }
        plan = conn.execute(text("EXPLAIN (FORMAT JSON) " + str(sql)), params).scalar()
        assert "ix_vessel_latest_geom" in json.dumps(plan)
        track = conn.execute(
            text("EXPLAIN (FORMAT JSON) " + str(pos_sql.track_sql())),
            {"mmsi": 200_000_005, "start": t0, "end": t0 + 10},
        ).scalar()
        # partition pruning to 20 November, then the (mmsi, t) B-tree of that partition
        assert '"Index Name": "positions_d20251120_pkey"' in json.dumps(track)
