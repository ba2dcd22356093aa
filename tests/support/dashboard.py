"""A real ``vigia serve`` fed over a real TCP socket, and the Debian chromium, for the
dashboard's browser tests and its benchmark."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scripts import aisgen

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = "/usr/bin/chromium"
#: the brief's flags: no GPU, and nothing the browser would fetch on its own
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DEMO = ROOT / "data" / "demo" / "rio_demo.nmea"
SCREENSHOTS = ROOT / "build" / "screenshots"
DOC_SHOTS = ROOT / "docs" / "screenshots"
P52_ID = "platform-BR322900-37114"  # platform P-52 of the bundled zones


def vigia_cmd() -> list[str]:
    exe = shutil.which("vigia") or str(Path(sys.executable).with_name("vigia"))
    return [exe] if Path(exe).exists() else [sys.executable, "-m", "vigia.service.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FeedServer:
    """An AIS feed on 127.0.0.1 that the service connects to (``VIGIA_INGEST_TCP_FEEDS``);
    lines sent while no client is connected wait in order until one is."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = int(self.sock.getsockname()[1])
        self.conn: socket.socket | None = None
        self.connected = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.conn is not None:
                self.conn.close()
            self.conn = conn  # a reconnecting service gets the lines sent from now on
            self.connected.set()

    def send(self, lines: list[str]) -> float:
        """Write lines to the connected service; returns the time the last one left."""
        if not self.connected.wait(60):
            raise TimeoutError("the service never connected to the feed")
        assert self.conn is not None
        self.conn.sendall(("\r\n".join(lines) + "\r\n").encode())
        return time.time()

    def close(self) -> None:
        self.sock.close()
        if self.conn is not None:
            self.conn.close()


@dataclass
class Service:
    """``vigia serve`` on a free port in its own folder (SQLite), with keys by role."""

    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    proc: subprocess.Popen[str] | None = None
    keys: dict[str, str] = field(default_factory=dict)
    feed: FeedServer | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(
        self, extra_env: dict[str, str] | None = None, names: dict[str, str] | None = None
    ) -> Service:
        """Start it with a viewer and an inspector key (``names``: the keys' names by
        role, people's names where the page shows them)."""
        for role in ("viewer", "inspector"):
            self.keys[role] = self.add_key(role, (names or {}).get(role, f"{role}-ui"))
        env = self._env()
        self.feed = FeedServer()
        env["VIGIA_INGEST_TCP_FEEDS"] = f"127.0.0.1:{self.feed.port}"
        env["VIGIA_INGEST_FLUSH_INTERVAL_S"] = "0.2"
        # the demo is dated January 2026: fed live, it would be refused as stale
        env["VIGIA_INGEST_MAX_BEHIND_S"] = str(10 * 365 * 86_400)
        env.update(extra_env or {})
        self.port = free_port()
        self.proc = subprocess.Popen(
            [*vigia_cmd(), "serve", "--port", str(self.port), "--log-level", "warning"],
            cwd=self.workdir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.workdir / "serve.log", "w"),  # noqa: SIM115 - lives with the process
            text=True,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError((self.workdir / "serve.log").read_text())
            try:
                self.get("/healthz")
                return self
            except (OSError, urllib.error.URLError):
                time.sleep(0.3)
        raise TimeoutError("vigia serve did not answer in 120 s")

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIA_")}
        env.pop("DATABASE_URL", None)
        return env

    def add_key(self, role: str, name: str) -> str:
        """A new key in the service's store (also while it runs); returns the key."""
        out = subprocess.run(
            [*vigia_cmd(), "apikey", "create", "--role", role, "--name", name],
            cwd=self.workdir,
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return out.stdout.strip()

    def get(self, path: str, role: str | None = "viewer") -> Any:
        headers = {"X-API-Key": self.keys[role]} if role else {}
        req = urllib.request.Request(self.base + path, headers=headers)
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def wait_leads(
        self, n: int, timeout: float = 60, mmsi: int | None = None
    ) -> list[dict[str, Any]]:
        """At least ``n`` stored leads (of one vessel, given ``mmsi``), polled every 50 ms
        so a test can time what follows from the moment they are stored."""
        query = "/leads?limit=500" + ("" if mmsi is None else f"&mmsi={mmsi}")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            leads: list[dict[str, Any]] = self.get(query)["leads"]
            if len(leads) >= n:
                return leads
            time.sleep(0.05)
        raise TimeoutError(f"fewer than {n} leads after {timeout} s")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self.feed is not None:
            self.feed.close()


def demo_lines() -> list[str]:
    return [ln for ln in DEMO.read_text().splitlines() if ln and not ln.startswith("#")]


def platform_pass(
    mmsi: int, t0: float, dist_m: float = 300.0, name: str = "TEST PASS"
) -> list[str]:
    """A ship steaming north past P-52 ``dist_m`` east of it (inside its 500 m ring)."""
    from vigia.zones.catalogue import bundled_zones_dir, load_zones

    p52 = next(z for z in load_zones([bundled_zones_dir()]) if z.id == P52_ID).geometry
    cpa = aisgen.fwd(p52.x, p52.y, 90, dist_m)
    start = aisgen.fwd(*cpa, 180, 12 * aisgen.KN * 10 * 10)
    fixes = aisgen.run(*start, course=0, sog_kn=12.0, t0=t0, dt_s=10, n=21)
    static = aisgen.static_lines(mmsi, t0 - 30, name=name, ship_type=80, length_m=200)
    return [*static, *(s for _, s in aisgen.lines_for(mmsi, fixes))]


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

    def rendered(self, layers: list[str]) -> int:
        """How many features the map draws on screen in these layers."""
        return int(
            self.page.evaluate(
                "(ls) => window.__vigia.map.map.queryRenderedFeatures({layers: ls}).length",
                layers,
            )
        )

    def doc_shot(self, name: str, selector: str = "#lead-detail") -> Path:
        """A small PNG of one panel for the README (docs/screenshots/, kept under 150 KB)."""
        DOC_SHOTS.mkdir(parents=True, exist_ok=True)
        path = DOC_SHOTS / f"{name}.png"
        self.page.locator(selector).screenshot(path=str(path), animations="disabled")
        return path

    def shot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path
