"""The register of state vessels (issue 34): inspectors read it, admins edit it. A ship
type 35 (military) or 55 (law enforcement) exempts a vessel from the military-area rules
only while it is on this register; every entry says where it comes from (``source``).
The running worker judges with the new register from the next position on."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter
from pydantic import Field

from vigia.alerts.identity.state_register import KINDS, StateVessel, check, parse_csv, when
from vigia.service.http.routes.registers import Entries, Register, RegisterEntry, iso, mount

router = APIRouter(tags=["state vessels"])

EXAMPLE_ENTRY: dict[str, Any] = {
    "id": 3,
    "mmsi": 710000999,
    "name": "NPA EXEMPLO",
    "kind": "navy",
    "source": "https://www.marinha.mil.br/ (ofício 12/2026 of the 1st Naval District)",
    "valid_from": "2026-01-01T00:00:00Z",
    "valid_to": None,
    "note": "patrol vessel based in Rio de Janeiro",
}


class Entry(RegisterEntry):
    """One entry: an MMSI, its name and kind, and the source that says it is a state's."""

    name: str = Field(min_length=1, max_length=200)
    kind: str = Field(min_length=1, max_length=40, description=f"one of {', '.join(KINDS)}")
    source: str = Field(
        min_length=1, max_length=1000, description="where it comes from: a URL or a document"
    )


def _iso(d: datetime | None) -> str | None:
    return iso(None if d is None else d.timestamp())


def entry_json(e: StateVessel) -> dict[str, Any]:
    """The API's view of one entry."""
    return {"id": e.id, "mmsi": e.mmsi, "name": e.name, "kind": e.kind, "source": e.source,
            "valid_from": _iso(e.valid_from), "valid_to": _iso(e.valid_to),
            "note": e.note}  # fmt: skip


def _to_entry(e: Entry) -> StateVessel:
    start, end = e.window()
    return check(StateVessel(e.mmsi, e.name, e.kind, e.source, when(start), when(end), e.note))


CSV_EXAMPLE = (
    "mmsi,name,kind,source,valid_from,valid_to,note\n"
    "710000999,NPA EXEMPLO,navy,https://www.marinha.mil.br/,2026-01-01T00:00:00Z,,\n"
)
mount(router, Register(
    "/state-vessels", "register of state vessels", "on_state_vessels_changed", EXAMPLE_ENTRY,
    CSV_EXAMPLE, Entries[Entry], _to_entry, entry_json, parse_csv,
    lambda repo, entries: repo.add_state_vessels(entries), lambda repo: repo.list_state_vessels(),
    lambda repo, entry_id: repo.delete_state_vessel(entry_id), csv_refusal=422,
))  # fmt: skip
