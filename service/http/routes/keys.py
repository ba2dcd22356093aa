"""API keys for admins: list (never the hashes), create (the key is shown once), revoke."""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from vigia.ingest.records import iso_utc
from vigia.service.db.protocol import ApiKeyRecord, Repository
from vigia.service.errors import NotFoundError, RequestInvalidError
from vigia.service.http.deps import get_repository, hash_key, require_role
from vigia.service.http.problems import problem_responses

router = APIRouter(tags=["keys"], dependencies=[Depends(require_role("admin"))])

EXAMPLE_KEY: dict[str, Any] = {
    "id": 3,
    "name": "dashboard-cpsp",
    "role": "viewer",
    "created_at": "2024-03-01T12:00:00Z",
    "revoked": False,
}


class NewKey(BaseModel):
    """What a new key is for."""

    role: Literal["viewer", "inspector", "admin"]
    name: str = Field(default="", max_length=200)
    authority: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="limit the key to this authority's leads (a Capitania's dashboard)",
    )


def key_json(record: ApiKeyRecord) -> dict[str, Any]:
    """A key's record without its hash."""
    return {
        "id": record.id,
        "name": record.name,
        "role": record.role,
        "created_at": iso_utc(record.created_at),
        "revoked": record.revoked,
        "authority": record.authority,
    }


@router.get(
    "/apikeys",
    summary="List API keys (admin)",
    responses={
        200: {"content": {"application/json": {"example": {"keys": [EXAMPLE_KEY]}}}},
        **problem_responses(401, 403),
    },
)
def list_keys(repo: Annotated[Repository, Depends(get_repository)]) -> dict[str, Any]:
    """Every key with its role and whether it is revoked; hashes are never shown."""
    return {"keys": [key_json(k) for k in repo.list_api_keys()]}


@router.post(
    "/apikeys",
    summary="Create an API key (admin)",
    status_code=201,
    responses={
        201: {
            "content": {
                "application/json": {"example": {**EXAMPLE_KEY, "key": "t0k3n-shown-only-once"}}
            }
        },
        **problem_responses(401, 403, 422),
    },
)
def create_key(
    new: Annotated[
        NewKey,
        Body(
            openapi_examples={
                "viewer": {"value": {"role": "viewer", "name": "dashboard-cpsp"}},
                "inspector": {"value": {"role": "inspector", "name": "inspector-silva"}},
            }
        ),
    ],
    repo: Annotated[Repository, Depends(get_repository)],
) -> JSONResponse:
    """A new random key; the response is the only time it is shown."""
    key = secrets.token_urlsafe(32)
    if new.authority is not None and new.role == "admin":
        raise RequestInvalidError("an admin key cannot be limited to one authority")
    record = repo.add_api_key(
        new.name or f"{new.role}-key", new.role, hash_key(key), authority=new.authority
    )
    return JSONResponse({**key_json(record), "key": key}, status_code=201)


@router.delete(
    "/apikeys/{key_id}",
    summary="Revoke an API key (admin)",
    status_code=204,
    response_class=Response,
    responses={204: {"description": "revoked"}, **problem_responses(401, 403, 404, 409)},
)
def revoke_key(
    key_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    request: Request,
    repo: Annotated[Repository, Depends(get_repository)],
    caller: Annotated[ApiKeyRecord, Depends(require_role("admin"))],
) -> Response:
    """Revoke a key at once; requests with it get 401 from then on."""
    if key_id == caller.id:
        raise RequestInvalidError("an admin cannot revoke the key it is using")
    if not repo.revoke_api_key(key_id):
        raise NotFoundError(f"no key with id {key_id}")
    request.app.state.key_cache.forget_id(key_id)
    return Response(status_code=204)
