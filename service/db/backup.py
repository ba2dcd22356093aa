"""``vigia backup`` / ``vigia restore``: the store, the archive and the spool as of one
moment, with a manifest that says what they hold.

Order, and why no day can fall out: the spool is copied first (its mark, the last
record the store confirmed, must not be ahead of the store's copy; records it holds
that the copy has too are replayed harmlessly, as after any kill); then, holding the
archive's lock (every archive run waits meanwhile, so no day moves), the store is
copied and then the archive's files. A day is in the store's copy or in the archive's.

A restore starts a new event-id epoch (``epochs``) before anything can write, so ids
the lost store issued after the backup never name other events.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection

from vigia.service.db import archive_ledger as ledger
from vigia.service.db import epochs
from vigia.service.db import snapshot as snap
from vigia.service.db.archive import Archiver
from vigia.service.db.archive_files import ArchiveFolder, ArchiveGaps
from vigia.service.db.archive_format import day_name
from vigia.service.db.engine import alembic_config
from vigia.service.db.snapshot import BackupError

MANIFEST = "manifest.json"
FORMAT = 1
SECRETS = {
    "in_backup": [
        "API keys, as SHA-256 hashes only (api_keys.key_hash): the same keys work after a "
        "restore, the bootstrap admin key's included",
        "webhook signing secrets (webhooks.secret): receivers keep verifying",
    ],
    "not_in_backup": [
        "VIGIA_AUTH_STREAM_TOKEN_SECRET: set it again on the new host (unset: stream "
        "tokens die with the old process, clients ask for new ones)",
        "VIGIA_AUTH_BOOTSTRAP_ADMIN_KEY: the key itself is never stored, only its hash",
        "the database password in DATABASE_URL",
    ],
}


@dataclass(frozen=True, slots=True)
class Place:
    """Where a store lives: its URL (``sqlite:///...`` or ``postgresql+psycopg://...``),
    its archive folder and its spool folder (None: no spool)."""

    url: str
    archive: Path
    spool: Path | None

    @property
    def pg(self) -> bool:
        return self.url.startswith("postgresql")

    @property
    def sqlite_file(self) -> Path:
        return Path(self.url.removeprefix("sqlite:///"))


def _hash_copy(src: Path, dst: Path) -> dict[str, Any]:
    """Copy ``src`` to ``dst`` (through a temporary name, synced), hashing as it goes."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.tmp")
    digest = hashlib.sha256()
    size = 0
    with open(src, "rb") as fin, open(tmp, "wb") as fout:
        while block := fin.read(1 << 20):
            digest.update(block)
            fout.write(block)
            size += len(block)
        fout.flush()
        os.fsync(fout.fileno())
    os.replace(tmp, dst)
    return {"bytes": size, "sha256": digest.hexdigest()}


def copy_checked(src: Path, dst: Path, info: dict[str, Any]) -> None:
    """Copy a file of a backup back, refusing one that is not the manifest's."""
    if _hash_copy(src, dst)["sha256"] != info["sha256"]:
        dst.unlink()
        raise BackupError(f"{src} changed since it was verified")


