"""Each vessel's latest position, as maps and lists read it: pages by MMSI, what changed
since a map's last answer (its delta), and bare coordinates for a map's clusters."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from sqlalchemy.engine import Connection

from vigia.ingest.records import Position
from vigia.service.db import positions as pos
from vigia.service.db.codec import row_position
from vigia.service.db.protocol import BBox


def _box(bbox: BBox | None) -> dict[str, float]:
    return {} if bbox is None else pos.box_params(bbox)


class LatestStore:
    """Mixed into SqlRepository: needs ``_tx()``."""

    _tx: Callable[[], AbstractContextManager[Connection]]
    _pg: bool

    def latest_positions(self, bbox: BBox | None, limit: int, offset: int = 0) -> list[Position]:
        """Each vessel's latest position (inclusive bbox), by MMSI."""
        return self._latest(bbox, None, limit, offset)[0]

    def latest_changes(
        self, bbox: BBox | None, since: float | None, limit: int
    ) -> tuple[list[Position], float | None]:
        """The latest positions changed at or after ``since``, and the newest change."""
        return self._latest(bbox, since, limit, 0)

    def latest_points(self, bbox: BBox | None) -> list[tuple[float, float]]:
        """(lon, lat) of each vessel's latest position (inclusive bbox), in no order."""
        with self._tx() as conn:
            sql = pos.latest_points_sql(self._pg, bbox is not None)
            rows = conn.execute(sql, _box(bbox)).all()
        return [(r[0], r[1]) for r in rows]

    def _latest(
        self, bbox: BBox | None, since: float | None, limit: int, offset: int
    ) -> tuple[list[Position], float | None]:
        params = {"limit": limit, "offset": offset, "since": since, **_box(bbox)}
        sql = pos.latest_sql(self._pg, bbox is not None, since is not None)
        with self._tx() as conn:
            rows = conn.execute(sql, params).all()
        changes = [r.changed_at for r in rows if r.changed_at is not None]
        return [row_position(r._mapping) for r in rows], max(changes, default=None)
