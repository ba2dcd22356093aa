"""Fixtures: one running service fed the demo over TCP, and the Debian chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import playwright.sync_api as playwright  # a dev dependency: missing, collection fails
import pytest

from tests.support.dashboard import CHROMIUM, CHROMIUM_ARGS, Service, Watched, demo_lines


@pytest.fixture(autouse=True)
def _browser_present() -> None:
    """The browser is a prerequisite of these tests: without it each fails saying so,
    never a silent skip (scripts/setup.sh installs Debian's chromium)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium)")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = Service(tmp_path_factory.mktemp("dash")).start()
    try:
        assert svc.feed is not None
        svc.feed.send(demo_lines())
        svc.wait_leads(5)
        yield svc
    finally:
        svc.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def watched(browser: Any) -> Iterator[Watched]:
    # Playwright's wait_for_function evaluates strings, which the page's CSP forbids; the
    # CSP itself is checked on the response headers in test_dashboard
    ctx = browser.new_context(
        viewport={"width": 1400, "height": 900}, locale="pt-BR", bypass_csp=True
    )
    try:
        yield Watched(ctx.new_page())
    finally:
        ctx.close()