def sha256(path: Path) -> str:
    """The SHA-256 of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _copy_spool(spool: Path | None, dest: Path) -> list[dict[str, Any]]:
    if spool is None or not spool.is_dir():
        return []
    # the mark first: a mark copied later could claim records the store copy lacks
    names = sorted(p.name for p in spool.iterdir() if p.name == "mark" or p.suffix == ".seg")
    out = []
    for name in names:
        try:
            info = _hash_copy(spool / name, dest / name)
        except FileNotFoundError:
            continue  # a segment the store had confirmed, removed meanwhile
        out.append({"path": name, **info})
    return out


def _copy_archive(root: Path, dest: Path) -> dict[str, dict[str, Any]]:
    folder = ArchiveFolder(root)
    days: dict[str, dict[str, Any]] = {}
    for day, path in folder.files(None, None, ArchiveGaps()):
        rel = path.relative_to(root)
        info = _hash_copy(path, dest / rel)
        rows = pq.read_metadata(dest / rel).num_rows
        entry = days.setdefault(day_name(day), {"positions": 0, "files": []})
        entry["positions"] += rows
        entry["files"].append({"path": str(rel), "positions": rows, **info})
    return days


def _store_facts(fingerprint: bool) -> Any:
    def read(conn: Connection) -> dict[str, Any]:
        noted = ledger.recorded(conn) if "archived_days" in snap.tables(conn) else {}
        return {
            "schema": snap.schema_version(conn),
            "tables": snap.counts(conn),
            "events": epochs.describe(conn) if "store_notes" in snap.tables(conn) else {},
            "archived_days": {day_name(d): n for d, n in sorted(noted.items())},
            "fingerprint": snap.fingerprint(conn) if fingerprint else None,
        }

    return read


def take(place: Place, dest: Path, *, fingerprint: bool = False) -> dict[str, Any]:
    """Back up the store at ``place`` into the new folder ``dest``; returns the manifest."""
    if dest.exists() and any(dest.iterdir()):
        raise BackupError(f"{dest} is not empty: back up into a new folder")
    began = time.time()
    dest.mkdir(parents=True, exist_ok=True)
    spool = _copy_spool(place.spool, dest / "spool")
    engine = create_engine(place.url)
    try:
        with Archiver(engine, place.archive).hold():
            name = "store.dump" if place.pg else "store.sqlite"
            if place.pg:
                store = snap.pg_snapshot(place.url, dest / name, _store_facts(fingerprint))
            else:
                store = snap.sqlite_snapshot(
                    place.sqlite_file, dest / name, _store_facts(fingerprint)
                )
            archive = _copy_archive(place.archive, dest / "archive")
    finally:
        engine.dispose()
    store |= {"kind": "postgis" if place.pg else "sqlite", "file": name}
    store |= {"bytes": (dest / name).stat().st_size, "sha256": sha256(dest / name)}
    manifest = {
        "format": FORMAT,
        "created_at": began,
        "took_s": round(time.time() - began, 3),
        "code": {"vigia": version("vigia"), "schema_head": _schema_head()},
        "store": store,
        "archive": {"days": archive},
        "spool": {"files": spool},
        "secrets": SECRETS,
    }
    tmp = dest / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    os.replace(tmp, dest / MANIFEST)
    return manifest


def _schema_head() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def load_manifest(src: Path) -> dict[str, Any]:
    """The manifest of the backup in ``src``."""
    try:
        manifest: dict[str, Any] = json.loads((src / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise BackupError(f"{src / MANIFEST} cannot be read: {exc}") from exc
    if manifest.get("format") != FORMAT:
        raise BackupError(f"{src} is a backup of format {manifest.get('format')}, not {FORMAT}")
    return manifest


def verify(src: Path) -> list[str]:
    """What is wrong with the backup in ``src`` (nothing: it is whole): every file's size
    and SHA-256, each archive file's positions, the store copy's counts (SQLite) or
    table of contents (PostGIS), and every day the store recorded as archived."""
    manifest = load_manifest(src)
    problems = []
    store = manifest["store"]
    files = [(store["file"], store)]
    files += [(f"archive/{f['path']}", f) for d in manifest["archive"]["days"].values()
              for f in d["files"]]  # fmt: skip
    files += [(f"spool/{f['path']}", f) for f in manifest["spool"]["files"]]
    for rel, info in files:
        path = src / rel
        if not path.is_file():
            problems.append(f"{rel}: missing")
        elif path.stat().st_size != info["bytes"] or sha256(path) != info["sha256"]:
            problems.append(f"{rel}: its SHA-256 is not the manifest's")
        elif "positions" in info and pq.read_metadata(path).num_rows != info["positions"]:
            problems.append(f"{rel}: holds other than {info['positions']} positions")
    days = manifest["archive"]["days"]
    for day, n in store["archived_days"].items():
        if days.get(day, {}).get("positions", 0) < n:
            problems.append(f"archive day {day}: the store recorded {n} positions, not here")
    if problems:
        return problems
    try:
        if store["kind"] == "sqlite":
            found = snap.on(f"sqlite:///{src / store['file']}", snap.counts)
            if found != store["tables"]:
                problems.append(f"{store['file']}: table counts differ from the manifest's")
        else:
            snap.pg_list(src / store["file"])
    except Exception as exc:
        problems.append(f"{store['file']}: cannot be read: {exc}")
    return problems
