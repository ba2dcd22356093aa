"""The authorised-vessel register (NORMAM-07 0212 f)): inspectors read it, admins edit
it. Entries authorise an MMSI at one platform zone or at every zone of an operator, for
a validity window; the running worker judges with the new register at once."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import Field

from vigia.alerts.authorised import Authorisation, check, parse_csv
from vigia.service.http.routes.registers import Entries, Register, RegisterEntry, iso, mount

router = APIRouter(tags=["authorised vessels"])

EXAMPLE_ENTRY: dict[str, Any] = {
    "id": 7,
    "mmsi": 710001234,
    "zone_id": "platform-BR322900-1433363740",
    "operator": None,
    "valid_from": "2026-01-01T00:00:00Z",
    "valid_to": "2026-12-31T23:59:59Z",
    "note": "supply vessel under contract 123/2026",
}


class Entry(RegisterEntry):
    """One register entry: an MMSI and either a zone id or an operator."""

    zone_id: str | None = Field(default=None, min_length=1, max_length=200)
    operator: str | None = Field(default=None, min_length=1, max_length=200)


def entry_json(e: Authorisation) -> dict[str, Any]:
    """The API's view of one entry."""
    return {
        "id": e.id,
        "mmsi": e.mmsi,
        "zone_id": e.zone_id,
        "operator": e.operator,
        "valid_from": iso(e.valid_from),
        "valid_to": iso(e.valid_to),
        "note": e.note,
    }


def _to_entry(e: Entry) -> Authorisation:
    return check(Authorisation(e.mmsi, e.zone_id, e.operator, *e.window(), note=e.note))


mount(
    router,
    Register(
        path="/authorised-vessels",
        title="authorised-vessel register",
        hook="on_register_changed",
        example=EXAMPLE_ENTRY,
        csv_example="mmsi,zone_id,operator,valid_from,valid_to,note\n"
        "710001234,,Petrobras,2026-01-01T00:00:00Z,2026-12-31T23:59:59Z,supply\n",
        body=Entries[Entry],
        entry=_to_entry,
        view=entry_json,
        parse=parse_csv,
        add=lambda repo, entries: repo.add_authorisations(entries),
        listed=lambda repo: repo.list_authorisations(),
        delete=lambda repo, entry_id: repo.delete_authorisation(entry_id),
    ),
)
