"""A vessel's port visits (issue 33): entry to exit of each port-facility or anchorage
zone, with its stops, after Global Fishing Watch's rule (docs/gaps.md, "Port visits")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from vigia.service.db.protocol import Repository
from vigia.service.errors import RequestInvalidError
from vigia.service.http.deps import get_repository, require_role
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.params import TIME_DESCRIPTION, Mmsi, parse_time

router = APIRouter(tags=["vessels"], dependencies=[Depends(require_role("viewer"))])

#: visits per answer at most: years of a coaster's calls
MAX_VISITS = 1_000

EXAMPLE: dict[str, Any] = {
    "mmsi": 710000001,
    "visits": [
        {
            "id": "pv-710000001-anchorage-BR323000-1345142653-1767262110000",
            "mmsi": 710000001,
            "zone_id": "anchorage-BR323000-1345142653",
            "zone_name": "Tanker anchorage (charted, CATACH 3)",
            "zone_kind": "anchorage",
            "arrival": "2026-01-01T10:08:30Z",
            "departure": "2026-01-01T16:24:30Z",
            "duration_s": 22560.0,
            "arrival_position": {"lon": -41.4363774, "lat": -23.4755327},
            "departure_position": {"lon": -41.4363774, "lat": -23.4649937},
            "stops": [
                {
                    "start": "2026-01-01T10:15:00Z",
                    "end": "2026-01-01T16:15:30Z",
                    "duration_s": 21630.0,
                    "lon": -41.4363774,
                    "lat": -23.496766,
                }
            ],
        }
    ],
}


@router.get(
    "/vessels/{mmsi}/port-visits",
    summary="A vessel's port visits",
    responses={
        200: {"content": {"application/json": {"example": EXAMPLE}}},
        **problem_responses(401, 403, 422),
    },
)
def port_visits(
    mmsi: Mmsi,
    repo: Annotated[Repository, Depends(get_repository)],
    start: Annotated[str | None, Query(description=TIME_DESCRIPTION)] = None,
    end: Annotated[str | None, Query(description=TIME_DESCRIPTION)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_VISITS)] = 100,
) -> dict[str, Any]:
    """The vessel's settled visits (the lateness bound past their exit) overlapping
    ``start``..``end``, oldest first; a visit still under way is not listed yet."""
    t0, t1 = parse_time(start, "start"), parse_time(end, "end")
    if t0 is not None and t1 is not None and t1 < t0:
        raise RequestInvalidError("end is before start")
    visits = repo.port_visits(mmsi, t0, t1, limit)
    return {"mmsi": mmsi, "visits": [v.to_json() for v in visits]}
