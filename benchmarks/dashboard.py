"""The dashboard in the real browser with 20,000 vessels moving: frame time and the time
from a lead event to its row in the panel.

Usage: python -m benchmarks.dashboard [--vessels 20000] [--period 5] [--seconds 20]
[--moving 1.0] [--quick]

Runs ``vigia serve`` (SQLite, in a temporary folder) fed over a real TCP socket, puts
``--vessels`` synthetic vessels (type 1 reports, moving at 5-20 kn) off the Brazilian
coast, and every ``--period`` seconds sends each of them a new position while the page
(Debian chromium, headless, software WebGL) refreshes its vessel layer at the same
period. Measured in the page:

- frame intervals (requestAnimationFrame) over ``--seconds`` while the map pans once a
  second, p50 / p95 / p99 / max, and long tasks (> 50 ms) on the main thread; the
  baseline, in the same run, is the same page with the vessel layer switched off;
- lead event to row: leads handed to the page exactly as a stream event is (the handler
  of /leads/stream events), timed from the handover to the row being in the panel;
- a lead raised by the feed, from the sentence leaving the socket to the row (this one
  includes the service's flush and, without /leads/stream, the page's 5 s poll).

Software WebGL on a shared 2-core machine is the worst case; a duty officer's desktop
with a GPU draws faster. ``--quick`` (a smoke run): 500 vessels moving every second,
2 s of frames each way, 3 injected leads.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from scripts import aisgen
from tests.support.dashboard import CHROMIUM, CHROMIUM_ARGS, Service, platform_pass

ROOT = Path(__file__).resolve().parents[1]

FRAMES_JS = """(ms) => new Promise((resolve) => {
  const out = []; const longs = [];
  const obs = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) longs.push(e.duration);
  });
  obs.observe({ type: "longtask", buffered: false });
  let last = performance.now(); const end = last + ms;
  const map = window.__vigia.map.map; let pan = last + 1000; let dir = 1;
  function tick(now) {
    out.push(now - last); last = now;
    if (now > pan) { map.panBy([dir * 120, 0], { duration: 600 }); dir = -dir; pan = now + 1000; }
    if (now < end) requestAnimationFrame(tick);
    else { obs.disconnect(); resolve({ frames: out, longs }); }
  }
  requestAnimationFrame(tick);
})"""

INJECT_JS = """async (n) => {
  const lp = window.__vigia.leads;
  const base = { mmsi: 710997999, rule: "SEC-PLATFORM", citation: "NORMAM-07/DPC 0212 f)",
    zone_id: "platform-BR322900-37114", zone_kind: "platform", ended_at: null, status: "new",
    min_distance_m: 300, max_sog_kn: 12, evidence: [],
    closest_point: { type: "Point", coordinates: [-39.73, -21.9] } };
  window.__vigiaRowTimes = [];
  for (let i = 0; i < n; i++) {
    const id = "BENCH-" + i + "-" + Math.random().toString(36).slice(2);
    lp.marks.set(id, performance.now());
    const lead = { ...base, id, started_at: new Date().toISOString(), vessel: { name: "B" + i } };
    lp.put(lead, { fresh: true });
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 300));
  return window.__vigiaRowTimes;
}"""


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))] if s else float("nan")


def fleet(n: int, seed: int = 7) -> list[list[float]]:
    """[mmsi, lon, lat, sog, cog] of n vessels off the coast (Rio to Santos densest)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if rng.random() < 0.5:
            lon, lat = rng.uniform(-46.5, -40.5), rng.uniform(-25.5, -22.0)
        else:
            lon, lat = rng.uniform(-50.0, -34.0), rng.uniform(-30.0, 0.0)
            lon = max(lon, -48.5 + (lat + 28) * 0.5)  # keep most of them at sea
        out.append([float(720_000_000 + i), lon, lat, rng.uniform(5, 20), rng.uniform(0, 360)])
    return out


def step(ships: list[list[float]], dt: float, share: float = 1.0) -> list[str]:
    """A new position for ``share`` of the ships (the first ones: moored and anchored
    vessels report every few minutes, so in a national picture most of the layer is
    still from one refresh to the next)."""
    t = time.time()
    lines = []
    for s in ships[: max(1, round(len(ships) * share))]:
        d = s[3] * 1852 / 3600 * dt
        s[1] += d * math.sin(math.radians(s[4])) / (111_320 * math.cos(math.radians(s[2])))
        s[2] += d * math.cos(math.radians(s[4])) / 110_540
        lines.append(aisgen.fast_type1(int(s[0]), t, s[1], s[2], s[3], s[4]))
    return lines


