"""``vigia restore``: a backup put back into a new (or, with ``force``, a used) place.

Nothing is restored from a backup that fails its manifest. Without ``force`` a target
that holds anything (a store with tables, an archive with days, a spool with records) is
refused; with it, what is there is moved aside under ``*.before-restore-<time>`` (a
renamed database, file or folder), never deleted. Then, in order: the store, compared
with the backup's fingerprint when it has one; its migrations (an older backup is
brought to this version's schema); a new event-id epoch, before anything can write; the
archive's files and the spool; the store's record of archived days from the manifest
(a backup of a store older than that record); and a check of the archive against it.
"""

from __future__ import annotations

import calendar
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine

from vigia.service.db import archive_ledger as ledger
from vigia.service.db import backup as bk
from vigia.service.db import epochs
from vigia.service.db import snapshot as snap
from vigia.service.db.archive_format import DAY_S
from vigia.service.db.engine import migrate
from vigia.service.db.snapshot import BackupError


def _used(place: bk.Place) -> list[str]:
    """What the target already holds."""
    out = []
    if place.pg:
        if snap.pg_state(place.url) == "used":
            out.append(f"the database {place.url.rpartition('/')[2]} has tables")
    elif place.sqlite_file.exists() and place.sqlite_file.stat().st_size > 0:
        out.append(f"{place.sqlite_file} exists")
    if place.archive.is_dir() and any(place.archive.glob("day=*")):
        out.append(f"the archive {place.archive} has days")
    if place.spool is not None and place.spool.is_dir() and any(place.spool.glob("*.seg")):
        out.append(f"the spool {place.spool} has records")
    return out


def _aside(path: Path, stamp: str) -> str | None:
    if not path.exists():
        return None
    dest = path.with_name(f"{path.name}.before-restore-{stamp}")
    os.rename(path, dest)
    return str(dest)


def _restore_store(src: Path, manifest: dict[str, Any], place: bk.Place, stamp: str) -> Any:
    store = manifest["store"]
    moved = []
    if place.pg:
        state = snap.pg_state(place.url)
        name = place.url.rpartition("/")[2].split("?")[0]
        aside = f"{name}_before_restore_{stamp}" if state != "missing" else None
        snap.pg_prepare(place.url, aside)
        if aside:
            moved.append(f"database {aside}")
        snap.pg_load(place.url, src / store["file"])
    else:
        target = place.sqlite_file
        target.parent.mkdir(parents=True, exist_ok=True)
        for extra in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
            if (where := _aside(extra, stamp)) is not None:
                moved.append(where)
        tmp = target.with_name(f".{target.name}.restore.tmp")
        shutil.copyfile(src / store["file"], tmp)
        with sqlite3.connect(tmp) as conn:  # the service's own mode, as a new store has
            conn.execute("PRAGMA journal_mode=WAL")
        os.replace(tmp, target)
    return moved


def restore(src: Path, place: bk.Place, *, force: bool = False) -> dict[str, Any]:
    """Restore the backup in ``src`` into ``place``; returns what was restored."""
    manifest = bk.load_manifest(src)
    problems = bk.verify(src)
    if problems:
        raise BackupError("the backup fails its manifest: " + "; ".join(problems))
    kind = manifest["store"]["kind"]
    if (kind == "postgis") != place.pg:
        want = "a postgresql+psycopg:// DATABASE_URL" if kind == "postgis" else "a SQLite file"
        raise BackupError(f"this is a {kind} backup: restore it into {want}")
    used = _used(place)
    if used and not force:
        raise BackupError("the target is not empty (" + "; ".join(used) + "); add --force "
                          "to move what is there aside")  # fmt: skip
    began = time.time()
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(began))
    moved = _restore_store(src, manifest, place, stamp)
    engine = create_engine(place.url)
    try:
        expected = manifest["store"].get("fingerprint")
        if expected is not None:
            found = snap.on(place.url, snap.fingerprint)
            if found != expected:
                differ = sorted(t for t in expected if found.get(t) != expected[t])
                raise BackupError(f"the restored store differs from the backup in {differ}")
        migrate(engine)
        epoch = epochs.start_epoch(engine)
        moved += [m for p in (place.archive, place.spool) if p and (m := _aside(p, stamp))]
        days = manifest["archive"]["days"]
        for info in days.values():
            for f in info["files"]:
                bk.copy_checked(src / "archive" / f["path"], place.archive / f["path"], f)
        place.archive.mkdir(parents=True, exist_ok=True)
        spool = manifest["spool"]["files"]
        if place.spool is not None:
            for f in spool:
                bk.copy_checked(src / "spool" / f["path"], place.spool / f["path"], f)
        noted = {_day(d): int(i["positions"]) for d, i in days.items()}
        with engine.begin() as conn:
            ledger.record_days(conn, noted)
        check = ledger.check(engine, place.archive)
        tables = snap.on(place.url, snap.counts)
    finally:
        engine.dispose()
    return {
        "restored": str(src),
        "store": {"kind": kind, "url": _shown(place.url), "tables": tables},
        "fingerprint": "matches" if expected is not None else "not in the backup",
        "events": {
            "backup_last_id": epoch.backup_head,
            "new_ids_from": epoch.first_id,
            "generation": epoch.generation,
        },
        "archive": {
            "folder": str(place.archive),
            "days": len(days),
            "positions": sum(int(i["positions"]) for i in days.values()),
        },
        "spool": {
            "folder": None if place.spool is None else str(place.spool),
            "files": len(spool) if place.spool is not None else 0,
        },
        "moved_aside": moved,
        "archive_check": check.json(),
        "took_s": round(time.time() - began, 3),
    }


def _day(name: str) -> int:
    return calendar.timegm(time.strptime(name, "%Y-%m-%d")) // DAY_S


def _shown(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
