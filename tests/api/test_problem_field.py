"""A refused procedure move names the body member at fault in a stable ``field``
extension (issue 22), so a client says which field in its own language."""

from __future__ import annotations

from tests.api.conftest import Api
from tests.api.test_procedure import make_lead, patch


def test_a_refused_move_names_its_field(api: Api) -> None:
    api.repo.upsert_leads([make_lead("L-FIELD")])
    assert patch(api, "L-FIELD", {"status": "dismissed"}, 422)["field"] == "reason"
    patch(api, "L-FIELD", {"status": "triaged", "seat_state": "RJ"})
    assert patch(api, "L-FIELD", {"status": "notified"}, 422)["field"] == "notice.date"
    # an appearance the day before the Notice is refused there; on its own day it is not
    early = {"date": "2026-02-02", "appear_by": "2026-02-01"}
    r = patch(api, "L-FIELD", {"status": "notified", "notice": early}, 422)
    assert r["field"] == "notice.appear_by" and r["type"] == "urn:vigia:problem:procedure-data"
    same = {"date": "2026-02-02", "appear_by": "2026-02-02"}
    assert "field" not in patch(api, "L-FIELD", {"status": "notified", "notice": same})
