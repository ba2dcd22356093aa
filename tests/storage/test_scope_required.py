"""The authority rule cannot be forgotten (issue 21): every store method that reads or
writes leads, their events, history, extents, silences, watch-list entries or audits
takes the caller's ``Scope`` as a parameter without a default, so a route that leaves it
out fails mypy --strict and, at the latest, its first call."""

from __future__ import annotations

import inspect
import re

from vigia.service.db.repository import SqlRepository

#: what names a method over authority data
AUTHORITY_DATA = re.compile(r"lead|event|silence|watch|audit|extent|infraction|histor|prior")
#: those with no caller to scope: the writers of the worker and the bus (leads are routed
#: as they are stored), the event log's head id, whether an id can be resumed after (it
#: says nothing of any lead: issue 38), the wake-up hook, audit retention; and a
#: vessel's identity history, which is its static data over time (names, call signs,
#: IMO, type), shown to any viewer as the static data itself is, never a lead's
NO_CALLER = {
    "identity_history",
    "upsert_leads",
    "last_event_id",
    "unplaceable_event",
    "add_event_listener",
    "purge_audits",
}


def test_every_store_method_over_authority_data_requires_a_scope() -> None:
    checked = []
    for name, method in inspect.getmembers(SqlRepository, inspect.isfunction):
        if name.startswith("_") or not AUTHORITY_DATA.search(name) or name in NO_CALLER:
            continue
        scope = inspect.signature(method).parameters.get("scope")
        assert scope is not None, f"{name} takes no scope"
        assert scope.default is inspect.Parameter.empty, f"{name}'s scope has a default"
        assert scope.annotation == "Scope", f"{name}'s scope is {scope.annotation}"
        checked.append(name)
    # the methods of issue 21's findings are among them (a rename would hide one)
    assert {
        "get_lead", "list_leads", "move_lead", "lead_history", "events_after", "layer_extent",
        "add_silence", "list_silences", "add_watch", "list_watch", "release_watch",
        "get_audit", "save_audit", "prior_cases",
    } <= set(checked)  # fmt: skip
