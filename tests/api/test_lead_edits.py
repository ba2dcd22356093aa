"""No lost edit (issue 21 item 4): concurrent PATCHes of one lead all land, and the
``ETag`` / ``If-Match`` pair refuses an edit made on a stale read (412), on both stores.

Before the fix, two data-only PATCHes of one lead on SQLite both answered 200 and both
wrote history, but one value was lost (read, then write, with no lock between them).
"""

from __future__ import annotations

import dataclasses
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.api.conftest import Api
from tests.api.test_procedure import make_lead

#: one data-only edit per field a new lead accepts; each PATCH sends exactly one
EDITS: list[dict[str, Any]] = [
    {"seat_municipality": "Macaé"},
    {"responsible": [{"role": "proprietario", "name": "Dona Ana", "document": "529.982.247-25"}]},
    {"fine_factors": {"notes": "sem dano ambiental"}},
    {"report_known_date": "2026-02-10"},
    {"payment_notice_date": "2026-03-01"},
]
ROUNDS = 4


def _recorded(procedure: dict[str, Any], edit: dict[str, Any]) -> bool:
    """Whether ``procedure`` holds what ``edit`` entered (parties gain their basis)."""
    ((key, value),) = edit.items()
    if key == "responsible":
        got = procedure.get("responsible") or []
        return [{k: p[k] for k in value[0]} for p in got] == value
    return procedure.get(key) == value


def test_concurrent_edits_of_one_lead_all_land(api: Api) -> None:
    ids = [f"L-race-{i}" for i in range(ROUNDS)]
    api.repo.upsert_leads([make_lead(i) for i in ids])
    for lead_id in ids:
        start = threading.Barrier(len(EDITS))

        def send(
            edit: dict[str, Any], lead_id: str = lead_id, start: threading.Barrier = start
        ) -> httpx.Response:
            start.wait()  # all at once: the race the issue saw 7 times in 10
            return api.client.patch(f"/leads/{lead_id}", json=edit, headers=api.h("inspector"))

        with ThreadPoolExecutor(len(EDITS)) as pool:
            answers = list(pool.map(send, EDITS))
        acknowledged = [e for e, r in zip(EDITS, answers, strict=True) if r.status_code == 200]
        # nothing makes these edits conflict: each must be accepted, none refused
        assert len(acknowledged) == len(EDITS), [r.text for r in answers]
        record = api.client.get(f"/leads/{lead_id}", headers=api.h("viewer")).json()
        lost = [e for e in acknowledged if not _recorded(record["procedure"], e)]
        assert not lost, (lead_id, lost, record["procedure"])
        # the history has one row per acknowledged edit, and each row's "after" is what
        # that edit entered
        history = record["history"]
        assert len(history) == len(acknowledged)
        for edit in acknowledged:
            assert any(_recorded(row["after"], edit) for row in history), (edit, history)
        # the ETag counts the changes: the insert (1) and one per edit
        assert record["status"] == "new"
        assert (
            api.client.get(f"/leads/{lead_id}", headers=api.h("viewer")).headers["ETag"]
            == f'"{1 + len(EDITS)}"'
        )


def test_if_match_refuses_an_edit_on_a_stale_read(api: Api) -> None:
    api.repo.upsert_leads([make_lead("L-etag")])
    viewer, inspector = api.h("viewer"), api.h("inspector")
    first = api.client.get("/leads/L-etag", headers=viewer)
    assert first.status_code == 200 and first.headers["ETag"] == '"1"'
    tag = first.headers["ETag"]

    r = api.client.patch(
        "/leads/L-etag", json={"seat_municipality": "Macaé"}, headers={**inspector, "If-Match": tag}
    )
    assert r.status_code == 200 and r.headers["ETag"] == '"2"', r.text
    # someone else's client still holds the first read: refused, and nothing is written
    r = api.client.patch(
        "/leads/L-etag",
        json={"seat_municipality": "Campos"},
        headers={**inspector, "If-Match": tag},
    )
    assert r.status_code == 412, r.text
    assert r.headers["content-type"] == "application/problem+json"
    after = api.client.get("/leads/L-etag", headers=viewer).json()
    assert after["procedure"]["seat_municipality"] == "Macaé" and len(after["history"]) == 1
    # a weak tag never matches (strong comparison, RFC 9110 13.1.1); a list with the
    # current tag does, and so does "*"
    weak = {**inspector, "If-Match": 'W/"2"'}
    assert api.client.patch("/leads/L-etag", json={}, headers=weak).status_code == 412
    several = {**inspector, "If-Match": '"1", "2"'}
    r = api.client.patch("/leads/L-etag", json={"seat_municipality": "Búzios"}, headers=several)
    assert r.status_code == 200 and r.headers["ETag"] == '"3"'
    anything = {**inspector, "If-Match": "*"}
    assert api.client.patch("/leads/L-etag", json={}, headers=anything).status_code == 200
    # without If-Match an edit is never refused for being concurrent
    assert api.client.patch("/leads/L-etag", json={}, headers=inspector).status_code == 200
    # another authority's key cannot learn whether the lead exists from a 412
    other = api.client.post(
        "/apikeys",
        json={"role": "inspector", "authority": "CP-TESTE-Santos"},
        headers=api.h("admin"),
    ).json()["key"]
    r = api.client.patch("/leads/L-etag", json={}, headers={"X-API-Key": other, "If-Match": '"1"'})
    assert r.status_code == 404


def test_the_etag_changes_with_the_record_and_not_with_a_replay(api: Api) -> None:
    lead = make_lead("L-grow")
    api.repo.upsert_leads([dataclasses.replace(lead, ended_at=None)])
    tag = api.client.get("/leads/L-grow", headers=api.h("viewer")).headers["ETag"]
    api.repo.upsert_leads([dataclasses.replace(lead, ended_at=None)])  # the same: a replay
    assert api.client.get("/leads/L-grow", headers=api.h("viewer")).headers["ETag"] == tag
    api.repo.upsert_leads([dataclasses.replace(lead, ended_at=None, max_sog_kn=9.5)])
    grown = api.client.get("/leads/L-grow", headers=api.h("viewer")).headers["ETag"]
    assert grown != tag
    r = api.client.patch("/leads/L-grow", json={}, headers={**api.h("inspector"), "If-Match": tag})
    assert r.status_code == 412
