"""What every zone importer (charts, registers) hands back: the zones it made, the
features it read but could not make zones of (with the reason), and the scopes it
covers, so that a repeated import can retire what left its source.

A *scope* is the unit a repeated import replaces: one chart cell's object class
(``enc:BR323000:ACHARE``), or one register file (``register:platforms.csv``). Every zone
an importer makes carries its scope in ``properties.provenance.scope``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from shapely.geometry.base import BaseGeometry

from vigia.zones.catalogue import parse_feature, zone_to_feature
from vigia.zones.model import Zone, ZoneError

#: the property holding the digest of a zone as imported (see :func:`digest`)
DIGEST = "import_digest"
#: the property holding where an imported zone came from
PROVENANCE = "provenance"
#: the property holding the date of the source (chart issue date, register date)
SOURCE_DATE = "source_date"


class ZoneImportError(ZoneError):
    """A source that cannot be imported at all (unreadable, unknown columns, a row
    that names what does not exist). Features that merely cannot be zones are skipped
    and reported instead."""

    code = "invalid-zone-import"


@dataclass(frozen=True, slots=True)
class ChartFeature:
    """One feature of one ENC object class, as GDAL's S-57 driver reads it."""

    cell: str
    object_class: str
    attrs: dict[str, Any]
    geometry: BaseGeometry | None
    file: str

    @property
    def fidn(self) -> int:
        """The feature identification number (with AGEN and FIDS, the feature's name).
        S-57 stores it unsigned in 32 bits; GDAL's driver reads it into a signed 32-bit
        field, where a number of 2**31 or more wraps negative: the wrap is undone."""
        fidn = int(self.attrs["FIDN"])
        return fidn + 2**32 if fidn < 0 else fidn


@dataclass(frozen=True, slots=True)
class CellInfo:
    """A cell's edition, the update last applied and the issue date of that update
    (ISO date), from its DSID record, or given on the command line for extracts."""

    cell: str
    edition: str | None = None
    update: str | None = None
    issue_date: str | None = None
    agency: int | None = None


@dataclass(frozen=True, slots=True)
class Skipped:
    """A feature or row read but not imported, and why."""

    where: str
    reason: str


@dataclass(slots=True)
class ImportResult:
    """Zones made from some sources, features skipped, and the scopes covered."""

    zones: list[Zone] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    scopes: set[str] = field(default_factory=set)

    def extend(self, other: ImportResult) -> None:
        """Add another source's result to this one."""
        self.zones.extend(other.zones)
        self.skipped.extend(other.skipped)
        self.scopes |= other.scopes


def digest(zone: Zone) -> str:
    """SHA-256 of the zone's contract JSON (properties but the digest and the version,
    and geometry), keys sorted: equal for a zone as imported and as read back from a
    store, different as soon as anyone edits it."""
    feature = zone_to_feature(zone)
    props = {k: v for k, v in feature["properties"].items() if k not in (DIGEST, "version")}
    body = json.dumps(
        {"properties": props, "geometry": feature["geometry"]},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def make_zone(props: dict[str, Any], geometry: dict[str, Any], where: str) -> Zone:
    """The zone of an imported feature, validated as a zone file's feature is, with its
    digest among the properties. Raises :class:`ZoneError` naming ``where``."""
    try:
        zone = parse_feature(
            {"type": "Feature", "properties": props, "geometry": geometry}, file=where
        )
    except ZoneError as exc:
        raise ZoneError(exc.reason, file=where, feature=str(props.get("id"))) from None
    zone.properties[DIGEST] = digest(zone)
    return zone


def scope_of(zone: Zone) -> str | None:
    """The import scope a zone came from, or None (bundled, drawn by hand, uploaded)."""
    prov = zone.properties.get(PROVENANCE)
    scope = prov.get("scope") if isinstance(prov, dict) else None
    return scope if isinstance(scope, str) else None


def edited_since_import(zone: Zone) -> bool:
    """Whether an imported zone was changed after its import (its digest no longer
    matches its content). A zone without a digest was never imported."""
    recorded = zone.properties.get(DIGEST)
    return not isinstance(recorded, str) or recorded != digest(zone)
