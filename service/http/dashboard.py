"""The monitoring-centre dashboard: static files under ``/ui/`` and the page at ``/`` for
browsers.

``/`` is content-negotiated: a browser (``text/html`` preferred over JSON) gets the page,
anything else (``application/json``, OGC clients, curl) the OGC landing document as
before. The page and its assets hold no data, so they need no key; every data call the
page makes sends the key the officer typed in.

The page and every path under ``/ui/`` (where the static files serve the page itself at
``/ui/``, and a 404 too) carry the same Content-Security-Policy: nothing leaves the
origin and no other site may frame the page (``frame-ancestors 'none'``, and
``X-Frame-Options: DENY`` for browsers that predate it), so it cannot be overlaid to
trick an officer into clicks (clickjacking).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

STATIC_DIR = Path(__file__).resolve().parent / "static"
INDEX = STATIC_DIR / "index.html"
#: nothing leaves the origin: the map library makes its worker from a blob URL
CSP = (
    "default-src 'self'; script-src 'self'; worker-src 'self' blob:; "
    "child-src 'self' blob:; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
_SECURITY_NAMES = frozenset(name for name, _ in SECURITY_HEADERS)
PAGE_HEADERS = [
    (b"content-type", b"text/html; charset=utf-8"),
    *SECURITY_HEADERS,
    (b"cache-control", b"no-cache"),
    (b"vary", b"Accept"),
]


def _quality(accept: str, media: str) -> float:
    """The q an Accept header gives ``media`` (exact match, then type/*, then */*)."""
    best: tuple[int, float] = (-1, 0.0)
    kind = media.split("/")[0] + "/*"
    for part in accept.split(","):
        fields = [f.strip() for f in part.split(";")]
        name = fields[0].lower()
        q = 1.0
        for f in fields[1:]:
            if f.startswith("q="):
                try:
                    q = max(0.0, min(1.0, float(f[2:])))
                except ValueError:
                    q = 0.0
        rank = {media: 2, kind: 1, "*/*": 0}.get(name, -1)
        if rank > best[0]:
            best = (rank, q)
    return best[1]


def wants_html(accept: str) -> bool:
    """Whether a client prefers the page to JSON (a browser's navigation does)."""
    accept = accept[:2000]  # a header from the wire is bounded before it is parsed
    html = _quality(accept, "text/html")
    return html > 0 and html > _quality(accept, "application/json")


def _secured(send: Send) -> Send:
    """``send`` with the page's security headers on the response, in place of any."""

    async def send_secured(message: Message) -> None:
        if message["type"] == "http.response.start":
            kept = [h for h in message.get("headers", []) if h[0].lower() not in _SECURITY_NAMES]
            message = {**message, "headers": [*kept, *SECURITY_HEADERS]}
        await send(message)

    return send_secured


class DashboardPage:
    """ASGI middleware answering ``GET /`` with the page when the client prefers HTML,
    and putting the page's security headers on everything under ``/ui`` (outside the
    app's error handlers, so a 404 there has them too).

    A plain ASGI wrapper rather than an HTTP middleware class, so streamed responses
    (the SSE stream) pass through untouched.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["path"] == "/"
            and scope["method"] in ("GET", "HEAD")
            and wants_html(_header(scope, b"accept"))
        ):
            body = INDEX.read_bytes()
            headers = [*PAGE_HEADERS, (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send(
                {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
            )
            return
        if scope["type"] == "http" and (scope["path"] == "/ui" or scope["path"].startswith("/ui/")):
            await self.app(scope, receive, _secured(send))
            return
        await self.app(scope, receive, send)


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin-1")
    return ""


def install_dashboard(app: FastAPI) -> None:
    """Serve the page at ``/`` (browsers) and its assets at ``/ui/``."""
    app.mount("/ui", StaticFiles(directory=STATIC_DIR, html=True), name="ui")
    app.add_middleware(DashboardPage)
