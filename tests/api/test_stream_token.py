"""Stream tokens (issue 22): a key asks for one, an EventSource opens the stream with it.

A token that is accepted on the stream is probed with ``rule=NOPE``: the key check runs
first, so an accepted token answers 422 (the unknown rule), a refused one 401, and no
test ever holds an endless stream open in process.
"""

from __future__ import annotations

import base64
import calendar
import json
import time
from typing import Annotated, Any

from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from tests.api.conftest import Api
from vigia.service.db.protocol import ApiKeyRecord
from vigia.service.http import stream_token
from vigia.service.http.deps import require_role
from vigia.service.http.problems import install_problem_handlers

RJ = "CP-TESTE-Macaé"
PROBE = "/leads/stream?rule=NOPE&token="


def _key(api: Api, role: str, authority: str | None) -> tuple[int, dict[str, str]]:
    body = {"role": role, "name": f"{role}-ui", "authority": authority}
    r = api.client.post("/apikeys", json=body, headers=api.h("admin"))
    assert r.status_code == 201, r.text
    return int(r.json()["id"]), {"X-API-Key": r.json()["key"]}


def _token(api: Api, headers: dict[str, str]) -> dict[str, Any]:
    r = api.client.post("/leads/stream/token", headers=headers)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _status(api: Api, path: str, method: str = "GET") -> tuple[int, dict[str, Any]]:
    r = api.client.request(method, path)
    return r.status_code, r.json()


def test_a_key_gets_a_five_minute_token_that_opens_the_stream_only(api: Api) -> None:
    assert api.client.post("/leads/stream/token").status_code == 401
    _, headers = _key(api, "viewer", None)
    before = time.time()
    got = _token(api, headers)
    # a UTC stamp read as UTC (mktime reads it as local time: an hour off under summer time)
    expires = calendar.timegm(time.strptime(got["expires_at"], "%Y-%m-%dT%H:%M:%SZ"))
    assert got["expires_in"] == 300 and before + 299 <= expires <= time.time() + 300
    assert got["stream"] == f"/leads/stream?token={got['token']}"
    token = got["token"]
    status, problem = _status(api, PROBE + token)
    assert status == 422 and "unknown rule" in problem["detail"]  # past the key check
    # nowhere else: not a list of leads, not a lead, not another token
    assert _status(api, f"/leads?token={token}")[0] == 401
    assert _status(api, f"/me?token={token}")[0] == 401
    assert _status(api, f"/leads/stream/token?token={token}", "POST")[0] == 401


def test_the_token_stands_for_the_asking_keys_caller_with_its_authority(api: Api) -> None:
    # the caller a route receives from a token is the key's own (id, name, authority),
    # read-only: an inspector's token is a viewer's
    key_id, headers = _key(api, "inspector", RJ)
    token = _token(api, headers)["token"]
    probe = FastAPI()
    probe.state.stream_token_secret = api.client.app.state.stream_token_secret  # type: ignore[attr-defined]
    probe.state.repository = api.repo
    install_problem_handlers(probe)

    @probe.get("/leads/stream")
    def who(caller: Annotated[ApiKeyRecord, Depends(require_role("viewer"))]) -> dict[str, Any]:
        return {"id": caller.id, "name": caller.name, "role": caller.role, "auth": caller.authority}

    @probe.post("/leads/{lead_id}")
    def write(caller: Annotated[ApiKeyRecord, Depends(require_role("inspector"))]) -> None:
        return None

    with TestClient(probe) as client:
        r = client.get(f"/leads/stream?token={token}")
        assert r.json() == {"id": key_id, "name": "inspector-ui", "role": "viewer", "auth": RJ}
        assert client.post(f"/leads/x?token={token}").status_code == 401
    # and one of a key without authority has none
    _, unlimited = _key(api, "viewer", None)
    claims = json.loads(
        base64.urlsafe_b64decode(_token(api, unlimited)["token"].split(".")[0] + "==")
    )
    assert claims["authority"] is None


def test_forged_expired_and_revoked_tokens_are_refused(api: Api) -> None:
    key_id, headers = _key(api, "viewer", RJ)
    token = _token(api, headers)["token"]
    payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))

    def enc(c: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(c).encode()).rstrip(b"=").decode()

    unscoped = enc({**claims, "authority": None})  # a wider scope under the old signature
    caller = ApiKeyRecord(key_id, "viewer-ui", "viewer", "", 0.0, authority=RJ)
    secret = api.client.app.state.stream_token_secret  # type: ignore[attr-defined]
    forged = [
        "nonsense",
        f"{unscoped}.{signature}",
        stream_token.issue(caller, b"another service's secret, 32 b", 300, time.time()).token,
    ]
    for bad in forged:
        status, problem = _status(api, PROBE + bad)
        assert status == 401 and problem["type"] == "urn:vigia:problem:unauthenticated", bad
    expired = stream_token.issue(caller, secret, 300, time.time() - 301).token
    status, problem = _status(api, PROBE + expired)
    assert status == 401 and "expired" in problem["detail"]
    assert _status(api, PROBE + token)[0] == 422  # the genuine one still opens
    assert api.client.delete(f"/apikeys/{key_id}", headers=api.h("admin")).status_code == 204
    status, problem = _status(api, PROBE + token)
    assert status == 401 and "revoked" in problem["detail"]


def test_a_token_opens_until_its_expiry_second_and_not_at_it() -> None:
    caller = ApiKeyRecord(7, "ui", "viewer", "", 0.0, authority=RJ)
    secret = b"0123456789abcdef0123456789abcdef"
    t = stream_token.issue(caller, secret, 300, 1_000_000.0)
    assert t.expires_at == 1_000_300.0
    assert stream_token.verify(t.token, secret, 1_000_299.999).authority == RJ
    try:
        stream_token.verify(t.token, secret, 1_000_300.0)
    except stream_token.AuthenticationError as err:
        assert "expired" in str(err)
    else:
        raise AssertionError("a token at its expiry second was accepted")
