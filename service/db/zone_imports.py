"""Storing an import of zones (``vigia zones import``, ``POST /zones/imports``): its
new and changed zones and its retirements in one transaction, refused if any zone it
was planned against changed meanwhile (an admin's edit is never overwritten by a plan
that did not see it)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager

from sqlalchemy import Connection, select

from vigia.service.db import silences as sl
from vigia.service.db import zones_leads as zl
from vigia.service.db.models import ZoneVersion
from vigia.service.errors import ConflictError
from vigia.zones.model import Zone, ZoneKind

#: zone ids per query when checking versions (well under SQLite's variable limit)
_CHUNK = 500


class ZoneImportStore:
    """Mixed into SqlRepository: needs ``_tx()`` and ``_pg``."""

    _pg: bool
    _tx: Callable[[], AbstractContextManager[Connection]]

    def replace_zones(
        self, put: Sequence[Zone], retire: Sequence[str], seen: Mapping[str, int | None]
    ) -> list[Zone]:
        """Store ``put`` (new versions where changed) and retire ``retire``, all or
        nothing, if every zone in ``seen`` is still at the version seen (None: absent);
        else raise :class:`ConflictError` and change nothing. Returns ``put`` stored."""
        with self._tx() as conn:
            now = time.time()
            zl.lock_zones(conn, self._pg)
            moved = _moved(conn, seen)
            if moved:
                raise ConflictError(
                    f"zones changed while the import was planned: {', '.join(moved[:10])}; "
                    "import again"
                )
            kinds = {z.kind for z in put}
            for zid in retire:
                gone = zl.get_zone(conn, self._pg, zid, None)
                if gone is not None:
                    kinds.add(gone.kind)
                zl.delete_zone(conn, zid)
            stored = zl.put_zones(conn, self._pg, put, now)
            if ZoneKind.JURISDICTION in kinds:
                sl.reroute_leads(conn, self._pg, now)  # leads follow their new Capitania
            return stored


def _moved(conn: Connection, seen: Mapping[str, int | None]) -> list[str]:
    """Ids whose current version is not the one seen."""
    ids = sorted(seen)
    now: dict[str, int] = {}
    for i in range(0, len(ids), _CHUNK):
        rows = conn.execute(
            select(ZoneVersion.zone_id, ZoneVersion.version).where(
                ZoneVersion.zone_id.in_(ids[i : i + _CHUNK]), ZoneVersion.current
            )
        )
        now.update({str(r.zone_id): int(r.version) for r in rows})
    return [zid for zid in ids if now.get(zid) != seen[zid]]