def summary(name: str, frames: list[float], longs: list[float]) -> None:
    fps = 1000 / statistics.mean(frames) if frames else 0
    print(
        f"{name:<22} frames {len(frames):5d}  p50 {pct(frames, 0.5):6.1f} ms  "
        f"p95 {pct(frames, 0.95):6.1f} ms  p99 {pct(frames, 0.99):6.1f} ms  "
        f"max {max(frames or [0]):6.1f} ms  ~{fps:4.1f} fps  long tasks {len(longs)} "
        f"(max {max(longs or [0]):.0f} ms)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vessels", type=int, default=20_000)
    ap.add_argument("--period", type=float, default=5.0)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--leads", type=int, default=20)
    ap.add_argument(
        "--moving", type=float, default=1.0, help="share of the vessels reporting each period"
    )
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    args = ap.parse_args()
    if args.quick:
        args.vessels, args.period, args.seconds, args.leads = 500, 1.0, 2.0, 3

    with tempfile.TemporaryDirectory() as tmp:
        svc = Service(Path(tmp)).start()
        try:
            assert svc.feed is not None
            ships = fleet(args.vessels)
            svc.feed.send(step(ships, 0))
            t0 = time.monotonic()
            while len(svc.get("/map/vessels")["vessels"]) < args.vessels * 0.99:
                if time.monotonic() - t0 > 300:
                    raise TimeoutError("the service did not store the fleet")
                time.sleep(1)
            print(f"{args.vessels} vessels stored in {time.monotonic() - t0:.1f} s")
            stop = threading.Event()

            def move() -> None:
                while not stop.wait(args.period):
                    try:
                        svc.feed.send(step(ships, args.period, args.moving))  # type: ignore[union-attr]
                    except OSError as exc:  # the service dropped the feed; it reconnects
                        print(f"feed: {exc}; resending next period", flush=True)

            mover = threading.Thread(target=move, daemon=True)
            mover.start()
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                # Playwright's waits evaluate strings, which the page's CSP forbids
                page = browser.new_page(viewport={"width": 1400, "height": 900}, bypass_csp=True)
                # bytes on the wire of each vessel-layer answer (gzip's Content-Length),
                # by kind: clusters (zoomed out), the whole layer of a view, a delta
                layer: list[tuple[str, int, bool]] = []

                def sized(resp: object) -> None:
                    url, headers = resp.url, resp.headers  # type: ignore[attr-defined]
                    if "/map/vessels" in url and "content-length" in headers:
                        n = int(headers["content-length"])
                        kind = "delta" if "since=" in url else "whole"
                        if kind == "whole" and resp.json().get("clustered"):  # type: ignore[attr-defined]
                            kind = "clusters"
                        layer.append((kind, n, headers.get("content-encoding") == "gzip"))

                page.on("response", sized)
                page.goto(svc.base + "/")
                page.fill("#key", svc.keys["inspector"])
                page.evaluate(f"window.__vigia.vesselRefreshMs = {int(args.period * 1000)}")
                signed = time.perf_counter()
                page.click("#signin-form button[type=submit]")
                page.wait_for_selector("body[data-loaded=true]", state="attached", timeout=120_000)
                loaded = time.perf_counter() - signed
                page.wait_for_function("window.__vigia.map.map.loaded()", timeout=60_000)
                print(
                    f"sign-in to the list and map drawn: {loaded:.2f} s "
                    f"(map settled at {time.perf_counter() - signed:.2f} s)"
                )
                page.wait_for_timeout(3000)
                views = {
                    # the whole coast as the page opens (zoom about 4): clusters past
                    # 2,000 vessels; a harbour (Rio, zoom 10): the vessels around the view
                    "national": None,
                    "city": "window.__vigia.map.map.jumpTo({center: [-43.2, -23.0], zoom: 10})",
                }
                for view, go in views.items():
                    start = len(layer) if go else 0
                    if go:
                        page.evaluate(go)
                        page.wait_for_timeout(2000)
                    zoom = page.evaluate("window.__vigia.map.map.getZoom()")
                    drawn = page.evaluate("window.__vigia.map.vesselCount")
                    total = page.evaluate("window.__vigia.map.clusterTotal")
                    page.evaluate("window.__vigia.map.setGroup('vessels', false)")
                    base = page.evaluate(FRAMES_JS, int(args.seconds * 1000))
                    page.evaluate("window.__vigia.map.setGroup('vessels', true)")
                    page.wait_for_timeout(1000)
                    full = page.evaluate(FRAMES_JS, int(args.seconds * 1000))
                    what = f"{drawn} vessels" if total is None else f"clusters of {total}"
                    print(f"{view} view, zoom {zoom:.1f}: {what} on the map")
                    summary("  baseline (no vessels)", base["frames"], base["longs"])
                    summary(f"  {what}", full["frames"], full["longs"])
                    # this view's answers: the first (as the view opened) and its refreshes
                    mine = layer[start:]
                    for kind in ("clusters", "whole", "delta"):
                        got = [n for k, n, _ in mine if k == kind]
                        if got:
                            print(
                                f"  map refresh bytes, {kind}: p50 {pct(got, 0.5) / 1e3:.1f} kB "
                                f"p95 {pct(got, 0.95) / 1e3:.1f} kB max {max(got) / 1e3:.1f} kB "
                                f"({len(got)} answers)"
                            )
                print(
                    f"({args.moving:.0%} of the vessels report every {args.period:g} s; "
                    f"gzip on every answer: {all(z for *_, z in layer)})"
                )
                rows = page.evaluate(INJECT_JS, args.leads)
                print(
                    f"lead event -> row ({len(rows)} events under load): "
                    f"p50 {pct(rows, 0.5):.1f} ms  p95 {pct(rows, 0.95):.1f} ms  "
                    f"max {max(rows or [0]):.1f} ms"
                )
                sent = svc.feed.send(platform_pass(710_997_001, time.time() - 400, name="BENCH"))
                page.locator("#lead-list li", has_text="BENCH").first.wait_for(timeout=30_000)
                streaming = page.evaluate("window.__vigia.features.stream")
                print(
                    f"feed sentence -> row: {time.time() - sent:.2f} s "
                    f"({'SSE' if streaming else 'no /leads/stream: 5 s poll fallback'})"
                )
                # a smoke run must not overwrite the real run's picture
                shot = "bench-quick.png" if args.quick else "bench-20k.png"
                page.screenshot(path=str(ROOT / "build" / "screenshots" / shot))
                browser.close()
            stop.set()
        finally:
            svc.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
