"""Who works a lead: an inspector assigns it to an officer (a key that may move leads),
or takes it off; the lead's ``procedure.assignment`` says who, by whom and since when,
and the change is a row of the lead's history like any edit (``Repository.move_lead``).

No table of its own: an assignment is an entry of the lead's record, written by the same
transaction and state machine as every other, so it is never out of step with the
history, the lead's version (ETag) or the live events.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends
from pydantic import BaseModel, ConfigDict, Field

from vigia.alerts.procedure.workflow import Actor, Move
from vigia.ingest.records import iso_utc
from vigia.service.db.protocol import ApiKeyRecord, Repository, Scope
from vigia.service.errors import RequestInvalidError
from vigia.service.http.deps import ROLES, get_repository, require_role, require_scope
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.params import LeadId
from vigia.service.http.routes.procedure import EXAMPLE_CASE, case_json, found

inspector = require_role("inspector")
router = APIRouter(tags=["procedure"], dependencies=[Depends(inspector)])
InspectorScope = Annotated[Scope, Depends(require_scope("inspector"))]


class AssignmentIn(BaseModel):
    """The officer to assign the lead to; null takes the assignment off."""

    model_config = ConfigDict(extra="forbid")
    officer: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        description="the name of an officer's key (GET /officers); null: nobody"
    )


def officers(
    repo: Repository, scope: Scope, lead_authority: str | None = None
) -> list[dict[str, str]]:
    """The active keys that may move leads (inspector or admin) whose leads include the
    caller's (and, given one, this lead's authority): one entry per name, sorted, so a
    page offers a list instead of free text."""
    seen: dict[str, str] = {}
    for key in repo.list_api_keys():
        if key.revoked or ROLES.get(key.role, 0) < ROLES["inspector"]:
            continue
        if key.authority is not None and not scope.admits(key.authority):
            continue  # an officer of another Capitania never sees this caller's leads
        if key.authority is not None and lead_authority not in (None, key.authority):
            continue  # nor one who could not open this lead
        seen.setdefault(key.name, key.role)
    return [{"name": n, "role": r} for n, r in sorted(seen.items())]


@router.get(
    "/officers",
    summary="Officers a lead can be assigned to (inspector)",
    responses={
        200: {
            "content": {
                "application/json": {
                    "example": {"officers": [{"name": "inspector-silva", "role": "inspector"}]}
                }
            }
        },
        **problem_responses(401, 403),
    },
)
def list_officers(
    repo: Annotated[Repository, Depends(get_repository)], scope: InspectorScope
) -> dict[str, Any]:
    """Names of the active inspector and admin keys within the caller's authority."""
    return {"officers": officers(repo, scope)}


@router.put(
    "/leads/{lead_id}/assignment",
    summary="Assign a lead to an officer, or take it off (inspector)",
    responses={
        200: {
            "description": "the lead with its history and deadlines",
            "content": {"application/json": {"example": EXAMPLE_CASE}},
        },
        **problem_responses(401, 403, 404, 409, 422),
    },
)
def assign_lead(
    lead_id: LeadId,
    body: Annotated[
        AssignmentIn,
        Body(
            openapi_examples={
                "assign": {"value": {"officer": "inspector-silva"}},
                "unassign": {"value": {"officer": None}},
            }
        ),
    ],
    repo: Annotated[Repository, Depends(get_repository)],
    caller: Annotated[ApiKeyRecord, Depends(inspector)],
    scope: InspectorScope,
) -> dict[str, Any]:
    """``procedure.assignment`` becomes ``{officer, by, at}`` (or goes, for null) and the
    lead's history gets the row; a closed lead is a 409 like any edit of it."""
    current = found(repo.get_lead(lead_id, scope), lead_id)
    entry: dict[str, Any] | None = None
    if body.officer is not None:
        if body.officer not in {o["name"] for o in officers(repo, scope, current.authority)}:
            raise RequestInvalidError(
                f"{body.officer!r} is no active officer of this authority (GET /officers)"
            )
        entry = {"officer": body.officer, "by": caller.name, "at": iso_utc(time.time())}
    move = Move(to=None, reason=None, data={"assignment": entry})
    lead = repo.move_lead(lead_id, move, Actor(caller.name, caller.role), scope=scope)
    return case_json(repo, found(lead, lead_id), scope)
