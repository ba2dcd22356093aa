"""Migration 0008: a store partitioned by month becomes one partitioned by UTC day, with
every row kept, and back."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

from vigia.service.db.engine import alembic_config


def _to(engine: Engine, revision: str, down: bool = False) -> None:
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, revision)


def _ts(y: int, m: int, d: int, h: int = 0) -> float:
    return datetime(y, m, d, h, tzinfo=UTC).timestamp()


def _state(engine: Engine) -> tuple[list[str], list[tuple[int, float]]]:
    with engine.connect() as conn:
        names = conn.execute(
            text(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                "WHERE i.inhparent = 'positions'::regclass ORDER BY 1"
            )
        ).all()
        rows = conn.execute(text("SELECT mmsi, t FROM positions ORDER BY mmsi, t")).all()
    return [str(n[0]) for n in names], [(int(r[0]), float(r[1])) for r in rows]


@pytest.mark.postgis
def test_monthly_partitions_become_daily_ones_and_back(fresh_pg_url: str) -> None:
    engine = create_engine(fresh_pg_url)
    try:
        _to(engine, "0006_authorised_vessels")
        times = [
            _ts(2025, 11, 30, 23),
            _ts(2025, 12, 1, 0),
            _ts(2025, 12, 1, 5),
            _ts(2025, 12, 31, 12),
        ]
        with engine.begin() as conn:
            # what the monthly PartitionManager made before 0008
            for name, lo, hi in (
                ("positions_p202511", _ts(2025, 11, 1), _ts(2025, 12, 1)),
                ("positions_p202512", _ts(2025, 12, 1), _ts(2026, 1, 1)),
            ):
                bounds = f"FOR VALUES FROM ({lo}) TO ({hi})"
                conn.execute(text(f"CREATE TABLE {name} PARTITION OF positions {bounds}"))
            for i, t in enumerate([*times, 86_400.0 * 3]):  # 1970: the DEFAULT partition
                conn.execute(
                    text(
                        "INSERT INTO positions (mmsi, t, msg_type, lon, lat, source) "
                        "VALUES (:m, :t, 1, -43.0, -23.0, 'x')"
                    ),
                    {"m": 710_000_000 + i, "t": t},
                )
        names, before = _state(engine)
        assert names == ["positions_default", "positions_p202511", "positions_p202512"]

        _to(engine, "0008_daily_partitions")
        names, after = _state(engine)
        assert names == [
            "positions_d20251130",
            "positions_d20251201",
            "positions_d20251231",
            "positions_default",
        ]
        assert after == before
        with engine.connect() as conn:
            n = conn.execute(text("SELECT count(*) FROM positions_d20251201")).scalar()
            geom = conn.execute(text("SELECT count(*) FROM positions WHERE geom IS NULL")).scalar()
        assert (n, geom) == (2, 0)

        _to(engine, "0006_authorised_vessels", down=True)
        names, back = _state(engine)
        assert names == ["positions_default", "positions_p202511", "positions_p202512"]
        assert back == before
    finally:
        engine.dispose()
