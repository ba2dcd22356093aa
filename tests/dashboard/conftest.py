"""Fixtures: one running service fed the demo over TCP, and the Debian chromium."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kit import CHROMIUM, CHROMIUM_ARGS, SCREENSHOTS, Service, demo_lines

if not os.path.exists(CHROMIUM):
    pytest.skip(
        f"{CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium)",
        allow_module_level=True,
    )
playwright = pytest.importorskip("playwright.sync_api")


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


class Watched:
    """A page with every console message, page error and request it made."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.console: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: self.console.append((m.type, m.text)))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))

    def sign_in(self, service: Service, role: str = "inspector") -> None:
        self.page.goto(service.base + "/")
        self.page.fill("#key", service.keys[role])
        self.page.click("#signin-form button[type=submit]")
        self.page.wait_for_selector("body[data-loaded=true]", state="attached", timeout=60_000)
        # the map has drawn once the style is loaded and no tile or source is pending
        self.page.wait_for_function("window.__vigia.map.map.loaded()", timeout=30_000)

    def shot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path


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
