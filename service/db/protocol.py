"""The storage interface every store (SQLite embedded default, PostGIS) implements.

The worker and the API only talk to this protocol, so a message bus or another store
can sit behind it later without touching domain code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from vigia.alerts.authorised import Authorisation
from vigia.alerts.identity.history import HistoryOut, IdentityChange
from vigia.alerts.identity.state_register import StateVessel
from vigia.alerts.lead import Lead
from vigia.alerts.ports.visits import PortVisit
from vigia.alerts.procedure.repeats import PriorCase
from vigia.alerts.procedure.workflow import Actor, Move
from vigia.ingest.records import Position, VesselInfo
from vigia.service.db.archive_files import ArchiveGaps
from vigia.zones.model import Zone

BBox = tuple[float, float, float, float]  # min lon, min lat, max lon, max lat


@dataclass(slots=True, frozen=True)
class Scope:
    """Whose leads a caller may see and change: one authority's (a Capitania's key), or
    every authority's (``authority`` None: an unlimited key, the worker, the CLI).

    The one authority rule. Every repository method that reads or writes leads, their
    events, history, extents, silences or watch-list entries takes a ``Scope`` argument
    with no default, so a route that forgets it does not type-check (nor run). Data of
    another authority is simply absent: a lead outside the scope is "not found".
    """

    authority: str | None

    def admits(self, authority: str | None) -> bool:
        """Whether a record of ``authority`` (None: not routed to any) is in scope."""
        return self.authority is None or authority == self.authority


#: every authority's data: the worker, the CLI, admin and unlimited keys
EVERY_AUTHORITY = Scope(None)
#: what a scoped caller sees instead of the id of another authority's lead
OTHER_AUTHORITY = "(another authority)"


@dataclass(slots=True, frozen=True)
class LeadQuery:
    """Filters for listing leads; None means no filter."""

    rule: str | None = None
    zone_id: str | None = None
    mmsi: int | None = None
    status: str | None = None
    start: float | None = None  # leads still going on at or after this Unix time
    end: float | None = None  # leads started at or before this Unix time
    bbox: BBox | None = None  # on the closest point
    authority: str | None = None
    assignee: str | None = None  # the officer named in procedure.assignment.officer
    include_silenced: bool = False  # silenced leads are stored but hidden by default
    sort: str = "newest"  # "newest" (started_at descending) or "due" (soonest deadline)


@dataclass(slots=True, frozen=True)
class LeadKey:
    """Where a page of leads ends: the last lead's sort key (a keyset cursor). The next
    page starts right after it, in the list's order, however many leads came before."""

    started_at: float
    id: str
    due_on: str | None = None  # the ``due`` order's first key (None: no deadline)


@dataclass(slots=True, frozen=True)
class LeadPage:
    """A page of leads, how many match (exact, or an estimate when ``exact`` is False),
    and the key after which the next page starts (None: this is the last page)."""

    leads: list[Lead]
    total: int
    exact: bool
    next_key: LeadKey | None


@dataclass(slots=True, frozen=True)
class IdentityHistory:
    """A vessel's stored identity history: its changes newest first (up to the limit
    asked), how many are stored, and each UTC day whose changes were not all kept, as
    (day, changes counted, changes kept)."""

    changes: list[IdentityChange]
    total: int
    not_kept: list[tuple[int, int, int]]


@dataclass(slots=True, frozen=True)
class ApiKeyRecord:
    """A stored API key (only its hash is kept)."""

    id: int
    name: str
    role: str
    key_hash: str
    created_at: float
    revoked: bool = False
    authority: str | None = None  # limits the key to this authority's leads


