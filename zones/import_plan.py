"""What a repeated import does to the zones already held: pure, no store.

The rules (docs/zones-import.md, "Importing again"):

- a zone of the import that is new is added; one whose content is unchanged is left
  at its version; a changed one gets a new version (the store keeps the old);
- a zone that came from a scope of this import but is gone from it is retired;
- a zone edited by hand since it was imported (its digest no longer matches) is never
  overwritten nor retired: it is reported; ``force`` overrides;
- an id held by a zone that did not come from this scope (bundled, drawn by hand,
  another register) is not taken over: reported; ``force`` overrides.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from vigia.zones.import_types import digest, edited_since_import, scope_of
from vigia.zones.model import Zone


@dataclass(slots=True)
class ImportPlan:
    """The changes one import makes, and the versions they were planned against."""

    put: list[Zone] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    retire: list[str] = field(default_factory=list)
    kept_edited: list[str] = field(default_factory=list)
    kept_foreign: list[str] = field(default_factory=list)
    #: zone id -> the version seen when planning (None: absent); the store refuses the
    #: plan if any of them moved meanwhile
    seen: dict[str, int | None] = field(default_factory=dict)

    def summary(self) -> dict[str, list[str]]:
        """Each outcome and the ids it holds, sorted."""
        outcomes = {
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "retired": self.retire,
            "kept_edited": self.kept_edited,
            "kept_foreign": self.kept_foreign,
        }
        return {k: sorted(v) for k, v in outcomes.items()}


def plan_import(
    imported: Sequence[Zone], scopes: Iterable[str], current: Sequence[Zone], *, force: bool
) -> ImportPlan:
    """The plan of an import of ``imported`` (covering ``scopes``) over ``current``."""
    held = {z.id: z for z in current}
    covered = set(scopes)
    plan = ImportPlan()
    for new in imported:
        old = held.get(new.id)
        plan.seen[new.id] = None if old is None else old.version
        if old is None:
            plan.put.append(new)
            plan.added.append(new.id)
        elif scope_of(old) != scope_of(new) and not force:
            plan.kept_foreign.append(new.id)
        elif scope_of(old) == scope_of(new) and edited_since_import(old) and not force:
            plan.kept_edited.append(new.id)
        elif scope_of(old) == scope_of(new) and digest(old) == digest(new):
            plan.unchanged.append(new.id)
        else:
            plan.put.append(new)
            plan.updated.append(new.id)
    arriving = {z.id for z in imported}
    for old in current:
        if old.id in arriving or scope_of(old) not in covered:
            continue
        plan.seen[old.id] = old.version
        if edited_since_import(old) and not force:
            plan.kept_edited.append(old.id)
        else:
            plan.retire.append(old.id)
    return plan
