"""Live for any browser client (issue 22): the browser's own EventSource opens the lead
stream with a stream token, receives a lead as it is opened, and a forged token is 401."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.dashboard import Service, Watched, platform_pass

pytestmark = pytest.mark.slow

OPEN = """async (key) => {
    const r = await fetch('/leads/stream/token', {method: 'POST', headers: {'X-API-Key': key}});
    const grant = await r.json();
    window.__got = [];
    const es = new EventSource(grant.stream);
    es.addEventListener('lead.opened', (e) => window.__got.push(JSON.parse(e.data)));
    await new Promise((ok, fail) => { es.onopen = ok; es.onerror = fail; });
    window.__es = es;
    return grant.stream;
}"""

FORGED = """async () => {
    const es = new EventSource('/leads/stream?token=bm90IGEgdG9rZW4.c2lnbmF0dXJl');
    await new Promise((done) => { es.onerror = done; });
    const closed = es.readyState === EventSource.CLOSED;  // refused: the browser gave up
    const r = await fetch('/leads/stream?token=bm90IGEgdG9rZW4.c2lnbmF0dXJl');
    return [closed, r.status];
}"""


def test_an_eventsource_with_a_stream_token_receives_a_lead(
    service: Service, watched: Watched
) -> None:
    watched.sign_in(service, "viewer")
    page = watched.page
    # the dashboard itself is fed by an EventSource opened with a token, not by polling
    page.wait_for_selector("#live[data-state=live]", timeout=10_000)
    streams = [u for u in watched.requests if "/leads/stream?" in u]
    assert streams and all("token=" in u for u in streams)
    assert not any(service.keys["viewer"] in u for u in watched.requests)  # no key in a URL
    url = page.evaluate(OPEN, service.keys["viewer"])
    assert url.startswith("/leads/stream?token=")
    assert service.feed is not None
    mmsi = 710_998_401
    service.feed.send(platform_pass(mmsi, time.time() - 400, name="TEST LIVE"))
    page.wait_for_function(
        "(m) => window.__got.some((l) => l.mmsi === m && l.rule === 'SEC-PLATFORM')",
        arg=mmsi,
        timeout=30_000,
    )
    # the page's own stream put it in the list too
    page.locator("#lead-list li", has_text="TEST LIVE").wait_for(timeout=10_000)
    page.evaluate("window.__es.close()")
    closed, status = page.evaluate(FORGED)
    assert closed and status == 401


RESET = """async (key) => {
    // the service's own reset frame: a stream resumed from an id the store cannot place
    const r = await fetch('/leads/stream/token', {method: 'POST', headers: {'X-API-Key': key}});
    const grant = await r.json();
    const url = new URL(grant.stream, location.href);
    url.searchParams.set('last_event_id', '999999999');
    const es = new EventSource(url);
    const got = await new Promise((ok) => es.addEventListener('stream.reset', ok));
    es.close();
    return [got.data, got.lastEventId];
}"""

STALE = """() => {
    // a lead the page holds that the restored store never had
    const v = window.__vigia.leads;
    const some = v.leads.values().next().value;
    v.put({...some, id: 'perdido-na-restauracao', vessel: {...some.vessel, name: 'NAVIO PERDIDO'}});
    v.render();
}"""


def test_a_stream_reset_replaces_the_list_with_the_current_leads(
    service: Service, watched: Watched
) -> None:
    """Issue 38: after a restore the stream cannot place the page's last event and says
    so with ``stream.reset``; the page drops what it held and shows the leads the reset
    carries, instead of going on as if nothing had happened."""
    watched.sign_in(service, "viewer")
    page = watched.page
    page.wait_for_selector("#live[data-state=live]", timeout=10_000)
    data, last_id = page.evaluate(RESET, service.keys["viewer"])
    current = {x["id"] for x in service.get("/leads?limit=500")["leads"]}
    assert {x["id"] for x in json.loads(data)["leads"]} == current
    page.evaluate(STALE)
    page.locator("#lead-list li", has_text="NAVIO PERDIDO").wait_for(timeout=10_000)
    page.evaluate(
        "([d, id]) => window.__vigia.stream.source.dispatchEvent("
        "new MessageEvent('stream.reset', {data: d, lastEventId: id}))",
        [data, last_id],
    )
    page.locator("#lead-list li", has_text="NAVIO PERDIDO").wait_for(state="detached")
    assert set(page.evaluate("[...window.__vigia.leads.leads.keys()]")) == current
    assert not watched.errors