class Repository(Protocol):
    """Persistence for vessels, positions, zones, leads, counters, keys and audits."""

    def migrate(self) -> None:
        """Bring the schema up to date (Alembic)."""

    def ping(self) -> bool:
        """Whether the database answers."""

    def close(self) -> None:
        """Release connections."""

    # vessels and positions
    def upsert_vessels(
        self, vessels: Sequence[VesselInfo], history: HistoryOut | None = None
    ) -> None:
        """Insert or update the latest static data per MMSI and, in the same
        transaction, the identity history the pipeline handed out with it."""

    def identity_history(
        self, mmsi: int, limit: int, before: tuple[float, str] | None = None
    ) -> IdentityHistory:
        """One vessel's stored identity history (see :class:`IdentityHistory`), from
        the change after ``before`` (t, field) in its order when given (a keyset page)."""

    def add_positions(self, positions: Sequence[Position]) -> int:
        """Store a batch of positions in one round trip or few; returns rows written."""

    def get_vessel(self, mmsi: int) -> VesselInfo | None:
        """Latest static data of one vessel."""

    def latest_positions(self, bbox: BBox | None, limit: int, offset: int = 0) -> list[Position]:
        """Each vessel's latest position, optionally inside a bbox."""

    def latest_changes(
        self, bbox: BBox | None, since: float | None, limit: int
    ) -> tuple[list[Position], float | None]:
        """The latest positions (optionally inside a bbox) whose row changed at or after
        ``since`` (the writer's clock, Unix seconds; every one when None), by MMSI, and
        the newest such change (None when no answered row has one)."""

    def latest_points(self, bbox: BBox | None) -> list[tuple[float, float]]:
        """(lon, lat) of each vessel's latest position, optionally inside a bbox, in no
        order: what a map's clusters count."""

    def track(
        self,
        mmsi: int,
        start: float | None,
        end: float | None,
        *,
        limit: int | None = None,
        offset: int = 0,
        gaps: ArchiveGaps | None = None,
    ) -> list[Position]:
        """One vessel's positions between two Unix times, oldest first; at most ``limit``
        of them (all when None), skipping the first ``offset``. Days of the archive that
        could not be read are left out and named in ``gaps``."""

    def vessels_in_bbox(
        self,
        bbox: BBox,
        start: float,
        end: float,
        limit: int,
        gaps: ArchiveGaps | None = None,
    ) -> list[int]:
        """MMSIs with a stored position inside ``bbox`` between two Unix times, ascending
        (unread days of the archive named in ``gaps``)."""

    # zones (versioned: an edit makes a new version)
    def put_zones(self, zones: Sequence[Zone]) -> list[Zone]:
        """Create or replace zones atomically; returns them with their new versions."""

    def seed_zones(self, zones: Sequence[Zone]) -> int:
        """Store zones only if there are none yet (atomically, even across processes);
        returns how many were stored."""

    def sync_register(self, fingerprint: str) -> int | None:
        """Re-route the leads not yet notified when the bundled register of offices is
        not the one noted (``fingerprint``); how many moved, or None if it is."""

    def delete_zone(self, zone_id: str) -> bool:
        """Retire a zone (its versions stay for the leads that cite them)."""

    def replace_zones(
        self, put: Sequence[Zone], retire: Sequence[str], seen: Mapping[str, int | None]
    ) -> list[Zone]:
        """An import's zones and retirements in one transaction, refused (ConflictError)
        if a zone in ``seen`` is no longer at the version seen (None: absent)."""

    def get_zone(self, zone_id: str, version: int | None = None) -> Zone | None:
        """The current (or a given) version of a zone."""

    def list_zones(
        self, bbox: BBox | None, at: float | None, limit: int | None, offset: int = 0
    ) -> tuple[list[Zone], int]:
        """Current zones, optionally filtered; returns a page (every match when ``limit``
        is None: there is no hidden cap that could drop zones) and the total matched."""

    def count_zones(self) -> int:
        """How many current zones there are."""

    # leads
    def upsert_leads(self, leads: Sequence[Lead], *, seq: int | None = None) -> None:
        """Insert leads, or update open ones as their episodes grow; never rewrites the
        evidence of a closed lead. ``seq`` (broker mode): the stream sequence these
        versions were committed at; a lead stored from a higher one is kept."""

    def get_lead(self, lead_id: str, scope: Scope) -> Lead | None:
        """One lead with its evidence (None when absent or outside ``scope``)."""

    def list_leads(
        self, query: LeadQuery, limit: int, offset: int = 0, *, scope: Scope
    ) -> tuple[list[Lead], int]:
        """A page of the leads in ``scope``, newest first, and the total matched."""

    def page_leads(
        self,
        query: LeadQuery,
        limit: int,
        *,
        scope: Scope,
        after: LeadKey | None = None,
        offset: int = 0,
    ) -> LeadPage:
        """A page of the leads in ``scope`` after the key ``after`` (keyset paging: every
        page costs the same) or, for old clients, ``offset`` leads in; the count is exact
        where cheap and otherwise an estimate marked as one."""

    def move_lead(
        self,
        lead_id: str,
        move: Move,
        actor: Actor,
        *,
        scope: Scope,
        if_version: int | None = None,
    ) -> Lead | None:
        """The one way a lead's procedure changes (state machine + history row); None if
        the lead is absent or outside ``scope``; a ``PreconditionFailedError`` when
        ``if_version`` is given and the stored version differs."""

    def lead_history(self, lead_id: str, scope: Scope) -> list[dict[str, Any]]:
        """A lead's append-only history, oldest first (empty outside ``scope``)."""

    def prior_cases(self, lead_id: str, scope: Scope) -> list[PriorCase]:
        """Other closed leads that reached ``infraction`` (repeat-offence candidates). A
        repeat offence counts nationwide (NORMAM-20 1.5.3 b)), so leads outside ``scope``
        are listed too, but under ``OTHER_AUTHORITY`` instead of their id."""

    # silences and the 0310 watch-list
    def add_silence(self, silence: dict[str, Any], by: str, scope: Scope) -> int:
        """Store an inspector's silence, hiding only leads of ``scope``'s authority (any
        authority's for an unlimited scope); returns its id (a ``PermissionDeniedError``
        for a limited scope's silence of a zone in other offices' jurisdiction)."""

    def list_silences(self, scope: Scope) -> list[dict[str, Any]]:
        """The silences of ``scope``, newest first."""

    def add_watch(self, entry: dict[str, Any], by: str, scope: Scope) -> int:
        """Put a detained or sealed vessel on the watch-list; returns the entry's id (a
        ``PermissionDeniedError`` for an entry of an authority outside ``scope``, or held
        at a place routed to another office)."""

    def list_watch(self, scope: Scope) -> list[dict[str, Any]]:
        """The watch-list entries of ``scope``, newest first."""

    def release_watch(self, entry_id: int, scope: Scope) -> bool:
        """Take a vessel off the watch-list; False if there is no such entry in scope."""

    # authorised-vessel register (0212 f)) and the worker's vessel registry
    def add_authorisations(self, entries: Sequence[Authorisation]) -> list[Authorisation]:
        """Add register entries, all or none (in bounded batches); returns them with
        their ids."""

    def list_authorisations(self) -> list[Authorisation]:
        """Every register entry, oldest first."""

    def delete_authorisation(self, entry_id: int) -> bool:
        """Remove one register entry; False if there is none with that id."""

    # port visits (issue 33): settled visits, by vessel
    def add_port_visits(self, visits: Sequence[PortVisit]) -> int:
        """Store settled visits (one already stored is kept); returns how many were new."""

    def port_visits(
        self, mmsi: int, start: float | None = None, end: float | None = None, limit: int = 1_000
    ) -> list[PortVisit]:
        """The vessel's visits overlapping [start, end] (either open), oldest first."""

    # the register of state vessels (issue 34)
    def add_state_vessels(self, entries: Sequence[StateVessel]) -> list[StateVessel]:
        """Add state-vessel entries, all or none (in bounded batches); returns them with
        their ids."""

    def list_state_vessels(self) -> list[StateVessel]:
        """Every state-vessel entry, oldest first."""

    def delete_state_vessel(self, entry_id: int) -> bool:
        """Remove one state-vessel entry; False if there is none with that id."""

    def seed_state_vessels(self, entries: Sequence[StateVessel]) -> int:
        """Store the bundled entries once, into a store that never had them offered and
        holds none; returns how many were stored."""

    def all_vessels(self) -> list[VesselInfo]:
        """Every vessel's latest static data (loaded into the worker at start)."""

    # counters, keys, audits
    def save_counters(self, counters: dict[str, int]) -> None:
        """Persist ingest counters (cumulative)."""

    def load_counters(self) -> dict[str, int]:
        """The persisted ingest counters."""

    def add_api_key(
        self, name: str, role: str, key_hash: str, authority: str | None = None
    ) -> ApiKeyRecord:
        """Store a new API key's hash (optionally limited to one authority's leads)."""

    def list_api_keys(self) -> list[ApiKeyRecord]:
        """Every stored key, oldest first."""

    def revoke_api_key(self, key_id: int) -> bool:
        """Revoke a key; False if there is no such key."""

    def find_api_key(self, key_hash: str) -> ApiKeyRecord | None:
        """Look up a key by its hash."""

    def save_audit(self, audit: dict[str, Any], scope: Scope) -> str:
        """Store a ballast audit (kept at least five years) as ``scope``'s; returns its id."""

    def get_audit(self, audit_id: str, scope: Scope) -> dict[str, Any] | None:
        """One stored ballast audit (None when absent or another authority's)."""
