"""Live for any browser client (issue 22): the browser's own EventSource opens the lead
stream with a stream token, receives a lead as it is opened, and a forged token is 401."""

from __future__ import annotations

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
